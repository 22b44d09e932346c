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

/// Least squares for y = x0 u + x1 v, by modified Gram-Schmidt on the augmented matrix [u v y] (Bjorck),
/// columns scaled to unit length first. Returns nullopt when u and v are (nearly) parallel.
std::optional<std::pair<double, double>> least_squares(std::vector<double> u, std::vector<double> v,
                                                       std::vector<double> y) {
  const auto dot = [](const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
  };
  const auto subtract = [](std::vector<double>& a, double k, const std::vector<double>& q) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] -= k * q[i];
  };
  const double su = std::sqrt(dot(u, u));
  const double sv = std::sqrt(dot(v, v));
  if (!(su > 0 && sv > 0)) return std::nullopt;
  for (double& x : u) x /= su;
  for (double& x : v) x /= sv;
  const double r12 = dot(u, v);
  subtract(v, r12, u);
  const double r22 = std::sqrt(dot(v, v));
  if (!(r22 > 1e-12)) return std::nullopt;
  for (double& x : v) x /= r22;
  const double z1 = dot(u, y);
  subtract(y, z1, u);
  const double x1 = dot(v, y) / r22;
  return std::pair{(z1 - r12 * x1) / su, x1 / sv};
}

/// The points of one level as (T - c) / T = a alpha + b beta: every row of T = c + a' alpha + b' beta divided
/// by its measured time T, so that the residuals are relative.
struct Design {
  std::vector<double> a, b, y;
  /// Weighted sum of squared residuals of (alpha, beta).
  double residual(double alpha, double beta) const {
    double s = 0;
    for (std::size_t i = 0; i < y.size(); ++i) s += std::pow(y[i] - a[i] * alpha - b[i] * beta, 2);
    return s;
  }
};

/// Costs with this level's alpha and beta set and the other level fixed.
LinkCosts with_level(bool inter, const AlphaBeta& level, const AlphaBeta& fixed, const NvlinkCounts& nvlinks) {
  return inter ? LinkCosts{fixed, level, nvlinks, {}, {}} : LinkCosts{level, fixed, nvlinks, {}, {}};
}

/// `collective`'s closed form of `m` on `costs`, the collective tuned for those costs (fitted_collective).
double form_s(std::string_view collective, const Measurement& m, const LinkCosts& costs) {
  return fitted_collective(collective, costs)->closed_form_s(m.group, m.bytes, costs);
}

/// The design of the points linearised at (alpha0, beta0): T = c + a alpha + b beta with a and b the closed
/// form's slopes there (steps of 1e-3 relative, or 1 at zero: exact for a form linear in alpha and beta).
Design linearised(const std::vector<Measurement>& points, std::string_view collective, bool inter,
                  const AlphaBeta& fixed, const NvlinkCounts& nvlinks, double alpha0, double beta0) {
  const double da = alpha0 > 0 ? 1e-3 * alpha0 : 1, db = beta0 > 0 ? 1e-3 * beta0 : 1;
  Design d;
  for (const Measurement& m : points) {
    const auto at = [&](double alpha, double beta) {
      return form_s(collective, m, with_level(inter, {alpha, beta}, fixed, nvlinks));
    };
    const double t0 = at(alpha0, beta0);
    const double a = (at(alpha0 + da, beta0) - t0) / da;
    const double b = (at(alpha0, beta0 + db) - t0) / db;
    const double c = t0 - a * alpha0 - b * beta0;
    d.a.push_back(a / m.time_s);
    d.b.push_back(b / m.time_s);
    d.y.push_back((m.time_s - c) / m.time_s);
  }
  return d;
}

/// Fits one level's alpha and beta with the other level's cost `fixed`; alpha and beta >= 0. A form that is not
/// linear in alpha and beta (NCCL's LL128 channels run at the smaller of their link's speed and a fixed cap, and
/// NCCL's latency term adds what exceeds the links' alphas) is fitted by Gauss-Newton: linearised at the last
/// estimate until it stops moving (piecewise linear: a few rounds); a linear form is done in the first round.
LevelFit fit_level(const std::vector<Measurement>& points, std::string_view collective, bool inter,
                   const AlphaBeta& fixed, const NvlinkCounts& nvlinks) {
  const std::string name = inter ? "inter-node" : "intra-node";
  constexpr int kRounds = 20;
  Design d;
  std::optional<std::pair<double, double>> solution{{0.0, 0.0}};
  for (int round = 0; round < kRounds; ++round) {
    const auto [alpha0, beta0] = *solution;
    d = linearised(points, collective, inter, fixed, nvlinks, std::max(alpha0, 0.0), std::max(beta0, 0.0));
    solution = least_squares(d.a, d.b, d.y);
    if (!solution) break;
    const auto [alpha1, beta1] = *solution;
    if (round > 0 && std::abs(alpha1 - alpha0) <= 1e-12 * std::abs(alpha1) &&
        std::abs(beta1 - beta0) <= 1e-12 * std::abs(beta1))
      break;
  }
  if (!solution)
    throw core::InputError(points.front().where,
                           "the " + name + " measurements cannot separate alpha from beta (one size per group)",
                           "measurements of at least two message sizes");
  LevelFit fit;
  auto [alpha, beta] = *solution;
  if (alpha < 0 || beta < 0) {
    const auto along = [&](const std::vector<double>& x) {
      double xy = 0, xx = 0;
      for (std::size_t i = 0; i < x.size(); ++i) {
        xy += x[i] * d.y[i];
        xx += x[i] * x[i];
      }
      return xx > 0 ? std::max(xy / xx, 0.0) : 0.0;
    };
    const double beta_only = along(d.b);
    const double alpha_only = along(d.a);
    fit.alpha_clamped = d.residual(0, beta_only) <= d.residual(alpha_only, 0);
    alpha = fit.alpha_clamped ? 0 : alpha_only;
    beta = fit.alpha_clamped ? beta_only : 0;
  }
  if (!(beta > 0))
    throw core::InputError(points.front().where,
                           "the " + name + " times do not grow with the message size (fitted beta <= 0)",
                           "measurements up to sizes where the time grows with the size, e.g. 1 MiB to 1 GiB");
  fit.cost = {alpha, beta};
  const LinkCosts costs = with_level(inter, fit.cost, fixed, nvlinks);
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
  if (!intra.empty()) fit.intra = fit_level(intra, collective, false, {}, nvlinks);
  if (inter.empty()) return fit;
  fit.gpus_per_node = inter.front().group.ranks_per_node;
  for (const Measurement& m : inter)
    if (m.group.ranks_per_node != fit.gpus_per_node)
      throw core::InputError(m.where,
                             "an inter-node measurement with " + std::to_string(m.group.ranks_per_node) +
                                 " GPUs per node, " + inter.front().where + " has " + std::to_string(fit.gpus_per_node),
                             "one node size across the inter-node measurements");
  fit.inter = fit_level(inter, collective, true, fit.intra ? fit.intra->cost : AlphaBeta{}, nvlinks);
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
