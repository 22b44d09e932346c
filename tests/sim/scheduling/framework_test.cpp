// The frameworks' per-operation costs on a scheduler's buckets, against their closed forms.
#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/scheduling/framework.hpp"
#include "sim/scheduling/scheduler.hpp"

namespace dtsim::scheduling {
namespace {

/// `n` layers of one tensor of `bytes` each; every backward ends at `ready_s` (all ready at once).
SchedulingInput all_ready(int n, std::int64_t bytes, double ready_s) {
  SchedulingInput in;
  for (int l = 0; l < n; ++l) in.tensors.push_back({l, bytes});
  in.backward_end_s.assign(static_cast<std::size_t>(n), ready_s);
  return in;
}

FrameworkCosts costs(double dispatch_s = 0, double gap_s = 0) {
  FrameworkCosts c;
  c.copy = {800e9, dispatch_s, gap_s};
  c.negotiation_s = 40e-6;
  return c;
}

std::vector<Bucket> horovod(const std::vector<Bucket>& buckets, const SchedulingInput& in, std::int64_t threshold,
                            double cycle_s, const FrameworkCosts& c) {
  FrameworkOptions o;
  o.horovod_fusion_threshold_bytes = threshold;
  o.horovod_cycle_s = cycle_s;
  return make_framework("horovod", o)->carry(buckets, in, c);
}

TEST(Framework, RegistryNamesAndRefusal) {
  EXPECT_EQ(framework_names(), (std::vector<std::string>{"none", "horovod", "ddp"}));
  EXPECT_THROW(make_framework("tensorflow"), core::InputError);
  // Horovod 0.13 to 0.20 (operations.cc): 64 MiB, 5 ms.
  EXPECT_EQ(FrameworkOptions{}.horovod_fusion_threshold_bytes, 64 * 1048576);
  EXPECT_DOUBLE_EQ(FrameworkOptions{}.horovod_cycle_s, 5e-3);
}

TEST(Framework, NoneHandsTheBucketsOnUnchanged) {
  const auto in = all_ready(3, 1000, 1e-3);
  const auto buckets = make_scheduler("wfbp")->buckets(in);
  const auto carried = make_framework("none")->carry(buckets, in, costs());
  ASSERT_EQ(carried.size(), 3u);
  for (const Bucket& b : carried) EXPECT_EQ(b.framework_before_s + b.framework_after_s, 0.0);
}

// n tensors of s bytes, all ready before the first cycle c, fusion off: one round at c negotiates them all (one
// ComputeResponseList), and its n responses are enqueued when it ends, at c + N, each reduced in place (no copy).
TEST(Framework, HorovodWithoutFusionNegotiatesTheCyclesTensorsInOneRound) {
  const int n = 5;
  const auto in = all_ready(n, 4000, 0.3e-3);
  const auto carried = horovod(make_scheduler("wfbp")->buckets(in), in, 0, 1e-3, costs());
  ASSERT_EQ(carried.size(), 5u);
  for (int k = 0; k < n; ++k) {
    const Bucket& b = carried[static_cast<std::size_t>(k)];
    EXPECT_EQ(b.tensors, (std::vector<int>{n - 1 - k}));
    EXPECT_DOUBLE_EQ(b.not_before_s, 1e-3 + 40e-6);
    EXPECT_DOUBLE_EQ(b.framework_before_s, 0.0);
    EXPECT_DOUBLE_EQ(b.framework_after_s, 0.0);
  }
}

// Cycle 0 (HOROVOD_CYCLE_TIME=0): a round starts when a tensor is ready and not before the previous round ended;
// the thread does not wait for the all-reduces (FinalizeCUDAQueue hands their completion to another thread).
// Tensors ready at 0, 10, 20, 100 us with rounds of N = 40 us: rounds at 0 (the first), 40 (the next two, ready
// while the first round ran) and 100 (the last, ready after the second round ended at 80).
TEST(Framework, HorovodRoundsRunBackToBackBesideTheStream) {
  SchedulingInput in;
  in.tensors = {{0, 100}, {1, 100}, {2, 100}, {3, 100}};
  in.backward_end_s = {100e-6, 20e-6, 10e-6, 0};
  const auto carried = horovod(make_scheduler("wfbp")->buckets(in), in, 0, 0, costs());
  ASSERT_EQ(carried.size(), 4u);
  const double enqueued[] = {40e-6, 80e-6, 80e-6, 140e-6};
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(carried[static_cast<std::size_t>(k)].tensors, (std::vector<int>{3 - k}));
    EXPECT_NEAR(carried[static_cast<std::size_t>(k)].not_before_s, enqueued[k], 1e-15) << k;
    EXPECT_EQ(carried[static_cast<std::size_t>(k)].framework_before_s, 0.0);
  }
  // With fusion the second round's two tensors are one response.
  const auto fused = horovod(make_scheduler("wfbp")->buckets(in), in, 1 << 20, 0, costs());
  ASSERT_EQ(fused.size(), 3u);
  EXPECT_EQ(fused[1].tensors, (std::vector<int>{2, 1}));
  EXPECT_NEAR(fused[1].not_before_s, 80e-6, 1e-15);
}

// Fused: one response of n s bytes, one negotiation, and the fusion buffer's copy in and out: 2 n s / rate each,
// or the launch when it is longer.
TEST(Framework, HorovodFusesReadyTensorsAndCopiesThroughTheFusionBuffer) {
  const int n = 5;
  const std::int64_t s = 4000000;
  const auto in = all_ready(n, s, 0.3e-3);
  const auto carried = horovod(make_scheduler("wfbp")->buckets(in), in, 64 * 1048576, 5e-3, costs(8e-6, 0.9e-6));
  ASSERT_EQ(carried.size(), 1u);
  const double copy_s = std::max(8e-6, 0.9e-6 + 2.0 * n * s / 800e9);
  EXPECT_EQ(carried[0].bytes, n * s);
  EXPECT_DOUBLE_EQ(carried[0].not_before_s, 5e-3 + 40e-6);
  EXPECT_DOUBLE_EQ(carried[0].framework_before_s, copy_s);
  EXPECT_DOUBLE_EQ(carried[0].framework_after_s, copy_s);
  // The threshold splits the response: 3 tensors fit in 12 MB.
  const auto split = horovod(make_scheduler("wfbp")->buckets(in), in, 3 * s, 5e-3, costs());
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0].tensors.size(), 3u);
  EXPECT_DOUBLE_EQ(split[1].framework_before_s, 2.0 * 2 * s / 800e9);
  EXPECT_DOUBLE_EQ(split[1].not_before_s, 5e-3 + 40e-6);  // both responses of the one round
}

