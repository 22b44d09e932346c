#include "sim/calibration/alpha_beta_fit.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace dtsim::calibration {
namespace {

using collectives::AlphaBeta;
using collectives::Collective;
using collectives::LinkCosts;
using collectives::NvlinkCounts;

/// Least squares for y = sum_k x_k columns[k], by modified Gram-Schmidt on the augmented matrix (Bjorck),
/// columns scaled to unit length first. Returns nullopt when the columns are (nearly) dependent.
std::optional<std::vector<double>> least_squares(std::vector<std::vector<double>> q, std::vector<double> y) {
  const auto dot = [](const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
  };
  const auto subtract = [](std::vector<double>& a, double k, const std::vector<double>& v) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] -= k * v[i];
  };
  const std::size_t k = q.size();
  std::vector<double> scale(k), z(k), x(k);
  std::vector<std::vector<double>> r(k, std::vector<double>(k, 0.0));
  for (std::size_t j = 0; j < k; ++j) {
    scale[j] = std::sqrt(dot(q[j], q[j]));
    if (!(scale[j] > 0)) return std::nullopt;
    for (double& v : q[j]) v /= scale[j];
  }
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      r[i][j] = dot(q[i], q[j]);
      subtract(q[j], r[i][j], q[i]);
    }
    r[j][j] = std::sqrt(dot(q[j], q[j]));
    if (!(r[j][j] > 1e-12)) return std::nullopt;
    for (double& v : q[j]) v /= r[j][j];
    z[j] = dot(q[j], y);
    subtract(y, z[j], q[j]);
  }
  for (std::size_t j = k; j-- > 0;) {
    double rest = z[j];
    for (std::size_t i = j + 1; i < k; ++i) rest -= r[j][i] * x[i];
    x[j] = rest / r[j][j];
  }
  for (std::size_t j = 0; j < k; ++j) x[j] /= scale[j];
  return x;
}

/// The fitted parameters, in this order: alpha, beta, the per-call time, the buffer time per byte.
constexpr std::size_t kParameters = 4;
using Parameters = std::array<double, kParameters>;
using Mask = std::array<bool, kParameters>;

/// The points of one level as (T - c) / T = sum_k x_k column_k: every row of T = c + sum_k column'_k x_k divided by
/// its measured time T, so that the residuals are relative. One column per free parameter, in order.
struct Design {
  std::vector<std::vector<double>> columns;
  std::vector<double> y;
  /// Sum of squared residuals of the first two columns' x (alpha and beta when those are the free ones).
  double residual(double alpha, double beta) const {
    double s = 0;
    for (std::size_t i = 0; i < y.size(); ++i) s += std::pow(y[i] - columns[0][i] * alpha - columns[1][i] * beta, 2);
    return s;
  }
};

/// Costs of `node`'s wiring with this level's alpha and beta set, the other level fixed, and `x`'s per-call and
/// buffer times.
LinkCosts with_level(bool inter, const AlphaBeta& level, const AlphaBeta& fixed, const LinkCosts& node,
                     double call_s = 0, double buffer_s_per_byte = 0) {
  LinkCosts costs = node;
  costs.intra = inter ? fixed : level;
  costs.inter = inter ? level : fixed;
  costs.call_s = call_s;
  costs.buffer_s_per_byte = buffer_s_per_byte;
  return costs;
}

/// `collective`'s closed form of `m` on `costs`, the collective tuned for those costs (fitted_collective).
double form_s(std::string_view collective, const Measurement& m, const LinkCosts& costs) {
  return fitted_collective(collective, costs)->closed_form_s(m.group, m.bytes, costs);
}

/// The design of the points linearised at x0 over the `free` parameters: T = c + sum_k column_k x_k with the
/// columns the closed form's slopes there (steps of 1e-3 relative, or 1 at zero: exact for a linear form).
Design linearised(const std::vector<Measurement>& points, std::string_view collective, bool inter,
                  const AlphaBeta& fixed, const LinkCosts& node, const Parameters& x0, const Mask& free) {
  Design d;
  for (const Measurement& m : points) {
    const auto at = [&](const Parameters& x) {
      return form_s(collective, m, with_level(inter, {x[0], x[1]}, fixed, node, x[2], x[3]));
    };
    const double t0 = at(x0);
    double c = t0;
    std::size_t column = 0;
    d.columns.resize(static_cast<std::size_t>(std::count(free.begin(), free.end(), true)));
    for (std::size_t k = 0; k < kParameters; ++k) {
      if (!free[k]) continue;
      Parameters x = x0;
      const double step = x0[k] > 0 ? 1e-3 * x0[k] : 1;
      x[k] += step;
      const double slope = (at(x) - t0) / step;
      c -= slope * x0[k];
      d.columns[column++].push_back(slope / m.time_s);
    }
    d.y.push_back((m.time_s - c) / m.time_s);
  }
  return d;
}

