#include "sim/run/time_by_class.hpp"

#include <algorithm>
#include <string>

namespace dtsim::run {
namespace {

constexpr auto kMeasured = static_cast<std::size_t>(models::KernelClass::measured);

void normalise(models::ClassTimes& c) {
  double total = 0;
  for (double x : c) total += x;
  if (total > 0)
    for (double& x : c) x /= total;
}

/// Sorted, merged intervals.
std::vector<std::pair<double, double>> merged(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<double, double>> out;
  for (const auto& [a, b] : v) {
    if (!out.empty() && a <= out.back().second) out.back().second = std::max(out.back().second, b);
    else out.push_back({a, b});
  }
  return out;
}

/// Length of the overlap of two sorted, merged interval lists (one sweep).
double covered(const std::vector<std::pair<double, double>>& a, const std::vector<std::pair<double, double>>& b) {
  double total = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    total += std::max(0.0, std::min(a[i].second, b[j].second) - std::max(a[i].first, b[j].first));
    (a[i].second < b[j].second ? i : j) += 1;
  }
  return total;
}

}  // namespace

PassShares pass_shares(const std::vector<models::LayerClassTimes>& classes, const std::vector<int>& layers,
                       double measured_scale) {
  PassShares s;
  for (int l : layers) {
    const models::LayerClassTimes& c = classes[static_cast<std::size_t>(l)];
    for (std::size_t k = 0; k < models::kKernelClasses; ++k) {
      const double scale = k == kMeasured ? measured_scale : 1.0;
      s.forward[k] += c.forward[k] * scale;
      s.backward[k] += c.backward[k] * scale;
      s.update[k] += c.update[k];
    }
  }
  normalise(s.forward);
  normalise(s.backward);
  normalise(s.update);
  return s;
}

std::vector<TimeShare> time_by_class(const Breakdown& w, const PassShares& shares, double bubble_s) {
  std::vector<TimeShare> parts;
  for (std::size_t k = 0; k < models::kKernelClasses; ++k) {
    const double t =
        w.forward_s * shares.forward[k] + w.backward_s * shares.backward[k] + w.update_s * shares.update[k];
    if (t > 0) parts.push_back({std::string(models::kernel_class_name(static_cast<models::KernelClass>(k))), t});
  }
  const double bubble = std::min(bubble_s, w.exposed_comm_s);
  for (const TimeShare& p : std::vector<TimeShare>{{"exposed communication", w.exposed_comm_s - bubble},
                                                   {"pipeline bubble", bubble},
                                                   {"waiting for other workers", w.idle_s}})
    if (p.seconds > 0) parts.push_back(p);
  return parts;
}

double pipeline_bubble_s(const taskgraph::Program& program, const std::vector<taskgraph::Span>& spans, int first,
                         int last, double start_s, double end_s) {
  std::vector<std::pair<double, double>> busy, comm;
  for (int i = first; i <= last; ++i) {
    const taskgraph::Task& t = program.tasks[static_cast<std::size_t>(i)];
    const taskgraph::Span& s = spans[static_cast<std::size_t>(i)];
    if (s.end_s <= s.start_s) continue;
    if (t.op == taskgraph::Op::compute && t.stream == taskgraph::Stream::compute) busy.push_back({s.start_s, s.end_s});
    else if (t.op != taskgraph::Op::compute && t.op != taskgraph::Op::recv) comm.push_back({s.start_s, s.end_s});
  }
  std::vector<std::pair<double, double>> idle;
  double at = start_s;
  for (const auto& [a, b] : merged(busy)) {
    if (a > at) idle.push_back({at, a});
    at = std::max(at, b);
  }
  if (end_s > at) idle.push_back({at, end_s});
  double idle_s = 0;
  for (const auto& [a, b] : idle) idle_s += b - a;
  return idle_s - covered(idle, merged(comm));
}

}  // namespace dtsim::run
