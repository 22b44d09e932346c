#include "sim/calibration/alpha_beta_fit.hpp"

#include <algorithm>
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

/// The points of one level as (T - c) / T = sum_k x_k column_k: every row of T = c + sum_k column'_k x_k divided by
/// its measured time T, so that the residuals are relative. Columns: alpha, beta, and the per-call time where
/// the form has one.
struct Design {
  std::vector<std::vector<double>> columns;
  std::vector<double> y;
  /// Sum of squared residuals of alpha and beta (the per-call time at 0).
  double residual(double alpha, double beta) const {
    double s = 0;
    for (std::size_t i = 0; i < y.size(); ++i) s += std::pow(y[i] - columns[0][i] * alpha - columns[1][i] * beta, 2);
    return s;
  }
};

/// Costs with this level's alpha and beta set, the other level fixed, and `call_s` per call.
LinkCosts with_level(bool inter, const AlphaBeta& level, const AlphaBeta& fixed, const NvlinkCounts& nvlinks,
                     double call_s = 0) {
  LinkCosts costs = inter ? LinkCosts{fixed, level, nvlinks, {}, {}} : LinkCosts{level, fixed, nvlinks, {}, {}};
  costs.call_s = call_s;
  return costs;
}

/// `collective`'s closed form of `m` on `costs`, the collective tuned for those costs (fitted_collective).
double form_s(std::string_view collective, const Measurement& m, const LinkCosts& costs) {
  return fitted_collective(collective, costs)->closed_form_s(m.group, m.bytes, costs);
}

/// The design of the points linearised at x0 = (alpha, beta[, per-call time]): T = c + sum_k column_k x_k with the
/// columns the closed form's slopes there (steps of 1e-3 relative, or 1 at zero: exact for a linear form).
Design linearised(const std::vector<Measurement>& points, std::string_view collective, bool inter,
                  const AlphaBeta& fixed, const NvlinkCounts& nvlinks, const std::vector<double>& x0) {
  Design d;
  d.columns.resize(x0.size());
  for (const Measurement& m : points) {
    const auto at = [&](const std::vector<double>& x) {
      return form_s(collective, m, with_level(inter, {x[0], x[1]}, fixed, nvlinks, x.size() > 2 ? x[2] : 0.0));
    };
    const double t0 = at(x0);
    double c = t0;
    for (std::size_t k = 0; k < x0.size(); ++k) {
      std::vector<double> x = x0;
      const double step = x0[k] > 0 ? 1e-3 * x0[k] : 1;
      x[k] += step;
      const double slope = (at(x) - t0) / step;
      c -= slope * x0[k];
      d.columns[k].push_back(slope / m.time_s);
    }
    d.y.push_back((m.time_s - c) / m.time_s);
  }
  return d;
}

