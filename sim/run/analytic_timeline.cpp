#include "sim/run/analytic_timeline.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/run/stragglers.hpp"
#include "sim/results/trace_names.hpp"

namespace dtsim::run {

Timeline analytic_timeline(const scheduling::IterationPlan& plan, const std::vector<BucketCost>& costs, int workers,
                           int iterations, int trace_workers, const sync::SyncPolicy& sync,
                           const Slowdown& slowdown, const CommOverlap& overlap) {
  DTSIM_CHECK(costs.size() == plan.buckets.size(), "one cost per bucket");
  DTSIM_CHECK(plan.credit_bytes == 0, "the analytic level models one FIFO stream; priority needs message level");
  Timeline timeline;
  const auto W = static_cast<std::size_t>(workers);
  timeline.marks.assign(W, {});
  timeline.traffic.assign(W, {});
  // Without stragglers every worker runs the same timeline, bit for bit: the recurrence runs for the traced
  // workers (for their events) or worker 0 alone, and the others copy worker 0's marks.
  const auto traced = static_cast<std::size_t>(std::clamp(trace_workers, 0, workers));
  const std::size_t computed = slowdown ? W : std::max<std::size_t>(traced, 1);
  const int layers = static_cast<int>(plan.layers.size());
  std::vector<double> now(computed, 0.0), backward_start(computed);
  std::vector<std::vector<double>> backward_end(computed, std::vector<double>(static_cast<std::size_t>(layers)));
  std::vector<int> next_layer(computed);                 // the next layer whose backward is still to run
  std::vector<std::vector<BusySpan>> busy(computed);     // this iteration's exchanges, per worker
  std::vector<double> exchange_start(computed);
  std::vector<IterationMarks> marks(computed);
  double update_s = 0;
  for (const auto& layer : plan.layers) update_s += layer.update_s;
  std::vector<collectives::RankTraffic> exchange_traffic(W);  // of one exchanging iteration
  for (const BucketCost& cost : costs)
    for (std::size_t w = 0; w < W; ++w) {
      exchange_traffic[w].sent += cost.traffic[w].sent;
      exchange_traffic[w].received += cost.traffic[w].received;
    }
  std::size_t events_per_iteration = 2 * plan.layers.size() + 1;  // of one traced worker, at most
  for (const BucketCost& cost : costs)
    events_per_iteration += 1 + (cost.compress_s > 0 ? 1 : 0) + (cost.decompress_s > 0 ? 1 : 0);
  timeline.events.reserve(events_per_iteration * traced * static_cast<std::size_t>(iterations));
  for (int it = 0; it < iterations; ++it) {
    auto duration = [&](std::size_t w, double work_s) {
      return slowdown ? slowdown(static_cast<int>(w), it, now[w], work_s) : work_s;
    };
    // Names are built for traced workers only.
    auto record = [&](std::size_t w, const char* lane, auto name, const char* category, double start, double end,
                      std::int64_t bytes) {
      if (w < traced)
        timeline.events.push_back({static_cast<int>(w), lane, name(), category, start, end, bytes});
    };
    for (std::size_t w = 0; w < computed; ++w) {
      IterationMarks& m = marks[w];
      m = IterationMarks{};
      m.start_s = now[w];
      for (const auto& layer : plan.layers) {
        const double d = duration(w, layer.forward_s);
        record(w, "compute", [&] { return forward_event(layer); }, "forward", now[w], now[w] + d, 0);
        now[w] += d;
      }
      m.forward_s = now[w] - m.start_s;
      backward_start[w] = now[w];
      next_layer[w] = layers - 1;
      busy[w].clear();
    }
    // Backward of worker w down to layer `last`: every exchange it can overlap started before it ends.
    auto backward_to = [&](std::size_t w, int last) {
      for (; next_layer[w] >= last; --next_layer[w]) {
        const auto& layer = plan.layers[static_cast<std::size_t>(next_layer[w])];
        const double end = slowdown.profile(static_cast<int>(w))
                               .finish_s(now[w], layer.backward_s * slowdown.factor(static_cast<int>(w), it), busy[w],
                                         overlap.slowdown);
        record(w, "compute", [&] { return backward_event(layer); }, "backward", now[w], end, 0);
        now[w] = end;
        backward_end[w][static_cast<std::size_t>(next_layer[w])] = end;
      }
    };
    // A collective starts once every worker has its bucket ready and compressed; all finish it together.
    // Iterations that do not exchange (local SGD) go straight to the update.
    const bool exchanges = sync.exchanges(it);
    double stream_free = exchanges ? *std::min_element(backward_start.begin(), backward_start.end()) : 0.0;
    for (std::size_t b = 0; exchanges && b < plan.buckets.size(); ++b) {
      const scheduling::Bucket& bucket = plan.buckets[b];
      const BucketCost& cost = costs[b];
      const int id = static_cast<int>(b);
      double start = 0;
      for (std::size_t w = 0; w < computed; ++w) {
        backward_to(w, bucket.ready_layer);
        const double issued =
            std::max(backward_end[w][static_cast<std::size_t>(bucket.ready_layer)], backward_start[w] + bucket.not_before_s);
        const double ready = std::max(stream_free, issued);
        if (cost.compress_s > 0)
          record(w, "compress", [&] { return compress_event(id); }, "compress", ready, ready + cost.compress_s, 0);
        exchange_start[w] = std::max(ready + cost.compress_s, issued + overlap.launch_s);
        start = std::max(start, exchange_start[w]);
      }
      stream_free = start + cost.time_s;
      for (std::size_t w = 0; w < computed; ++w) {
        if (overlap.slowdown != 1) busy[w].push_back({exchange_start[w], stream_free});
        record(w, "comm", [&] { return bucket_event(id); }, "comm", start, stream_free, cost.payload_bytes);
        if (cost.decompress_s > 0)
          record(w, "compress", [&] { return decompress_event(id); }, "compress", stream_free,
                 stream_free + cost.decompress_s, 0);
      }
      stream_free += cost.decompress_s;
    }
    for (std::size_t w = 0; w < computed; ++w) {
      IterationMarks& m = marks[w];
      backward_to(w, 0);
      m.backward_s = now[w] - backward_start[w];
      m.comm_wait_s = std::max(0.0, stream_free - now[w]);
      now[w] += m.comm_wait_s;
      m.update_s = duration(w, update_s);
      record(w, "compute", [] { return std::string("update"); }, "update", now[w], now[w] + m.update_s, 0);
      now[w] += m.update_s;
      m.end_s = now[w];
    }
    for (std::size_t w = 0; w < W; ++w) {
      timeline.marks[w].push_back(marks[w < computed ? w : 0]);
      if (!exchanges) continue;
      timeline.traffic[w].bytes_sent += exchange_traffic[w].sent;
      timeline.traffic[w].bytes_received += exchange_traffic[w].received;
    }
  }
  return timeline;
}

}  // namespace dtsim::run
