// nccl: a faster link never makes NCCL's all-reduce slower. The tuner picks by predicted time, so its prediction
// must price each (algorithm, protocol) as the plan runs it: LL128's per-channel ceiling included (tuning.cc caps
// the predicted busBw at nChannels x perChMaxRingLL128Bw), else a faster NVSwitch graph makes it pick a capped
// LL128 over a Simple that moves at the links' speed.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/platform/structured_nodes.hpp"

namespace dtsim::collectives {
namespace {

/// Per-GPU NVSwitch port speeds (bytes/s per direction) from 6 NVLinks of 25 GB/s to DGX H100's 18 and beyond.
const std::vector<double> kNvlinkLadder_Bps{150e9, 225e9, 300e9, 400e9, 450e9, 500e9, 625e9, 900e9, 1800e9};
/// Sizes from 8 MiB to 1 GiB by factors of 2: the layouts' collectives (64 MiB is the tensor-parallel all-reduce of
/// Llama 2 70B's layout, scenarios/llama2_70b_1024_h100.toml: 4,096 tokens x 8,192 hidden x 2 bytes; data-parallel
/// buckets are larger). Below, where latency counts, the tuner can still pick LL over LL128 (1-4 MiB on NVSwitch)
/// or tree/LL (32 KiB across nodes) by NCCL's hwLat, which the plan does not charge: its steps pay the links'
/// latency, the same for every protocol (docs/VALIDATION.md, NCCL's tuner).
std::vector<double> sizes() {
  std::vector<double> s;
  for (double bytes = double(8 << 20); bytes <= double(1 << 30); bytes *= 2) s.push_back(bytes);
  return s;
}

/// An all-reduce tuned for `costs`: its closed-form time for `bytes` over `group`.
double tuned_s(const Group& group, const LinkCosts& costs, double bytes) {
  return NcclAllreduce("nccl", costs).closed_form_s(group, bytes, costs);
}

/// Eight GPUs on NVSwitch ports of `port_Bps`, one NIC of `nic_Bps` each, rails (DGX H100's shape), `nodes` nodes.
platform::PlatformSpec dgx(int nodes, double port_Bps, double nic_Bps) {
  platform::PlatformSpec spec = platform::testing::structured(platform::NodeFabric::nvswitch, nodes, 8, 8, 8);
  spec.node.rails = true;
  spec.node.nvlink.bandwidth_Bps = port_Bps;
  spec.inter.bandwidth_Bps = nic_Bps;
  return spec;
}

TEST(NcclBandwidthLadder, NvswitchAllReduceNeverSlowsAsTheNvlinkGrows) {
  const Group tp{8, 8};
  for (double bytes : sizes()) {
    double previous_s = INFINITY;
    for (double port_Bps : kNvlinkLadder_Bps) {
      const LinkCosts costs = platform::link_costs(dgx(1, port_Bps, 50e9));
      const double t = tuned_s(tp, costs, bytes);
      EXPECT_LE(t, previous_s * (1 + 1e-12)) << bytes << " B at " << port_Bps * 1e-9 << " GB/s: "
                                             << NcclAllreduce("nccl", costs).chosen(tp, bytes).name();
      previous_s = t;
    }
  }
}

TEST(NcclBandwidthLadder, LlamaTensorParallelAllReduceAtTheAnalyticLevelAndItsClosedForm) {
  // 64 MiB over 8 GPUs of one node: at 450 GB/s (18 NVLinks: 16 channels of 20 GB/s) and at 900 GB/s (36: 16 of 40)
  // the tuner keeps ring/Simple, whose one ring (standing for the channels) runs at the port's speed: 14 steps of
  // n / 8 bytes, plus NCCL's latency term beyond the links' 14 alpha. At 900 GB/s LL128 would move at most the
  // channels' 16 x 20 GB/s (perChMaxRingLL128Bws, Ampere, one node), slower than Simple.
  const Group tp{8, 8};
  const std::int64_t n = std::int64_t{64} << 20;
  double previous_s = INFINITY;
  for (double port_Bps : kNvlinkLadder_Bps) {
    const platform::PlatformSpec spec = dgx(1, port_Bps, 50e9);
    const LinkCosts costs = platform::link_costs(spec);
    const NcclAllreduce nccl("nccl", costs);
    const double analytic = schedule_time_s(nccl.plan(tp, n), platform::Fabric(spec));
    EXPECT_LE(analytic, previous_s * (1 + 1e-12)) << port_Bps;
    previous_s = analytic;
    if (port_Bps != 450e9 && port_Bps != 900e9) continue;
    const NcclChoice c = nccl.chosen(tp, static_cast<double>(n));
    EXPECT_EQ(c.name(), "ring/Simple") << port_Bps;
    const AlphaBeta ab = costs.intra;
    const double extra = std::max(0.0, nccl_latency_s(c, tp, static_cast<double>(n)) - 14 * ab.alpha_s);
    const double expected = extra + 14 * (ab.alpha_s + static_cast<double>(n / 8) * ab.beta_s_per_byte);
    EXPECT_NEAR(nccl.closed_form_s(tp, static_cast<double>(n), costs), expected, 1e-12 * expected) << port_Bps;
    EXPECT_NEAR(analytic, expected, 1e-9 * expected) << port_Bps;
  }
}

TEST(NcclBandwidthLadder, TunerPricesLl128AtItsChannelsCeiling) {
  // tuning.cc: busBw = min(busBw x 0.92, nChannels x perChMaxRingLL128Bw). At 900 GB/s the graph is 16 channels of
  // 40 GB/s; LL128's predicted busBw is 16 x 20 GB/s, not 0.92 x 640 GB/s: latency + n / (320 GB/s x 8 / 14).
  const LinkCosts costs = platform::link_costs(dgx(1, 900e9, 50e9));
  ASSERT_EQ(nccl_nvswitch_graph(costs.nvswitch_nvlinks).channels, 16);
  ASSERT_DOUBLE_EQ(nccl_nvswitch_graph(costs.nvswitch_nvlinks).speed_GBps, 40.0);
  const NcclChoice ll128{NcclAlgorithm::ring, NcclProtocol::ll128};
  const Group tp{8, 8};
  const double n = 1 << 26;
  EXPECT_NEAR(nccl_predicted_s(ll128, tp, costs, n), nccl_latency_s(ll128, tp, n) + n / (320e9 * 8 / 14), 1e-15);
}

TEST(NcclBandwidthLadder, AllReduceAcrossNodesNeverSlowsAsTheNicGrows) {
  // The data-parallel groups of a layout (GPU k of every node: one GPU a node) and whole nodes, NICs from 100 to
  // 1600 Gb/s.
  for (const Group& group : {Group{4, 1}, Group{32, 8}}) {
    for (double bytes : sizes()) {
      double previous_s = INFINITY;
      for (double nic_Bps : {12.5e9, 25e9, 50e9, 100e9, 200e9}) {
        const LinkCosts costs = platform::link_costs(dgx(4, 450e9, nic_Bps));
        const double t = tuned_s(group, costs, bytes);
        EXPECT_LE(t, previous_s * (1 + 1e-12)) << group.ranks << " ranks, " << bytes << " B at " << nic_Bps * 8e-9
                                               << " Gb/s: " << NcclAllreduce("nccl", costs).chosen(group, bytes).name();
        previous_s = t;
      }
    }
  }
}

}  // namespace
}  // namespace dtsim::collectives
