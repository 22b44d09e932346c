// The alpha-beta fit: exact recovery on synthetic ring times, per-level fits, quality, crossover, errors.
#include "sim/calibration/alpha_beta_fit.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/core/error.hpp"
#include "sim/platform/platform_spec.hpp"
#include "tests/sim/calibration/temp_files.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::calibration {
namespace {

using collectives::AlphaBeta;
using collectives::Group;
using testing::error_of;

/// Ring all-reduce times from the formula written out (tests/sim/star.hpp), 1 KiB to 1 GiB by factors of 4.
std::vector<Measurement> ring_times(const std::vector<Group>& groups, AlphaBeta cost, double scale = 1) {
  std::vector<Measurement> out;
  for (const Group& g : groups)
    for (double n = 1024; n <= 1073741824; n *= 4)
      out.push_back({g, n, scale * dtsim::testing::ring_formula_s(g.ranks, n, cost),
                     "synthetic:" + std::to_string(out.size() + 1) + ":1"});
  return out;
}

void expect_relative(double actual, double expected, double tolerance) {
  EXPECT_NEAR(actual, expected, tolerance * std::abs(expected));
}

const AlphaBeta kNvlink{7.3e-6, 1 / 123.4e9};
const AlphaBeta kInfiniband{21.7e-6, 1 / 11.9e9};

TEST(AlphaBetaFit, RecoversAlphaAndBetaFromExactRingTimes) {
  const AlphaBetaFit fit = fit_alpha_beta(ring_times({{2, 8}, {4, 8}, {8, 8}}, kNvlink));
  ASSERT_TRUE(fit.intra);
  EXPECT_FALSE(fit.inter);
  expect_relative(fit.intra->cost.alpha_s, kNvlink.alpha_s, 1e-9);
  expect_relative(fit.intra->cost.beta_s_per_byte, kNvlink.beta_s_per_byte, 1e-9);
  EXPECT_NEAR(fit.intra->quality.r_squared, 1.0, 1e-12);
  EXPECT_LT(fit.intra->quality.max_relative_error, 1e-12);
  EXPECT_EQ(fit.intra->quality.points, 3 * 11);
  EXPECT_FALSE(fit.intra->alpha_clamped);
  EXPECT_EQ(fit.gpus, 8);
  EXPECT_EQ(fit.nodes, 1);
  EXPECT_EQ(fit.collective, "ring");
}

/// Whether NCCL's tuner runs LL128 for an all-reduce of n bytes over C rings of p GPUs (NVLink channels at
/// NCCL's 20 GB/s): 10 + 1.9 us a hop and 0.92 of the bandwidth beat Simple's 8.4 + 3.4 us a hop.
bool ll128(int p, int rings, double n) {
  const double hops = 2.0 * (p - 1), algbw = rings * 20e9 * p / hops;
  return (10 + hops * 1.9) * 1e-6 + n / (0.92 * algbw) < (8.4 + hops * 3.4) * 1e-6 + n / algbw;
}

/// NCCL's ring all-reduce of n bytes over C rings of p GPUs, each on NVLinks of its own, written out: 2(p-1) (alpha
/// + chunk), the chunk n / (p C) bytes (whole wire bytes) at the link's beta with Simple and with LL128 at no more
/// than 16.7 GB/s of data a channel, plus what NCCL's latency term (10 + 1.9 us a hop, Simple 8.4 + 3.4) has
/// beyond the 2(p-1) alphas.
double nvlink_rings_s(int p, int rings, double n, AlphaBeta link) {
  const double hops = 2.0 * (p - 1), data = n / (p * rings);
  const bool l = ll128(p, rings, n);
  const double efficiency = l ? std::min(0.92, 16.7e9 * link.beta_s_per_byte) : 1.0;
  const double latency_s = (l ? 10 + hops * 1.9 : 8.4 + hops * 3.4) * 1e-6;
  return std::max(0.0, latency_s - hops * link.alpha_s) +
         hops * (link.alpha_s + std::ceil(data / efficiency) * link.beta_s_per_byte);
}

TEST(AlphaBetaFit, OnAnNvlinkMeshRecoversOneNvlinkThroughNcclsRings) {
  // DGX-1 wiring: 2, 4, 8 GPUs run 1, 4, 6 rings, each over its own NVLinks; 1 and 4 MiB on 4 and 8 GPUs run LL128,
  // whose capped channels make the form nonlinear in beta. The fit must return the one link's alpha and beta, for
  // a link above the LL128 cap (0.92 x 123.4 GB/s) and one below (0.92 x 15 GB/s), with alphas above and below
  // NCCL's latency per hop (on 2 GPUs 4.1 us leaves 15.2 - 8.2 us of NCCL's Simple latency to add).
  const auto mesh = platform::hybrid_cube_mesh();
  // Each with a per-call time of 12.5 us on top, which the fit recovers too.
  for (const AlphaBeta link : {kNvlink, AlphaBeta{4.1e-6, 1 / 15e9}}) {
    std::vector<Measurement> times;
    int ll128_points = 0;
    for (const auto& [p, rings] : {std::pair{2, 1}, {4, 4}, {8, 6}})
      for (double n = 1 << 20; n <= 1 << 30; n *= 4) {
        ll128_points += ll128(p, rings, n);
        times.push_back(
            {{p, 8}, n, 12.5e-6 + nvlink_rings_s(p, rings, n, link), "synthetic:" + std::to_string(times.size() + 1) + ":1"});
      }
    EXPECT_EQ(ll128_points, 4);
    const AlphaBetaFit fit = fit_alpha_beta(times, "ring", mesh);
    ASSERT_TRUE(fit.intra);
    expect_relative(fit.intra->cost.alpha_s, link.alpha_s, 1e-9);
    expect_relative(fit.intra->cost.beta_s_per_byte, link.beta_s_per_byte, 1e-9);
    EXPECT_TRUE(fit.intra->call_fitted);
    expect_relative(fit.intra->call_s, 12.5e-6, 1e-9);
    EXPECT_DOUBLE_EQ(fit.link_costs().call_s, fit.intra->call_s);
  }
  std::vector<Measurement> times;
  for (const auto& [p, rings] : {std::pair{2, 1}, {4, 4}, {8, 6}})
    for (double n = 1 << 20; n <= 1 << 30; n *= 4)
      times.push_back({{p, 8}, n, nvlink_rings_s(p, rings, n, kNvlink), "synthetic:" + std::to_string(times.size() + 1) + ":1"});
  const AlphaBetaFit fit = fit_alpha_beta(times, "ring", mesh);
  ASSERT_TRUE(fit.intra);
  expect_relative(fit.intra->cost.alpha_s, kNvlink.alpha_s, 1e-9);
  expect_relative(fit.intra->cost.beta_s_per_byte, kNvlink.beta_s_per_byte, 1e-9);
  EXPECT_EQ(fit.collective, "nccl");
  EXPECT_EQ(fit.link_costs().nvlinks, mesh);
  // The same times read as one uniform ring cannot be fitted well: the ring count changes with the GPUs.
  EXPECT_GT(fit_alpha_beta(times).intra->quality.mean_relative_error, 0.2);
  EXPECT_NE(error_of([&] { fit_alpha_beta(times, "recursive_doubling", mesh); }).find("leave --collective at ring"),
            std::string::npos);
  times.push_back({{16, 8}, 1 << 20, 1e-3, "synthetic:99:1"});
  EXPECT_NE(error_of([&] { fit_alpha_beta(times, "ring", mesh); }).find("inside one node"), std::string::npos);
}

TEST(AlphaBetaFit, OnAnNvswitchNodeRecoversThePortThePerCallTimeAndTheBuffers) {
  // 12 NVLinks a GPU: one ring of all the data, ring/Simple at these sizes (NCCL's graph: 12 channels x 20 GB/s),
  // T = call + 2 n buffer + max(0, (8.4 + 3.4 x 2(p-1)) us - 2(p-1) alpha) + 2(p-1) (alpha + ceil(n / p) beta).
  // alpha 5 us: above NCCL's Simple latency per hop on 4 and 8 GPUs (8.4 / 2(p-1) + 3.4 us), below it on 2.
  const AlphaBeta port{5e-6, 1 / 290e9};
  const double call_s = 25e-6, buffer_s = 1 / 1100e9;
  std::vector<Measurement> times;
  for (int p : {2, 4, 8})
    for (double n = 1 << 26; n <= 1 << 30; n *= 2) {
      const double hops = 2.0 * (p - 1);
      const double t = call_s + 2 * n * buffer_s + std::max(0.0, (8.4 + hops * 3.4) * 1e-6 - hops * port.alpha_s) +
                       hops * (port.alpha_s + std::ceil(n / p) * port.beta_s_per_byte);
      times.push_back({{p, 8}, n, t, "synthetic:" + std::to_string(times.size() + 1) + ":1"});
    }
  const AlphaBetaFit fit = fit_alpha_beta(times, "ring", {}, 12);
  ASSERT_TRUE(fit.intra);
  EXPECT_EQ(fit.collective, "nccl");
  expect_relative(fit.intra->cost.alpha_s, port.alpha_s, 1e-9);
  expect_relative(fit.intra->cost.beta_s_per_byte, port.beta_s_per_byte, 1e-9);
  EXPECT_TRUE(fit.intra->call_fitted && fit.intra->buffer_fitted);
  expect_relative(fit.intra->call_s, call_s, 1e-9);
  expect_relative(fit.intra->buffer_s_per_byte, buffer_s, 1e-9);
  EXPECT_LT(fit.intra->quality.max_relative_error, 1e-9);
  const collectives::LinkCosts costs = fit.link_costs();
  EXPECT_EQ(costs.nvswitch_nvlinks, 12);
  EXPECT_DOUBLE_EQ(costs.buffer_s_per_byte, fit.intra->buffer_s_per_byte);
  times.push_back({{16, 8}, 1 << 20, 1e-3, "synthetic:99:1"});
  EXPECT_NE(error_of([&] { fit_alpha_beta(times, "ring", {}, 12); }).find("one NVSwitch node"), std::string::npos);
}

TEST(AlphaBetaFit, InterNodeLevelIsFittedWithTheIntraNodeCostFixed) {
  std::vector<Measurement> m = ring_times({{2, 4}, {4, 4}}, kNvlink);
  const std::vector<Measurement> across = ring_times({{8, 4}, {16, 4}, {32, 4}}, kInfiniband);
  m.insert(m.end(), across.begin(), across.end());
  const AlphaBetaFit fit = fit_alpha_beta(m);
  ASSERT_TRUE(fit.intra && fit.inter);
  expect_relative(fit.intra->cost.alpha_s, kNvlink.alpha_s, 1e-9);
  expect_relative(fit.intra->cost.beta_s_per_byte, kNvlink.beta_s_per_byte, 1e-9);
  expect_relative(fit.inter->cost.alpha_s, kInfiniband.alpha_s, 1e-9);
  expect_relative(fit.inter->cost.beta_s_per_byte, kInfiniband.beta_s_per_byte, 1e-9);
  EXPECT_NEAR(fit.inter->quality.r_squared, 1.0, 1e-12);
  EXPECT_EQ(fit.gpus_per_node, 4);
  EXPECT_EQ(fit.nodes, 8);
  EXPECT_EQ(fit.gpus, 32);
  EXPECT_EQ(fit.inter->groups.size(), 3u);
  EXPECT_EQ(fit.link_costs().inter.alpha_s, fit.inter->cost.alpha_s);
  EXPECT_EQ(fit.link_costs().intra.alpha_s, fit.intra->cost.alpha_s);
}

TEST(AlphaBetaFit, OneGpuPerNodeNeedsNoIntraNodeLevel) {
  const AlphaBetaFit fit = fit_alpha_beta(ring_times({{4, 1}, {16, 1}}, kInfiniband));
  ASSERT_TRUE(fit.inter);
  EXPECT_FALSE(fit.intra);
  expect_relative(fit.inter->cost.alpha_s, kInfiniband.alpha_s, 1e-9);
  expect_relative(fit.link_costs().intra.beta_s_per_byte, kInfiniband.beta_s_per_byte, 1e-9);
}

TEST(AlphaBetaFit, CrossoverIsPAlphaOverBetaForTheRing) {
  const AlphaBetaFit fit = fit_alpha_beta(ring_times({{2, 8}, {8, 8}}, kNvlink));
  const double n2 = 2 * kNvlink.alpha_s / kNvlink.beta_s_per_byte;  // 1.8 MB
  const double n8 = 8 * kNvlink.alpha_s / kNvlink.beta_s_per_byte;  // 7.2 MB
  ASSERT_EQ(fit.intra->crossover_bytes.size(), 2u);
  expect_relative(fit.intra->crossover_bytes[0], n2, 1e-9);
  expect_relative(fit.intra->crossover_bytes[1], n8, 1e-9);
  // 1 KiB .. 1 MiB (6 sizes) are below 1.8 MB at 2 GPUs; 1 KiB .. 4 MiB (7 sizes) below 7.2 MB at 8 GPUs.
  EXPECT_EQ(fit.intra->latency_bound_points, 6 + 7);
  const auto ring = collectives::make_collective("ring");
  const Group g{8, 8};
  const collectives::LinkCosts costs = collectives::LinkCosts::uniform(kNvlink);
  const double n = crossover_bytes(*ring, g, costs);
  EXPECT_NEAR(ring->closed_form_s(g, n, costs), 2 * ring->closed_form_s(g, 0, costs), 1e-15);
}

TEST(AlphaBetaFit, QualityOfAPredictionTenPercentHigh) {
  const std::vector<Measurement> m = ring_times({{4, 4}}, kNvlink);
  const auto ring = collectives::make_collective("ring");
  const FitQuality q =
      fit_quality(m, *ring, collectives::LinkCosts::uniform({1.1 * kNvlink.alpha_s, 1.1 * kNvlink.beta_s_per_byte}));
  EXPECT_NEAR(q.mean_relative_error, 0.1, 1e-12);
  EXPECT_NEAR(q.max_relative_error, 0.1, 1e-12);
  EXPECT_LT(q.r_squared, 1.0);
  EXPECT_EQ(q.points, 11);
}

TEST(AlphaBetaFit, NegativeStartUpIsHeldAtZero) {
  // Times 2 us below pure bandwidth: the unconstrained fit has alpha < 0.
  std::vector<Measurement> m = ring_times({{4, 4}}, {0, kNvlink.beta_s_per_byte});
  std::erase_if(m, [](const Measurement& x) { return x.bytes < 1e6; });
  for (Measurement& x : m) x.time_s -= 2e-6;
  const AlphaBetaFit fit = fit_alpha_beta(m);
  EXPECT_TRUE(fit.intra->alpha_clamped);
  EXPECT_EQ(fit.intra->cost.alpha_s, 0.0);
  expect_relative(fit.intra->cost.beta_s_per_byte, kNvlink.beta_s_per_byte, 0.05);
}

TEST(AlphaBetaFit, ErrorsSayWhatIsMissing) {
  const std::vector<Measurement> one_size{{{4, 4}, 1024, 1e-5, "m.csv:2:1"}, {{4, 4}, 1024, 2e-5, "m.csv:3:1"}};
  EXPECT_EQ(error_of([&] { fit_alpha_beta(one_size); }),
            "m.csv:2:1: the intra-node measurements cannot separate alpha from beta (one size per group); "
            "measurements of at least two message sizes");
  const std::vector<Measurement> shrinking{{{4, 4}, 1024, 2e-5, "m.csv:2:1"}, {{4, 4}, 1048576, 1e-5, "m.csv:3:1"}};
  EXPECT_EQ(error_of([&] { fit_alpha_beta(shrinking); }),
            "m.csv:2:1: the intra-node times do not grow with the message size (fitted beta <= 0); measurements up "
            "to sizes where the time grows with the size, e.g. 1 MiB to 1 GiB");
  std::vector<Measurement> mixed = ring_times({{8, 8}, {16, 8}}, kNvlink);
  mixed.push_back({{16, 4}, 1024, 1e-4, "m.csv:9:1"});
  EXPECT_EQ(error_of([&] { fit_alpha_beta(mixed); }),
            "m.csv:9:1: an inter-node measurement with 4 GPUs per node, synthetic:12:1 has 8; one node size across "
            "the inter-node measurements");
  EXPECT_EQ(error_of([] {
              fit_alpha_beta({{{1, 1}, 1024, 1e-5, "m.csv:2:1"}});
            }),
            "m.csv:2:1: a measurement over 1 GPUs, 1 per node; at least 2 GPUs and at least 1 GPU per node");
  EXPECT_EQ(error_of([] {
              fit_alpha_beta({{{2, 2}, 1024, 0, "m.csv:2:1"}});
            }),
            "m.csv:2:1: a measurement of 1024 B in 0 s; a finite size > 0 and a finite time > 0");
  EXPECT_EQ(error_of([] { fit_alpha_beta({}); }), "no measurements; at least one measurement file with rows");
  EXPECT_EQ(error_of([] {
              fit_alpha_beta(ring_times({{2, 2}}, kNvlink), "ringg");
            }).substr(0, 25),
            "unknown collective 'ringg");
}

TEST(AlphaBetaFit, AMultiNodeRunAloneFitsTheRouteAcrossNodes) {
  const AlphaBetaFit fit = fit_alpha_beta(ring_times({{16, 8}}, kInfiniband));
  EXPECT_FALSE(fit.intra);
  ASSERT_TRUE(fit.inter);
  expect_relative(fit.inter->cost.alpha_s, kInfiniband.alpha_s, 1e-9);
  expect_relative(fit.inter->cost.beta_s_per_byte, kInfiniband.beta_s_per_byte, 1e-9);
  EXPECT_EQ(fit.gpus_per_node, 8);
  EXPECT_EQ(fit.link_costs().intra.alpha_s, fit.inter->cost.alpha_s);
  EXPECT_EQ(describe_fit(fit).back(),
            "intra-node: not measured; the inter-node cost stands for it (time all GPUs of one host to fit it)");
}

TEST(AlphaBetaFit, DescriptionSaysCostQualityAndWhichSizesAreLatencyBound) {
  const std::vector<std::string> lines = describe_fit(fit_alpha_beta(ring_times({{2, 8}, {8, 8}}, kNvlink)));
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[1], "intra-node: 22 points, 2, 8 GPUs in one node, 1.00 KiB to 1.00 GiB");
  EXPECT_EQ(lines[2], "  alpha 7.300 us per message, beta 1 / 123.400 GB/s per byte");
  EXPECT_EQ(lines[3], "  R^2 1.000000, relative error mean 0.00 %, max 0.00 %");
  EXPECT_EQ(lines[5], "    1.72 MiB at 2 GPUs, 6.87 MiB at 8 GPUs.");
  EXPECT_EQ(lines[6],
            "  Smaller messages are latency-bound, larger ones bandwidth-bound: 13 of the 22 points are "
            "latency-bound.");
}

}  // namespace
}  // namespace dtsim::calibration
