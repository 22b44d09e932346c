#include "sim/run/analytic_timeline.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/run/trace_names.hpp"

namespace dtsim::run {

Timeline analytic_timeline(const scheduling::IterationPlan& plan, const std::vector<BucketCost>& costs, int workers,
                           int iterations, int trace_workers, const sync::SyncPolicy& sync,
                           const Slowdown& slowdown) {
  DTSIM_CHECK(costs.size() == plan.buckets.size(), "one cost per bucket");
  DTSIM_CHECK(plan.credit_bytes == 0, "the analytic level models one FIFO stream; priority needs message level");
  Timeline timeline;
  const auto W = static_cast<std::size_t>(workers);
  timeline.marks.assign(W, {});
  timeline.traffic.assign(W, {});
  const int layers = static_cast<int>(plan.layers.size());
  std::vector<double> now(W, 0.0), backward_start(W);
  std::vector<std::vector<double>> backward_end(W, std::vector<double>(static_cast<std::size_t>(layers)));
  std::vector<IterationMarks> marks(W);
  for (int it = 0; it < iterations; ++it) {
    auto duration = [&](std::size_t w, double work_s) {
      return slowdown ? slowdown(static_cast<int>(w), it, now[w], work_s) : work_s;
    };
    auto record = [&](std::size_t w, const char* lane, std::string name, const char* category, double start,
                      double end, std::int64_t bytes) {
      if (static_cast<int>(w) < trace_workers)
        timeline.events.push_back({static_cast<int>(w), lane, std::move(name), category, start, end, bytes});
    };
    for (std::size_t w = 0; w < W; ++w) {
      IterationMarks& m = marks[w];
      m = IterationMarks{};
      m.start_s = now[w];
      for (const auto& layer : plan.layers) {
        const double d = duration(w, layer.forward_s);
        record(w, "compute", forward_event(layer), "forward", now[w], now[w] + d, 0);
        now[w] += d;
      }
      m.forward_s = now[w] - m.start_s;
      backward_start[w] = now[w];
      for (int l = layers - 1; l >= 0; --l) {
        const auto& layer = plan.layers[static_cast<std::size_t>(l)];
        const double d = duration(w, layer.backward_s);
        record(w, "compute", backward_event(layer), "backward", now[w], now[w] + d, 0);
        now[w] += d;
        backward_end[w][static_cast<std::size_t>(l)] = now[w];
      }
      m.backward_s = now[w] - backward_start[w];
    }
    // A collective starts once every worker has its bucket ready and compressed; all finish it together.
    // Iterations that do not exchange (local SGD) go straight to the update.
    const bool exchanges = sync.exchanges(it);
    double stream_free = exchanges ? *std::min_element(backward_start.begin(), backward_start.end()) : 0.0;
    for (std::size_t b = 0; exchanges && b < plan.buckets.size(); ++b) {
      const scheduling::Bucket& bucket = plan.buckets[b];
      const BucketCost& cost = costs[b];
      double start = 0;
      for (std::size_t w = 0; w < W; ++w) {
        const double ready = std::max({stream_free, backward_end[w][static_cast<std::size_t>(bucket.ready_layer)],
                                       backward_start[w] + bucket.not_before_s});
        if (cost.compress_s > 0)
          record(w, "compress", compress_event(static_cast<int>(b)), "compress", ready, ready + cost.compress_s, 0);
        start = std::max(start, ready + cost.compress_s);
      }
      stream_free = start + cost.time_s;
      for (std::size_t w = 0; w < W; ++w) {
        record(w, "comm", bucket_event(static_cast<int>(b)), "comm", start, stream_free, cost.payload_bytes);
        if (cost.decompress_s > 0)
          record(w, "compress", decompress_event(static_cast<int>(b)), "compress", stream_free,
                 stream_free + cost.decompress_s, 0);
      }
      stream_free += cost.decompress_s;
    }
    for (std::size_t w = 0; w < W; ++w) {
      IterationMarks& m = marks[w];
      m.comm_wait_s = std::max(0.0, stream_free - now[w]);
      now[w] += m.comm_wait_s;
      double update_s = 0;
      for (const auto& layer : plan.layers) update_s += layer.update_s;
      m.update_s = duration(w, update_s);
      record(w, "compute", "update", "update", now[w], now[w] + m.update_s, 0);
      now[w] += m.update_s;
      m.end_s = now[w];
      timeline.marks[w].push_back(m);
      for (const BucketCost& cost : costs) {
        if (!exchanges) break;
        timeline.traffic[w].bytes_sent += cost.traffic[w].sent;
        timeline.traffic[w].bytes_received += cost.traffic[w].received;
      }
    }
  }
  return timeline;
}

}  // namespace dtsim::run