/// Fits one level's `free` parameters with the other level's cost `fixed` (the others held at 0); every one >= 0.
/// Where the form has a per-call or buffer time (NCCL on an NVLink mesh or NVSwitch node), a negative one is held
/// at 0 and the rest refitted, in this order: the buffer time, the per-call time, alpha; where beta comes out
/// negative or the columns are dependent, those two are dropped. A form that is not linear in them (NCCL's LL128
/// channels run at the smaller of their link's speed and a fixed cap, and NCCL's latency term adds what exceeds
/// the links' alphas) is fitted by Gauss-Newton: linearised at the last estimate until it stops moving
/// (piecewise linear: a few rounds); a linear form is done in the first round.
LevelFit fit_level(const std::vector<Measurement>& points, std::string_view collective, bool inter,
                   const AlphaBeta& fixed, const LinkCosts& node, Mask free) {
  const std::string name = inter ? "inter-node" : "intra-node";
  constexpr int kRounds = 20;
  Design d;
  std::optional<Parameters> solution = Parameters{};
  for (int round = 0; round < kRounds; ++round) {
    Parameters x0 = *solution;
    for (double& v : x0) v = std::max(v, 0.0);
    d = linearised(points, collective, inter, fixed, node, x0, free);
    const Parameters previous = *solution;
    const auto found = least_squares(d.columns, d.y);
    if (!found) {
      // A later round whose linearisation loses a parameter (its column vanishes: alpha below NCCL's latency per
      // hop at every point) ends at the last estimate.
      if (round == 0) solution.reset();
      break;
    }
    solution = Parameters{};
    for (std::size_t k = 0, column = 0; k < kParameters; ++k)
      if (free[k]) (*solution)[k] = (*found)[column++];
    bool moved = round == 0;
    for (std::size_t k = 0; k < kParameters; ++k)
      moved |= std::abs((*solution)[k] - previous[k]) > 1e-12 * std::abs((*solution)[k]);
    if (!moved) break;
  }
  // A per-call or buffer time that moves no point by more than 1e-9 of its time is the fit's rounding: 0.
  for (std::size_t k = 2; solution && k < kParameters; ++k) {
    if (!free[k]) continue;
    const auto column =
        static_cast<std::size_t>(std::count(free.begin(), free.begin() + static_cast<std::ptrdiff_t>(k), true));
    double largest = 0;
    for (double v : d.columns[column]) largest = std::max(largest, std::abs(v * (*solution)[k]));
    if (largest < 1e-9) (*solution)[k] = 0;
  }
  if (free[2] || free[3]) {
    const auto negative = [&](std::size_t k) { return free[k] && (*solution)[k] < 0; };
    if (!solution || (*solution)[1] < 0) {
      free[2] = free[3] = false;
      return fit_level(points, collective, inter, fixed, node, free);
    }
    for (std::size_t k : {std::size_t{3}, std::size_t{2}, std::size_t{0}})
      if (negative(k)) {
        free[k] = false;
        return fit_level(points, collective, inter, fixed, node, free);
      }
  }
  if (!solution)
    throw core::InputError(points.front().where,
                           "the " + name + " measurements cannot separate alpha from beta (one size per group)",
                           "measurements of at least two message sizes");
  LevelFit fit;
  double alpha = (*solution)[0], beta = (*solution)[1];
  if (free[0] && (alpha < 0 || beta < 0)) {
    const auto along = [&](const std::vector<double>& x) {
      double xy = 0, xx = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        xy += x[i] * d.y[i];
        xx += x[i] * x[i];
      }
      return xx > 0 ? std::max(xy / xx, 0.0) : 0.0;
    };
    const double beta_only = along(d.columns[1]);
    const double alpha_only = along(d.columns[0]);
    fit.alpha_clamped = d.residual(0, beta_only) <= d.residual(alpha_only, 0);
    alpha = fit.alpha_clamped ? 0 : alpha_only;
    beta = fit.alpha_clamped ? beta_only : 0;
  }
  if (!(beta > 0))
    throw core::InputError(points.front().where,
                           "the " + name + " times do not grow with the message size (fitted beta <= 0)",
                           "measurements up to sizes where the time grows with the size, e.g. 1 MiB to 1 GiB");
  fit.cost = {alpha, beta};
  fit.call_s = (*solution)[2];
  fit.call_fitted = free[2];
  fit.buffer_s_per_byte = (*solution)[3];
  fit.buffer_fitted = free[3];
  fit.alpha_clamped |= !free[0];
  const LinkCosts costs = with_level(inter, fit.cost, fixed, node, fit.call_s, fit.buffer_s_per_byte);
  const std::unique_ptr<Collective> tuned = fitted_collective(collective, costs);
  fit.quality = fit_quality(points, *tuned, costs);
  fit.min_bytes = std::numeric_limits<double>::infinity();
  for (const Measurement& m : points) {
    fit.min_bytes = std::min(fit.min_bytes, m.bytes);
    fit.max_bytes = std::max(fit.max_bytes, m.bytes);
    const auto same = [&](const collectives::Group& g) {
      return g.ranks == m.group.ranks && g.ranks_per_node == m.group.ranks_per_node;
    };
    if (std::none_of(fit.groups.begin(), fit.groups.end(), same)) fit.groups.push_back(m.group);
  }
  std::sort(fit.groups.begin(), fit.groups.end(), [](const auto& x, const auto& y) {
    return std::pair{x.ranks, x.ranks_per_node} < std::pair{y.ranks, y.ranks_per_node};
  });
  for (const collectives::Group& g : fit.groups) fit.crossover_bytes.push_back(crossover_bytes(*tuned, g, costs));
  for (const Measurement& m : points)
    if (m.bytes < crossover_bytes(*tuned, m.group, costs)) ++fit.latency_bound_points;
  return fit;
}