/// Fits one level's alpha and beta with the other level's cost `fixed`, and with `fit_call` the per-call time
/// too; every one >= 0 (with the per-call time: a negative alpha is held at 0, a negative per-call time refits
/// without it). A form that is not linear in them (NCCL's LL128 channels run at the smaller of their link's
/// speed and a fixed cap, and NCCL's latency term adds what exceeds the links' alphas) is fitted by
/// Gauss-Newton: linearised at the last estimate until it stops moving (piecewise linear: a few rounds); a
/// linear form is done in the first round.
LevelFit fit_level(const std::vector<Measurement>& points, std::string_view collective, bool inter,
                   const AlphaBeta& fixed, const NvlinkCounts& nvlinks, bool fit_call, bool hold_alpha = false) {
  const std::string name = inter ? "inter-node" : "intra-node";
  constexpr int kRounds = 20;
  const std::size_t first = hold_alpha ? 1 : 0;  // parameters before `first` are held at 0
  Design d;
  std::optional<std::vector<double>> solution = std::vector<double>(fit_call ? 3 : 2, 0.0);
  for (int round = 0; round < kRounds; ++round) {
    std::vector<double> x0 = *solution;
    for (double& v : x0) v = std::max(v, 0.0);
    d = linearised(points, collective, inter, fixed, nvlinks, x0);
    const std::vector<double> previous = *solution;
    const auto free = least_squares({d.columns.begin() + static_cast<std::ptrdiff_t>(first), d.columns.end()}, d.y);
    if (!free) {
      solution.reset();
      break;
    }
    solution = std::vector<double>(first, 0.0);
    solution->insert(solution->end(), free->begin(), free->end());
    bool moved = round == 0;
    for (std::size_t k = 0; k < previous.size(); ++k)
      moved |= std::abs((*solution)[k] - previous[k]) > 1e-12 * std::abs((*solution)[k]);
    if (!moved) break;
  }
  if (fit_call && solution && !hold_alpha && (*solution)[0] < 0 && (*solution)[2] >= 0)
    return fit_level(points, collective, inter, fixed, nvlinks, true, true);
  if (fit_call && (!solution || std::any_of(solution->begin(), solution->end(), [](double v) { return v < 0; })))
    return fit_level(points, collective, inter, fixed, nvlinks, false);
  if (!solution)
    throw core::InputError(points.front().where,
                           "the " + name + " measurements cannot separate alpha from beta (one size per group)",
                           "measurements of at least two message sizes");
  LevelFit fit;
  double alpha = (*solution)[0], beta = (*solution)[1];
  if (alpha < 0 || beta < 0) {
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
  fit.call_s = fit_call ? (*solution)[2] : 0.0;
  fit.call_fitted = fit_call;
  fit.alpha_clamped |= hold_alpha;
  const LinkCosts costs = with_level(inter, fit.cost, fixed, nvlinks, fit.call_s);
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
  costs.call_s = intra ? intra->call_s : 0.0;
  return costs;
}

std::unique_ptr<Collective> fitted_collective(std::string_view collective, const LinkCosts& costs) {
  if (costs.nvlinks.empty()) return collectives::make_collective(collective);
  if (collective != "ring")
    throw core::InputError("--collective " + std::string(collective) + " on a node of NVLinks",
                           "the fit on an NVLink mesh is of NCCL's ring over the rings its search finds; leave "
                           "--collective at ring");
  return collectives::make_collective("nccl", costs, {collectives::NcclAlgorithm::ring, {}});
}

AlphaBetaFit fit_alpha_beta(const std::vector<Measurement>& measurements, std::string_view collective,
                            const NvlinkCounts& nvlinks) {
  fitted_collective(collective, with_level(false, {}, {}, nvlinks));  // refuses another collective on a mesh
  if (measurements.empty()) throw core::InputError("no measurements", "at least one measurement file with rows");
  std::vector<Measurement> intra, inter;
  for (const Measurement& m : measurements) {
    check(m);
    if (!nvlinks.empty() && (m.group.nodes() > 1 || m.group.ranks > static_cast<int>(nvlinks.size())))
      throw core::InputError(m.where,
                             "a measurement of " + std::to_string(m.group.ranks) + " GPUs (" +
                                 std::to_string(m.group.ranks_per_node) + " per node) against a node of " +
                                 std::to_string(nvlinks.size()) + " NVLink-meshed GPUs",
                             "measurements inside one node of the platform whose NVLinks are given");
    (m.group.nodes() == 1 ? intra : inter).push_back(m);
  }
  AlphaBetaFit fit;
  fit.collective = nvlinks.empty() ? std::string(collective) : "nccl";
  fit.nvlinks = nvlinks;
  for (const Measurement& m : measurements) {
    fit.gpus = std::max(fit.gpus, m.group.ranks);
    fit.nodes = std::max(fit.nodes, m.group.nodes());
  }
  // A per-call time is fitted where the form charges one (NCCL's ring on an NVLink mesh).
  const auto charges_calls = [&](const Measurement& m) {
    return form_s(collective, m, with_level(false, {}, {}, nvlinks, 1.0)) != form_s(collective, m, with_level(false, {}, {}, nvlinks));
  };
  if (!intra.empty()) fit.intra = fit_level(intra, collective, false, {}, nvlinks, charges_calls(intra.front()));
  if (inter.empty()) return fit;
  fit.gpus_per_node = inter.front().group.ranks_per_node;
  for (const Measurement& m : inter)
    if (m.group.ranks_per_node != fit.gpus_per_node)
      throw core::InputError(m.where,
                             "an inter-node measurement with " + std::to_string(m.group.ranks_per_node) +
                                 " GPUs per node, " + inter.front().where + " has " + std::to_string(fit.gpus_per_node),
                             "one node size across the inter-node measurements");
  fit.inter = fit_level(inter, collective, true, fit.intra ? fit.intra->cost : AlphaBeta{}, nvlinks, false);
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
  const LinkCosts start_ups{{costs.intra.alpha_s, 0}, {costs.inter.alpha_s, 0}, costs.nvlinks, costs.gpu_nic, costs.ll128};
  const LinkCosts transfers{{0, costs.intra.beta_s_per_byte}, {0, costs.inter.beta_s_per_byte}, costs.nvlinks, costs.gpu_nic, costs.ll128};
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
