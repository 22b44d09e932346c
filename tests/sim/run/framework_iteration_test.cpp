// The frameworks' per-operation costs in whole iterations, against closed forms at every level: n gradients of s
// bytes queued on one stream with Horovod's cycle c, one negotiation round, each paying its all-reduce's latency;
// the fusion buffer's copies; DDP's bucket copies. The levels agree exactly on the uncongested star.
#include <gtest/gtest.h>

#include <algorithm>

#include "models/kernel_launch.hpp"
#include "sim/run/run_simulation.hpp"
#include "tests/sim/run/run_in_child.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using scenario::Fidelity;

class FrameworkAt : public ::testing::TestWithParam<Fidelity> {};

constexpr int kLayers = 6;
constexpr std::int64_t kParams = 250000;  // 1 MB of fp32 gradient per layer
constexpr double kBackward_s = 0.05e-3;   // per layer: all of backward (0.3 ms) ends before the first cycle

/// Two workers on the star, kLayers layers of kParams parameters.
scenario::Scenario layers(const std::string& scheduler, const std::string& framework, Fidelity level) {
  auto s = testing::synthetic(2, std::vector<std::int64_t>(kLayers, kParams), std::vector<double>(kLayers, 1e-3),
                              std::vector<double>(kLayers, kBackward_s), scheduler, level);
  s.framework = framework;
  s.framework_options.horovod_cycle_s = 1e-3;
  return s;
}

double forward_plus_update_s(const scenario::Scenario& s) {
  double t = 0;
  for (const auto& l : make_iteration_plan(s).layers) t += l.forward_s + l.update_s;
  return t;
}

/// Horovod's negotiation on 2 ranks: two recursive-doubling all-reduces of the 16-byte bit vector (one word of
/// tensor bits, one of status), one exchange each.
double negotiation_s() {
  const auto ab = testing::star_alpha_beta();
  return 2 * (ab.alpha_s + 16 * ab.beta_s_per_byte);
}

double ring_s(std::int64_t bytes) { return testing::ring_formula_s(2, static_cast<double>(bytes), testing::star_alpha_beta()); }

/// A copy of `bytes` in `kernels` kernels on the v100 profile under eager launches.
double copy_s(const scenario::Scenario& s, std::int64_t bytes, int kernels) {
  const models::LaunchCosts launch = models::launch_costs(models::LaunchMode::eager);
  return std::max(kernels * launch.dispatch_s,
                  kernels * launch.gap_s + 2.0 * static_cast<double>(bytes) / (s.gpu.memory_Bps * s.gpu.memory_efficiency));
}

void expect_iterations(const scenario::Scenario& s, double expected) {
  const RunResult r = testing::run_in_child(s);
  ASSERT_EQ(r.iterations.size(), 3u);
  for (const auto& it : r.iterations)
    EXPECT_NEAR(it.time_s, expected, 1e-9 * expected) << scenario::fidelity_name(s.fidelity) << " iteration " << it.index;
}

// Per-tensor all-reduce through Horovod with fusion off: the n tensors ready before cycle c are negotiated in one
// round, and their n responses queue on one stream, each paying its own all-reduce: F + U + c + N + n T(s).
TEST_P(FrameworkAt, HorovodPerTensorNegotiatesOnceAndQueuesTheLatencyOfEveryTensor) {
  auto s = layers("wfbp", "horovod", GetParam());
  s.framework_options.horovod_fusion_threshold_bytes = 0;
  expect_iterations(s, forward_plus_update_s(s) + 1e-3 + negotiation_s() + kLayers * ring_s(kParams * 4));
}

// Fused: one response, one negotiation, the fusion buffer's copy in and out around one all-reduce of n s bytes.
TEST_P(FrameworkAt, HorovodFusedPaysOneNegotiationAndTheFusionBufferCopies) {
  const auto s = layers("wfbp", "horovod", GetParam());
  const std::int64_t bytes = kLayers * kParams * 4;
  expect_iterations(s, forward_plus_update_s(s) + 1e-3 + negotiation_s() + 2 * copy_s(s, bytes, 1) + ring_s(bytes));
}

// DDP with one bucket of every gradient (scheduler none): after backward, n copy kernels in, the all-reduce, n out.
TEST_P(FrameworkAt, DdpCopiesTheGradientsIntoTheBucketAndBack) {
  const auto s = layers("none", "ddp", GetParam());
  const std::int64_t bytes = kLayers * kParams * 4;
  expect_iterations(s, forward_plus_update_s(s) + kLayers * kBackward_s + 2 * copy_s(s, bytes, kLayers) + ring_s(bytes));
}

// Without a framework the same per-tensor buckets queue with only their all-reduces: the stream starts when the
// first gradient is ready and runs n T(s) back to back.
TEST_P(FrameworkAt, NoFrameworkLeavesThePerTensorQueueAlone) {
  const auto s = layers("wfbp", "none", GetParam());
  // The last layer's gradient is ready after one backward; the others are ready before the stream reaches them
  // (T(1 MB) = 0.1 ms > 0.05 ms).
  ASSERT_GT(ring_s(kParams * 4), kBackward_s);
  expect_iterations(s, forward_plus_update_s(s) + kBackward_s + kLayers * ring_s(kParams * 4));
}

INSTANTIATE_TEST_SUITE_P(Levels, FrameworkAt,
                         ::testing::Values(Fidelity::analytic, Fidelity::flow, Fidelity::message),
                         [](const auto& info) { return std::string(scenario::fidelity_name(info.param)); });

}  // namespace
}  // namespace dtsim::run