/// `x` printed with a printf pattern.
std::string format(const char* pattern, double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, x);
  return buffer;
}

/// Appends the lines of describe_fit for one level.
void describe_level(bool inter, const LevelFit& f, std::vector<std::string>& lines) {
  std::string counts;
  for (const collectives::Group& g : f.groups) counts += (counts.empty() ? "" : ", ") + std::to_string(g.ranks);
  lines.push_back(std::string(inter ? "inter-node: " : "intra-node: ") + std::to_string(f.quality.points) +
                  " points, " + counts + " GPUs" +
                  (inter ? ", " + std::to_string(f.groups.front().ranks_per_node) + " per node" : " in one node") +
                  ", " + core::format_bytes(f.min_bytes) + " to " + core::format_bytes(f.max_bytes));
  lines.push_back("  alpha " + core::format_duration(f.cost.alpha_s) + " per message, beta 1 / " +
                  format("%.3f GB/s", 1e-9 / f.cost.beta_s_per_byte) + " per byte" +
                  (f.alpha_clamped ? " (alpha held at 0: the unconstrained fit gave a negative start-up)" : ""));
  if (f.call_fitted)
    lines.push_back("  per call " + core::format_duration(f.call_s) +
                    " on top (kernel launch and NCCL's fixed work, on no link: platform key call_latency)");
  if (f.buffer_fitted)
    lines.push_back("  input and output buffers at " +
                    (f.buffer_s_per_byte > 0 ? format("%.1f GB/s", 1e-9 / f.buffer_s_per_byte) : std::string("no cost")) +
                    " (2 bytes a byte per GPU, beside the links: platform key buffer_bandwidth)");
  lines.push_back("  R^2 " + format("%.6f", f.quality.r_squared) + ", relative error mean " +
                  format("%.2f %%", 100 * f.quality.mean_relative_error) + ", max " +
                  format("%.2f %%", 100 * f.quality.max_relative_error));
  lines.push_back("  n*, the size where the start-ups (alpha part) take as long as the bytes (beta part):");
  constexpr std::size_t per_line = 4;
  for (std::size_t i = 0; i < f.groups.size(); i += per_line) {
    std::string line = "   ";
    for (std::size_t j = i; j < std::min(i + per_line, f.groups.size()); ++j)
      line += " " + core::format_bytes(f.crossover_bytes[j]) + " at " + std::to_string(f.groups[j].ranks) + " GPUs" +
              (j + 1 < f.groups.size() ? "," : ".");
    lines.push_back(line);
  }
  lines.push_back(
      "  Smaller messages are latency-bound, larger ones bandwidth-bound: " + std::to_string(f.latency_bound_points) +
      " of the " + std::to_string(f.quality.points) + " points are latency-bound.");
  if (10 * f.latency_bound_points < f.quality.points)
    lines.push_back(
        "  With so few latency-bound points alpha rests on the smallest sizes: measure smaller ones to pin it.");
}

