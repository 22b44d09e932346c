// Gradient compression inside the simulation (timing mode): the real kernels' wire sizes reach the network,
// aggregation modes pick the collectives, and the three levels agree.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compressors/device/device.hpp"
#include "compressors/registry.hpp"
#include "sim/run/run_simulation.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

using scenario::Fidelity;

scenario::Scenario compressed(const std::string& compressor, compressors::Options options, Fidelity fidelity) {
  auto s = testing::five_layers(4, "wfbp", fidelity);
  s.compression.compressor = compressor;
  s.compression.options = std::move(options);
  s.compression.kernel_time = scenario::KernelTime::fixed;  // kernel times in closed form
  s.compression.kernel_Bps = 20e9;
  return s;
}

TEST(Compression, TheNoteSaysWhereTheKernelsRanAndHowTheirTimesWereMapped) {
  auto s = compressed("fp16", {}, Fidelity::analytic);
  std::string note;
  make_iteration_plan(s, &note);
  EXPECT_EQ(note, "fp16 kernels timed at a fixed 20 GB/s of fp32 input");
  s.compression.kernel_time = scenario::KernelTime::model;
  make_iteration_plan(s, &note);
  EXPECT_EQ(note, fmt::format("fp16 kernels timed by the kernel model on the {} (memory passes at {:.0f} GB/s, 3 us per "
                              "launch; reproducible)",
                              s.gpu.name, s.gpu.memory_Bps * s.gpu.memory_efficiency / 1e9));
  s.compression.kernel_time = scenario::KernelTime::measured;
  make_iteration_plan(s, &note);
  EXPECT_EQ(note.rfind("fp16 kernels ran on the host CPU (device = \"cpu\", copy ", 0), 0u) << note;
  EXPECT_NE(note.find("to the " + s.gpu.name + " ("), std::string::npos) << note;
  if (!compressors::device::cuda_unavailable().empty()) return;  // the rest runs where a CUDA device is present
  s.compression.device = "cuda";
  make_iteration_plan(s, &note);
  EXPECT_NE(note.find("(device = \"cuda\""), std::string::npos) << note;
}

TEST(Compression, TopKWireBytesReachTheNetworkThroughAnAllGather) {
  const auto s = compressed("topk", {{"ratio", 0.01}}, Fidelity::analytic);
  const RunResult r = run_simulation(s);
  // Ring all-gather: each rank forwards the other p - 1 ranks' blocks, each block the compressor's wire size.
  std::int64_t per_iteration = 0;
  for (const auto& layer : s.model.layers)
    for (const auto& t : layer.tensors) {
      const std::vector<float> g(static_cast<std::size_t>(t.numel()), 1.0f);
      per_iteration += 3 * compressors::make_compressor("topk", {{"ratio", 0.01}})->compress(g, 0).wire_size;
    }
  EXPECT_EQ(r.traffic[0].bytes_sent, s.iterations * per_iteration);
  EXPECT_EQ(r.traffic[2].bytes_received, s.iterations * per_iteration);
}

TEST(Compression, GTopKMovesOnePayloadPerTreeHopInsteadOfGatheringAll) {
  auto gather = compressed("topk", {{"ratio", 0.01}}, Fidelity::analytic);
  gather.workers = 8;
  gather.platform = testing::star(8);
  auto gtopk = gather;
  gtopk.compression.sparse_collective = "gtopk";
  const auto plan = make_iteration_plan(gtopk);
  for (const auto& w : plan.work) {
    ASSERT_EQ(w.exchanges.size(), 1u);
    EXPECT_EQ(w.exchanges[0].kind, scheduling::Exchange::Kind::gtopk);
  }
  // Binomial reduce + broadcast: the root receives and sends lg p = 3 payloads; an all-gather moves p - 1 = 7.
  const RunResult g = run_simulation(gather);
  const RunResult t = run_simulation(gtopk);
  EXPECT_EQ(3 * g.traffic[0].bytes_received, 7 * t.traffic[0].bytes_received);
}

