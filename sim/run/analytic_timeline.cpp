#include "sim/run/analytic_timeline.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/run/trace_names.hpp"

namespace dtsim::run {

Timeline analytic_timeline(const scheduling::IterationPlan& plan, const std::vector<BucketCost>& costs, int workers,
                           int iterations) {
  DTSIM_CHECK(costs.size() == plan.buckets.size(), "one cost per bucket");
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
    m.forward_end_s = now;
    std::vector<double> backward_end(static_cast<std::size_t>(layers));
    for (int l = layers - 1; l >= 0; --l) {
      const auto& layer = plan.layers[static_cast<std::size_t>(l)];
      iteration_events.push_back({0, "compute", backward_event(layer), "backward", now, now + layer.backward_s, 0});
      now += layer.backward_s;
      backward_end[static_cast<std::size_t>(l)] = now;
    }
    m.backward_end_s = now;
    double stream_free = m.forward_end_s;
    for (std::size_t b = 0; b < plan.buckets.size(); ++b) {
      const double start =
          std::max(stream_free, backward_end[static_cast<std::size_t>(plan.buckets[b].ready_layer)]);
      stream_free = start + costs[b].time_s;
      iteration_events.push_back(
          {0, "comm", bucket_event(static_cast<int>(b)), "comm", start, stream_free, plan.buckets[b].bytes});
    }
    m.comm_end_s = std::max(m.backward_end_s, stream_free);
    now = m.comm_end_s;
    double update_s = 0;
    for (const auto& layer : plan.layers) update_s += layer.update_s;
    iteration_events.push_back({0, "compute", "update", "update", now, now + update_s, 0});
    now += update_s;
    m.end_s = now;
    for (int w = 0; w < workers; ++w) {
      timeline.marks[static_cast<std::size_t>(w)].push_back(m);
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