/// Throws core::InputError unless the measurement can enter a fit.
void check(const Measurement& m) {
  if (m.group.ranks < 2 || m.group.ranks_per_node < 1)
    throw core::InputError(m.where,
                           "a measurement over " + std::to_string(m.group.ranks) + " GPUs, " +
                               std::to_string(m.group.ranks_per_node) + " per node",
                           "at least 2 GPUs and at least 1 GPU per node");
  if (!(m.bytes > 0 && std::isfinite(m.bytes) && m.time_s > 0 && std::isfinite(m.time_s)))
    throw core::InputError(m.where,
                           "a measurement of " + format("%g", m.bytes) + " B in " + format("%g", m.time_s) + " s",
                           "a finite size > 0 and a finite time > 0");
}

}  // namespace

LinkCosts AlphaBetaFit::link_costs() const {
  DTSIM_CHECK(intra || inter, "an alpha-beta fit without a level");
  LinkCosts costs = !inter ? LinkCosts::uniform(intra->cost)
                           : !intra ? LinkCosts::uniform(inter->cost) : LinkCosts{intra->cost, inter->cost, {}, {}, {}};
  costs.nvlinks = nvlinks;
  costs.nvswitch_nvlinks = nvswitch_nvlinks;
  costs.call_s = intra ? intra->call_s : 0.0;
  costs.buffer_s_per_byte = intra ? intra->buffer_s_per_byte : 0.0;
  return costs;
}

std::unique_ptr<Collective> fitted_collective(std::string_view collective, const LinkCosts& costs) {
  if (costs.nvlinks.empty() && costs.nvswitch_nvlinks == 0) return collectives::make_collective(collective);
  if (collective != "ring")
    throw core::InputError("--collective " + std::string(collective) + " on a node of NVLinks",
                           "the fit on an NVLink mesh or NVSwitch node is of NCCL's ring over the channels its search "
                           "finds; leave --collective at ring");
  return collectives::make_collective("nccl", costs, {collectives::NcclAlgorithm::ring, {}});
}

