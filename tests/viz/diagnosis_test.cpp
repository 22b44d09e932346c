// What bounds a run, read from its report.json: one answer per cause, each with what-ifs that fit it.
#include <gtest/gtest.h>

#include "sim/run/run_simulation.hpp"
#include "tests/sim/platform/structured_nodes.hpp"
#include "tests/sim/run/scenario_fixture.hpp"
#include "viz/diagnosis.hpp"
#include "viz/reports.hpp"

namespace dtsim::viz {
namespace {

using scenario::Fidelity;

nlohmann::json report_of(const scenario::Scenario& s) { return report_json(run::run_simulation(s), {"report.json"}); }

bool proposes(const Diagnosis& d, const std::string& setting) {
  for (const WhatIf& w : d.what_ifs)
    if (w.command.find("--set " + setting) != std::string::npos) return true;
  return false;
}

/// Five layers on a star of 4 whose links move `bandwidth_Bps`.
scenario::Scenario five_layers_at(double bandwidth_Bps) {
  auto s = testing::five_layers(4, "wfbp", Fidelity::analytic);
  s.platform = testing::star(4, bandwidth_Bps, 5e-6);
  return s;
}

TEST(Diagnosis, SlowLinksBoundTheRunByBandwidthAndTheFasterLinkComesFirst) {
  const Diagnosis d = diagnose(report_of(five_layers_at(1e8)));
  EXPECT_EQ(d.bound, "communication");
  EXPECT_NE(d.answer.find("Bounded by exposed communication"), std::string::npos) << d.answer;
  ASSERT_FALSE(d.what_ifs.empty());
  // 100 MB/s links: the busiest one 4x faster is 3.2 Gb/s.
  EXPECT_NE(d.what_ifs[0].command.find("--set platform.link.bandwidth=3.2Gbps"), std::string::npos) << d.what_ifs[0].command;
  EXPECT_TRUE(proposes(d, "compression.compressor=fp16"));
}

TEST(Diagnosis, ASlowPcieLinkOfAStructuredNodeProposesTheNodesPcieKey) {
  auto s = testing::five_layers(4, "wfbp", Fidelity::analytic);
  s.platform = platform::testing::structured(platform::NodeFabric::pcie, 1, 4, 2, 1);
  s.platform.node.pcie.bandwidth_Bps = 1e8;
  const Diagnosis d = diagnose(report_of(s));
  EXPECT_EQ(d.bound, "communication");
  EXPECT_TRUE(proposes(d, "platform.node.pcie.bandwidth=")) << d.what_ifs[0].command;
}

TEST(Diagnosis, AFreeNetworkLeavesCompute) {
  const Diagnosis d = diagnose(report_of(five_layers_at(1e30)));
  EXPECT_EQ(d.bound, "compute");
  EXPECT_FALSE(proposes(d, "strategy.scheduler"));
  EXPECT_TRUE(proposes(d, "platform=a100_8x8_200gbib --set gpu.profile=a100"));
}

TEST(Diagnosis, OneSlowWorkerIsAStraggler) {
  auto s = five_layers_at(1e30);
  s.stragglers.slow_workers = {2};
  s.stragglers.slow_factor = 1.5;
  const Diagnosis d = diagnose(report_of(s));
  EXPECT_EQ(d.bound, "stragglers");
  EXPECT_NE(d.answer.find("worker 2 computes"), std::string::npos) << d.answer;
  EXPECT_TRUE(proposes(d, "strategy.sync=local_sgd"));
  EXPECT_TRUE(proposes(d, "strategy.architecture=ps --set strategy.backup_workers=1"));
}

TEST(Diagnosis, ManyParametersAndFastLayersAreMemoryBound) {
  // 50 M parameters: the optimizer step streams 1 GB, far longer than 0.3 ms of measured forward and backward.
  auto s = testing::synthetic(4, {50'000'000}, {1e-4}, {2e-4}, "wfbp", Fidelity::analytic);
  s.platform = testing::star(4, 1e30, 0);
  const Diagnosis d = diagnose(report_of(s));
  EXPECT_EQ(d.bound, "memory");
  EXPECT_NE(d.answer.find("Bounded by memory bandwidth"), std::string::npos) << d.answer;
}

TEST(Diagnosis, NoCompletedIterationHasNothingToExplain) {
  nlohmann::json report = report_of(five_layers_at(1e30));
  report["iterations"] = nlohmann::json::array();
  const Diagnosis d = diagnose(report);
  EXPECT_EQ(d.bound, "none");
  EXPECT_TRUE(d.what_ifs.empty());
}

}  // namespace
}  // namespace dtsim::viz
