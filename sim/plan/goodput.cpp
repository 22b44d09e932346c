#include "sim/plan/goodput.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dtsim::plan {

double young_daly_interval(double checkpoint_s, double mtbf_s) { return std::sqrt(2 * checkpoint_s * mtbf_s); }

double optimal_interval(double failures_per_s, double checkpoint_s) {
  if (failures_per_s <= 0) return std::numeric_limits<double>::infinity();
  // x = lambda tau in (0, 1), in logarithms (no cancellation at small x): g(x) = log(1 - x) + x + lambda C falls
  // from lambda C >= 0 at 0 to minus infinity at 1.
  const double a = failures_per_s * checkpoint_s;
  double lo = 0, hi = 1;
  while (true) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (std::log1p(-mid) + mid + a > 0 ? lo : hi) = mid;
  }
  return lo / failures_per_s;
}

double expected_segment_s(const GoodputInputs& in, double interval_s) {
  const double l = in.failures_per_s;
  const double w = interval_s + in.checkpoint_s;
  if (l <= 0) return w;
  return std::exp(l * in.restart_s) * std::expm1(l * w) / l;
}

Goodput goodput(const GoodputInputs& in, std::optional<double> interval_s) {
  Goodput g;
  const double inf = std::numeric_limits<double>::infinity();
  const double l = in.failures_per_s;
  g.mtbf_s = l > 0 ? 1 / l : inf;
  g.young_daly_s = l > 0 ? young_daly_interval(in.checkpoint_s, g.mtbf_s) : inf;
  g.optimum_s = optimal_interval(l, in.checkpoint_s);
  g.interval_s = interval_s ? *interval_s : g.optimum_s;
  if (std::isinf(g.interval_s)) return g;  // nothing fails: no checkpoint, every hour trains
  const double tau = g.interval_s;
  const double w = tau + in.checkpoint_s;
  const double e = expected_segment_s(in, tau);
  const double lost = l > 0 ? std::expm1(l * w) / l - w : 0;
  const double restart = l > 0 ? std::expm1(l * w) * std::expm1(l * in.restart_s) / l : 0;
  g.fraction = tau / e;
  g.checkpoint = in.checkpoint_s / e;
  g.lost_work = lost / e;
  g.restart = restart / e;
  return g;
}

GoodputInputs goodput_inputs(const Bounds& b, const scenario::PlanGoodput& g) {
  const Fabric& f = b.fabric;
  const double per_hour = b.gpus * g.gpu_per_hour + b.nodes * g.node_per_hour +
                          b.nodes * f.nics_per_node * g.nic_per_hour + f.switches * g.switch_per_hour;
  const double node_s = b.nic_Bps > 0 ? b.checkpoint_node_bytes / b.nic_Bps : 0;
  GoodputInputs in;
  in.failures_per_s = per_hour / 3600;
  in.checkpoint_s = std::max(b.checkpoint_bytes / g.write_Bps, node_s);
  in.restart_s = g.restart_s + std::max(b.checkpoint_bytes / g.read_Bps, node_s);
  return in;
}

Goodput goodput(const GoodputInputs& in, const scenario::PlanGoodput& g) {
  if (g.interval == "fixed") return goodput(in, g.interval_s);
  if (g.interval == "young_daly" && in.failures_per_s > 0)
    return goodput(in, young_daly_interval(in.checkpoint_s, 1 / in.failures_per_s));
  return goodput(in, std::nullopt);
}

double lost_at(double failure_s, double interval_s, double checkpoint_s) {
  const double segment = interval_s + checkpoint_s;
  return failure_s - std::floor(failure_s / segment) * segment;
}

}  // namespace dtsim::plan
