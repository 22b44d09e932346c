// TCP between nodes (network.transport = "tcp"): a transfer runs at most at its connections times one stream's
// rate, whatever its link's share, at the analytic, flow and message levels alike; inside a node it is not capped.
//
//     gpu0 ──link0 (12.5 GB/s, 5 us)──┐
//                                     switch ──link1──> gpu1        one transfer: 2L + n / min(B, c x r)
//     gpu2 ──link2────────────────────┘                             two into gpu1: 2L + n / min(B / 2, c x r)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>

#include "sim/actors/simgrid_run.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/platform/fabric.hpp"
#include "tests/sim/actors/in_child.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::actors {
namespace {

constexpr double kLinkBps = 12.5e9;
constexpr double kLatencyS = 5e-6;
constexpr double kStreamBps = 1e9;  // one connection: 8 Gb/s, a slow core
constexpr std::int64_t kBytes = std::int64_t{1} << 30;

platform::PlatformSpec tcp_star(int connections) {
  platform::PlatformSpec spec = testing::star(3, kLinkBps, kLatencyS);
  spec.transport = platform::Transport::tcp;
  spec.tcp = {kStreamBps, connections};
  return spec;
}

/// The plan's time at `level`: analytic (the replay), flow or message (SimGrid, in a child process).
double time_at(const platform::PlatformSpec& spec, const collectives::Schedule& plan, const std::string& level) {
  if (level == "analytic") return collectives::schedule_time_s(plan, platform::Fabric(spec));
  return testing::in_child([&] { return simulate_schedules_s(spec, {plan}, level == "flow")[0]; });
}

class TcpConnectionCap : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(TcpConnectionCap, OneTransferOnOneLink) {
  const auto [connections, level] = GetParam();
  const collectives::Schedule plan{3, {{{{0, 1, kBytes}}}}};
  const double rate_Bps = std::min(kLinkBps, connections * kStreamBps);
  const double expected = 2 * kLatencyS + static_cast<double>(kBytes) / rate_Bps;
  EXPECT_NEAR(time_at(tcp_star(connections), plan, level), expected, 1e-9 * expected);
}

TEST_P(TcpConnectionCap, TwoTransfersIntoOneLink) {
  // Both share gpu1's DOWN link: each gets half of it, or its connections' rate when that is less.
  const auto [connections, level] = GetParam();
  const collectives::Schedule plan{3, {{{{0, 1, kBytes}, {2, 1, kBytes}}}}};
  const double rate_Bps = std::min(kLinkBps / 2, connections * kStreamBps);
  const double expected = 2 * kLatencyS + static_cast<double>(kBytes) / rate_Bps;
  EXPECT_NEAR(time_at(tcp_star(connections), plan, level), expected, 1e-9 * expected);
}

// 1 connection: 1 GB/s; 4: 4 GB/s (under half the link); 8: 8 GB/s (over half, under the link); 16: the link.
INSTANTIATE_TEST_SUITE_P(All, TcpConnectionCap,
                         ::testing::Combine(::testing::Values(1, 4, 8, 16),
                                            ::testing::Values("analytic", "flow", "message")),
                         [](const auto& info) {
                           return std::to_string(std::get<0>(info.param)) + "_connections_" + std::get<1>(info.param);
                         });

TEST(TcpConnectionCap, RingAllReduceBetweenNodesTakesTheCappedClosedForm) {
  // 3 nodes of 2 GPUs: the ring's NIC hops run at 2 connections x 1 GB/s, its NVLink hops uncapped; the closed
  // form prices every step at the inter-node hop (link_costs' inter bandwidth is the cap).
  platform::PlatformSpec spec = testing::two_level(3, 2);
  spec.transport = platform::Transport::tcp;
  spec.tcp = {kStreamBps, 2};
  const int p = spec.hosts();
  const std::int64_t bytes = std::int64_t{p} << 22;
  const collectives::LinkCosts costs = platform::link_costs(spec);
  const auto ring = collectives::make_collective("ring", costs);
  const collectives::Schedule plan = ring->plan({p, 1}, bytes);
  const double closed = ring->closed_form_s({p, 1}, static_cast<double>(bytes), costs);
  const double per_step = costs.inter.alpha_s + static_cast<double>(bytes / p) / (2 * kStreamBps);
  EXPECT_NEAR(closed, 2 * (p - 1) * per_step, 1e-9 * closed);
  for (const std::string level : {"analytic", "flow", "message"})
    EXPECT_NEAR(time_at(spec, plan, level), closed, 1e-9 * closed) << level;
}

}  // namespace
}  // namespace dtsim::actors
