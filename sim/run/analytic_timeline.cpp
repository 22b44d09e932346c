#include "sim/run/analytic_timeline.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/run/trace_names.hpp"

namespace dtsim::run {

Timeline analytic_timeline(const scheduling::IterationPlan& plan, const std::vector<BucketCost>& costs, int workers,
                           int iterations, int trace_workers) {
  DTSIM_CHECK(costs.size() == plan.buckets.size(), "one cost per bucket");
  DTSIM_CHECK(plan.credit_bytes == 0, "the analytic level models one FIFO stream; priority needs message level");
  Timeline timeline;
  timeline.marks.assign(static_cast<std::size_t>(workers), {});
  timeline.traffic.assign(static_cast<std::size_t>(workers), {});
  const int layers = static_cast<int>(plan.layers.size());
  double now = 0;
  for (int it = 0; it < iterations; ++it) {
    std::vector<TraceEvent> iteration_events;
    IterationMarks m;
    m.start_s = now;
    for (const auto& layer : plan.layers) {
      iteration_events.push_back({0, "compute", forward_event(layer), "forward", now, now + layer.forward_s, 0});
      now += layer.forward_s;
    }
    m.forward_s = now - m.start_s;
    const double backward_start = now;
    std::vector<double> backward_end(static_cast<std::size_t>(layers));
    for (int l = layers - 1; l >= 0; --l) {
      const auto& layer = plan.layers[static_cast<std::size_t>(l)];
      iteration_events.push_back({0, "compute", backward_event(layer), "backward", now, now + layer.backward_s, 0});
      now += layer.backward_s;
      backward_end[static_cast<std::size_t>(l)] = now;
    }
    m.backward_s = now - backward_start;
    double stream_free = backward_start;
    for (std::size_t b = 0; b < plan.buckets.size(); ++b) {
      const scheduling::Bucket& bucket = plan.buckets[b];
      const double ready = std::max({stream_free, backward_end[static_cast<std::size_t>(bucket.ready_layer)],
                                     backward_start + bucket.not_before_s});
      const BucketCost& cost = costs[b];
      const double start = ready + cost.compress_s;
      if (cost.compress_s > 0)
        iteration_events.push_back({0, "compress", compress_event(static_cast<int>(b)), "compress", ready, start, 0});
      stream_free = start + cost.time_s;
      iteration_events.push_back(
          {0, "comm", bucket_event(static_cast<int>(b)), "comm", start, stream_free, cost.payload_bytes});
      if (cost.decompress_s > 0) {
        iteration_events.push_back({0, "compress", decompress_event(static_cast<int>(b)), "compress", stream_free,
                                    stream_free + cost.decompress_s, 0});
        stream_free += cost.decompress_s;
      }
    }
    m.comm_wait_s = std::max(0.0, stream_free - now);
    now += m.comm_wait_s;
    for (const auto& layer : plan.layers) m.update_s += layer.update_s;
    iteration_events.push_back({0, "compute", "update", "update", now, now + m.update_s, 0});
    now += m.update_s;
    m.end_s = now;
    for (int w = 0; w < workers; ++w) {
      timeline.marks[static_cast<std::size_t>(w)].push_back(m);
      if (w < trace_workers)
        for (TraceEvent e : iteration_events) {
          e.worker = w;
          timeline.events.push_back(std::move(e));
        }
      for (const BucketCost& cost : costs) {
        timeline.traffic[static_cast<std::size_t>(w)].bytes_sent += cost.traffic[static_cast<std::size_t>(w)].sent;
        timeline.traffic[static_cast<std::size_t>(w)].bytes_received +=
            cost.traffic[static_cast<std::size_t>(w)].received;
      }
    }
  }
  return timeline;
}

}  // namespace dtsim::run