TEST(Compression, GradientSeedAndDistributionDecideVariableWireSizes) {
  // A threshold compressor sends as many entries as exceed it: that depends on the synthetic gradients.
  auto s = compressed("threshold", {{"threshold", 0.002}}, Fidelity::analytic);
  const auto bytes = [](const scenario::Scenario& x) { return run_simulation(x).traffic[0].bytes_sent; };
  const std::int64_t base = bytes(s);
  EXPECT_EQ(bytes(s), base);
  s.compression.seed = 1;
  EXPECT_NE(bytes(s), base);
  s.compression.gradient = "heavy_tailed";
  EXPECT_NE(bytes(s), base);
}

TEST(Compression, PerLayerGradientScalesShapeEachBucketsWireSize) {
  // A threshold of 0.002 keeps about 5 % of N(0, 0.001^2) entries; a layer scaled to 1 keeps nearly all its
  // entries and one scaled to 1e-6 none: only the buckets holding that layer change.
  auto s = compressed("threshold", {{"threshold", 0.002}}, Fidelity::analytic);
  const auto payloads = [](const scenario::Scenario& x) {
    std::vector<std::int64_t> bytes;
    for (const auto& w : make_iteration_plan(x).work) bytes.push_back(w.exchanges.at(0).bytes);
    return bytes;
  };
  const std::vector<std::int64_t> base = payloads(s);
  s.compression.layer_scales = {{"layer3", 1.0}};
  const std::vector<std::int64_t> loud = payloads(s);
  s.compression.layer_scales = {{"layer3", 1e-6}};
  const std::vector<std::int64_t> quiet = payloads(s);
  ASSERT_EQ(base.size(), loud.size());
  int changed = 0;
  for (std::size_t b = 0; b < base.size(); ++b) {
    EXPECT_GE(loud[b], base[b]);
    EXPECT_LE(quiet[b], base[b]);
    changed += loud[b] != base[b] ? 1 : 0;
  }
  EXPECT_EQ(changed, 1);  // WFBP: one bucket per tensor; layer3 has one tensor
}

TEST(Compression, Fp16HalvesTheAllReduceTraffic) {
  const RunResult half = run_simulation(compressed("fp16", {}, Fidelity::analytic));
  const RunResult dense = run_simulation(testing::five_layers(4, "wfbp", Fidelity::analytic));
  EXPECT_EQ(2 * half.traffic[0].bytes_sent, dense.traffic[0].bytes_sent);
}

TEST(Compression, PowerSgdExchangesPThenQ) {
  const auto s = compressed("powersgd", {{"rank", std::int64_t{2}}}, Fidelity::analytic);
  const auto plan = make_iteration_plan(s);
  ASSERT_EQ(plan.work.size(), plan.buckets.size());
  for (const auto& w : plan.work) {
    ASSERT_EQ(w.exchanges.size(), 2u);
    EXPECT_GT(w.exchanges[1].before_s, 0);  // orthogonalisation between the two all-reduces
  }
}

TEST(Compression, CompressionTimeIsOnTheCommunicationStream) {
  auto slow = compressed("topk", {{"ratio", 0.01}}, Fidelity::analytic);
  auto fast = slow;
  slow.compression.kernel_Bps = 1e9;
  EXPECT_GT(run_simulation(slow).mean_iteration_s, run_simulation(fast).mean_iteration_s);
  const RunResult r = run_simulation(slow);
  int compress_events = 0;
  for (const auto& e : r.events) compress_events += e.lane == "compress";
  EXPECT_EQ(compress_events, 4 * 3 * 4 * 2);  // workers x iterations x buckets x (compress, decompress)
}

class CompressionLevels : public ::testing::TestWithParam<std::tuple<std::string, Fidelity>> {};

TEST_P(CompressionLevels, SimulatedEqualsAnalytic) {
  const auto [compressor, fidelity] = GetParam();
  auto analytic = compressed(compressor == "gtopk" ? "topk" : compressor, {}, Fidelity::analytic);
  if (compressor == "gtopk") analytic.compression.sparse_collective = "gtopk";
  auto simulated = analytic;
  simulated.fidelity = fidelity;
  const double a = run_simulation(analytic).mean_iteration_s;
  EXPECT_NEAR(run_simulation(simulated).mean_iteration_s, a, 1e-9 * a);
}

INSTANTIATE_TEST_SUITE_P(All, CompressionLevels,
                         ::testing::Combine(::testing::Values("fp16", "topk", "signsgd", "powersgd", "gtopk"),
                                            ::testing::Values(Fidelity::flow, Fidelity::message)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + scenario::fidelity_name(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace dtsim::run