AlphaBetaFit fit_alpha_beta(const std::vector<Measurement>& measurements, std::string_view collective,
                            const NvlinkCounts& nvlinks, int nvswitch_nvlinks) {
  LinkCosts node;
  node.nvlinks = nvlinks;
  node.nvswitch_nvlinks = nvswitch_nvlinks;
  fitted_collective(collective, node);  // refuses another collective on a mesh
  if (measurements.empty()) throw core::InputError("no measurements", "at least one measurement file with rows");
  std::vector<Measurement> intra, inter;
  for (const Measurement& m : measurements) {
    check(m);
    if (nvswitch_nvlinks > 0 && m.group.nodes() > 1)
      throw core::InputError(m.where,
                             "a measurement of " + std::to_string(m.group.ranks) + " GPUs over " +
                                 std::to_string(m.group.nodes()) + " nodes against one NVSwitch node",
                             "measurements inside one node of the NVSwitch platform");
    if (!nvlinks.empty() && (m.group.nodes() > 1 || m.group.ranks > static_cast<int>(nvlinks.size())))
      throw core::InputError(m.where,
                             "a measurement of " + std::to_string(m.group.ranks) + " GPUs (" +
                                 std::to_string(m.group.ranks_per_node) + " per node) against a node of " +
                                 std::to_string(nvlinks.size()) + " NVLink-meshed GPUs",
                             "measurements inside one node of the platform whose NVLinks are given");
    (m.group.nodes() == 1 ? intra : inter).push_back(m);
  }
  AlphaBetaFit fit;
  fit.collective = nvlinks.empty() && nvswitch_nvlinks == 0 ? std::string(collective) : "nccl";
  fit.nvlinks = nvlinks;
  fit.nvswitch_nvlinks = nvswitch_nvlinks;
  for (const Measurement& m : measurements) {
    fit.gpus = std::max(fit.gpus, m.group.ranks);
    fit.nodes = std::max(fit.nodes, m.group.nodes());
  }
  // A per-call time and a buffer time are fitted where the form charges them (NCCL's ring on an NVLink mesh or
  // NVSwitch node).
  const auto charges = [&](const Measurement& m, double call_s, double buffer_s_per_byte) {
    return form_s(collective, m, with_level(false, {}, {}, node, call_s, buffer_s_per_byte)) !=
           form_s(collective, m, with_level(false, {}, {}, node));
  };
  if (!intra.empty())
    fit.intra = fit_level(intra, collective, false, {}, node,
                          {true, true, charges(intra.front(), 1.0, 0.0), charges(intra.front(), 0.0, 1.0)});
  if (inter.empty()) return fit;
  fit.gpus_per_node = inter.front().group.ranks_per_node;
  for (const Measurement& m : inter)
    if (m.group.ranks_per_node != fit.gpus_per_node)
      throw core::InputError(m.where,
                             "an inter-node measurement with " + std::to_string(m.group.ranks_per_node) +
                                 " GPUs per node, " + inter.front().where + " has " + std::to_string(fit.gpus_per_node),
                             "one node size across the inter-node measurements");
  fit.inter = fit_level(inter, collective, true, fit.intra ? fit.intra->cost : AlphaBeta{}, node, {true, true, false, false});
  return fit;
}

FitQuality fit_quality(const std::vector<Measurement>& measurements, const Collective& collective,
                       const LinkCosts& costs) {
  DTSIM_CHECK(!measurements.empty(), "fit quality of no measurements");
  FitQuality q;
  q.points = static_cast<int>(measurements.size());
  double mean_time = 0;
  for (const Measurement& m : measurements) mean_time += m.time_s / q.points;
  double ss_res = 0, ss_tot = 0;
  for (const Measurement& m : measurements) {
    const double predicted = collective.closed_form_s(m.group, m.bytes, costs);
    const double relative = std::abs(predicted - m.time_s) / m.time_s;
    q.mean_relative_error += relative / q.points;
    q.max_relative_error = std::max(q.max_relative_error, relative);
    ss_res += std::pow(predicted - m.time_s, 2);
    ss_tot += std::pow(m.time_s - mean_time, 2);
  }
  q.r_squared = ss_tot > 0 ? 1 - ss_res / ss_tot : (ss_res == 0 ? 1 : 0);
  return q;
}

double crossover_bytes(const Collective& collective, const collectives::Group& group, const LinkCosts& costs) {
  LinkCosts start_ups = costs, transfers = costs;
  start_ups.intra.beta_s_per_byte = start_ups.inter.beta_s_per_byte = start_ups.buffer_s_per_byte = 0;
  start_ups.call_s = transfers.call_s = 0;
  transfers.intra.alpha_s = transfers.inter.alpha_s = 0;
  const double alpha_part = collective.closed_form_s(group, 0, start_ups);
  const double beta_per_byte =
      collective.closed_form_s(group, 1, transfers) - collective.closed_form_s(group, 0, transfers);
  return beta_per_byte > 0 ? alpha_part / beta_per_byte : std::numeric_limits<double>::infinity();
}

std::vector<std::string> describe_fit(const AlphaBetaFit& fit) {
  std::vector<std::string> lines{"closed form of the '" + fit.collective +
                                 "' all-reduce fitted by least squares on relative residuals"};
  if (fit.intra) describe_level(false, *fit.intra, lines);
  if (fit.inter) describe_level(true, *fit.inter, lines);
  if (fit.inter && !fit.intra && fit.gpus_per_node > 1)
    lines.push_back("intra-node: not measured; the inter-node cost stands for it (time all GPUs of one host to fit "
                    "it)");
  return lines;
}

}  // namespace dtsim::calibration