// A scheduler's bucket of several gradients (MG-WFBP's merged group, scheduler "none"'s one buffer) is packed by
// the caller into one tensor, a copy kernel per gradient, and unpacked after; alone in its response, no fusion copy.
TEST(Framework, HorovodCarriesMergedBucketsAsOnePackedTensor) {
  const int n = 4;
  const std::int64_t s = 1000;
  const auto in = all_ready(n, s, 2e-3);
  const auto carried = horovod(make_scheduler("none")->buckets(in), in, 64 * 1048576, 1e-3, costs(8e-6, 0.9e-6));
  ASSERT_EQ(carried.size(), 1u);
  const double pack_s = std::max(n * 8e-6, n * 0.9e-6 + 2.0 * n * s / 800e9);  // launch-bound: n dispatches
  EXPECT_DOUBLE_EQ(pack_s, 32e-6);
  EXPECT_DOUBLE_EQ(carried[0].not_before_s, 2e-3 + 40e-6);
  EXPECT_DOUBLE_EQ(carried[0].framework_before_s, pack_s);
  EXPECT_DOUBLE_EQ(carried[0].framework_after_s, pack_s);
}

// Tensors ready after a cycle wait for the next one: cycles of 1 ms, ready at 0.4, 0.8, 2.5 ms.
TEST(Framework, HorovodCyclesFollowTheReadyTimes) {
  SchedulingInput in;
  in.tensors = {{0, 100}, {1, 100}, {2, 100}};
  in.backward_end_s = {2.5e-3, 0.8e-3, 0.4e-3};
  const auto carried = horovod(make_scheduler("wfbp")->buckets(in), in, 1 << 20, 1e-3, costs());
  ASSERT_EQ(carried.size(), 2u);
  EXPECT_EQ(carried[0].tensors, (std::vector<int>{2, 1}));
  EXPECT_DOUBLE_EQ(carried[0].not_before_s, 1e-3 + 40e-6);
  EXPECT_EQ(carried[1].tensors, (std::vector<int>{0}));
  EXPECT_DOUBLE_EQ(carried[1].not_before_s, 3e-3 + 40e-6);
  EXPECT_EQ(carried[1].ready_layer, 0);
}

// DDP: every bucket's gradients copied in (one kernel each) and out.
TEST(Framework, DdpCopiesEveryGradientIntoItsBucketAndBack) {
  const auto in = all_ready(3, 2000000, 1e-3);
  SchedulerOptions o;
  o.ddp_first_bucket_bytes = 4000000;
  const auto buckets = make_scheduler("ddp", o)->buckets(in);
  ASSERT_EQ(buckets.size(), 2u);  // [2, 1], [0]
  const auto carried = make_framework("ddp")->carry(buckets, in, costs(8e-6, 0.9e-6));
  EXPECT_DOUBLE_EQ(carried[0].framework_before_s, std::max(2 * 8e-6, 2 * 0.9e-6 + 2.0 * 4000000 / 800e9));
  EXPECT_DOUBLE_EQ(carried[0].framework_after_s, carried[0].framework_before_s);
  EXPECT_DOUBLE_EQ(carried[1].framework_before_s, std::max(8e-6, 0.9e-6 + 2.0 * 2000000 / 800e9));
}

}  // namespace
}  // namespace dtsim::scheduling
