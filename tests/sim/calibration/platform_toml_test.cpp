// Platform files from fits load back through the scenario loader with the fitted costs; `dtsim calibrate`.
#include "sim/calibration/platform_toml.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/calibration/calibrate.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scenario/load.hpp"
#include "tests/sim/calibration/temp_files.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::calibration {
namespace {

using collectives::AlphaBeta;
using collectives::Group;
using testing::error_of;
using testing::write_file;

const AlphaBeta kNvlink{7.3e-6, 1 / 123.4e9};
const AlphaBeta kInfiniband{21.7e-6, 1 / 11.9e9};

/// Plain CSV rows of ring times, 1 KiB to 1 GiB by factors of 4.
std::string ring_csv(const std::vector<Group>& groups, AlphaBeta cost) {
  std::ostringstream out;
  out.precision(17);
  for (const Group& g : groups)
    for (double n = 1024; n <= 1073741824; n *= 4)
      out << g.ranks << ',' << g.ranks_per_node << ',' << n << ','
          << 1e6 * dtsim::testing::ring_formula_s(g.ranks, n, cost) << '\n';
  return out.str();
}

const std::string kHeader = "gpus,gpus_per_node,bytes,time_us\n";

scenario::Scenario load_platform(const std::string& toml, int workers) {
  const std::string path = write_file("calibrated.toml", toml);
  return scenario::load_default_scenario({"platform=" + path, "workers=" + std::to_string(workers)});
}

void expect_costs(const AlphaBeta& actual, const AlphaBeta& expected) {
  EXPECT_NEAR(actual.alpha_s, expected.alpha_s, 1e-9 * expected.alpha_s);
  EXPECT_NEAR(actual.beta_s_per_byte, expected.beta_s_per_byte, 1e-9 * expected.beta_s_per_byte);
}

TEST(PlatformToml, OneNodeBecomesAStarWithTheFittedCosts) {
  const std::string csv = write_file("intra.csv", kHeader + ring_csv({{2, 8}, {4, 8}, {8, 8}}, kNvlink));
  const Calibration c = calibrate({csv}, {});
  const scenario::Scenario s = load_platform(c.platform_toml, 8);
  EXPECT_EQ(s.platform.topology, platform::Topology::star);
  EXPECT_EQ(s.platform.hosts(), 8);
  EXPECT_EQ(s.platform.name, "calibrated");
  expect_costs(platform::link_costs(s.platform).intra, kNvlink);
  EXPECT_NE(c.platform_toml.find("# Fitted by dtsim calibrate from:\n#   " + csv + "\n"), std::string::npos);
  EXPECT_NE(c.platform_toml.find("#   R^2 1.000000, relative error mean 0.00 %, max 0.00 %\n"), std::string::npos);
  EXPECT_NE(c.platform_toml.find("latency = \"3.65us\""), std::string::npos) << c.platform_toml;
}

TEST(PlatformToml, TwoLevelsBecomeATwoLevelPlatformWithTheFittedCosts) {
  const std::string csv = write_file(
      "two_level.csv", kHeader + ring_csv({{2, 4}, {4, 4}}, kNvlink) + ring_csv({{8, 4}, {16, 4}}, kInfiniband));
  CalibrateOptions lab;
  lab.platform_name = "lab";
  const Calibration c = calibrate({csv}, lab);
  const scenario::Scenario s = load_platform(c.platform_toml, 16);
  EXPECT_EQ(s.platform.topology, platform::Topology::two_level);
  EXPECT_EQ(s.platform.nodes, 4);
  EXPECT_EQ(s.platform.gpus_per_node, 4);
  EXPECT_EQ(s.platform.name, "lab");
  expect_costs(platform::link_costs(s.platform).intra, kNvlink);
  expect_costs(platform::link_costs(s.platform).inter, kInfiniband);
}

TEST(PlatformToml, NodesScalesTheFittedPlatformToPredictALargerCluster) {
  const std::string csv = write_file(
      "scaled.csv", kHeader + ring_csv({{2, 4}, {4, 4}}, kNvlink) + ring_csv({{8, 4}, {16, 4}}, kInfiniband));
  CalibrateOptions options;
  options.platform_name = "lab";
  options.nodes = 32;
  const Calibration c = calibrate({csv}, options);
  const scenario::Scenario s = load_platform(c.platform_toml, 128);
  EXPECT_EQ(s.platform.nodes, 32);
  EXPECT_EQ(s.platform.gpus_per_node, 4);
  expect_costs(platform::link_costs(s.platform).intra, kNvlink);
  expect_costs(platform::link_costs(s.platform).inter, kInfiniband);
  // Inside one node nothing says what links nodes: refused with the way out.
  const std::string one_node = write_file("one_node.csv", kHeader + ring_csv({{2, 8}, {8, 8}}, kNvlink));
  EXPECT_EQ(error_of([&] { calibrate({one_node}, options); }),
            "--nodes 32: the measurements stay inside one node, so nothing says what links nodes; add measurements "
            "across nodes (nccl-tests with several nodes), or write the inter-node links into a two_level platform "
            "yourself");
}

TEST(PlatformToml, AMultiNodeNcclTestsLogAloneGivesTwoLevelsWithTheRouteCost) {
  const std::string log = std::string(DTSIM_SOURCE_DIR) + "/tests/sim/calibration/logs/all_reduce_2x8_mpirun.log";
  const Calibration c = calibrate({log}, {});
  const scenario::Scenario s = load_platform(c.platform_toml, 16);
  EXPECT_EQ(s.platform.topology, platform::Topology::two_level);
  EXPECT_EQ(s.platform.nodes, 2);
  EXPECT_EQ(s.platform.gpus_per_node, 8);
  const collectives::LinkCosts costs = platform::link_costs(s.platform);
  // The log's times are printed to 0.1 us.
  EXPECT_NEAR(costs.inter.alpha_s, kInfiniband.alpha_s, 0.01 * kInfiniband.alpha_s);
  EXPECT_NEAR(costs.inter.beta_s_per_byte, kInfiniband.beta_s_per_byte, 1e-4 * kInfiniband.beta_s_per_byte);
  expect_costs(costs.intra, costs.inter);
  EXPECT_NE(c.platform_toml.find("# Nothing was measured inside one node: the GPU links get the inter-node cost.\n"),
            std::string::npos)
      << c.platform_toml;
}

TEST(PlatformToml, SaysWhereRoutesCannotReproduceTheFit) {
  AlphaBetaFit fit;
  fit.collective = "ring";
  fit.gpus = 16;
  fit.nodes = 2;
  fit.gpus_per_node = 8;
  LevelFit intra;
  intra.cost = {10e-6, 1 / 100e9};
  intra.groups = {{8, 8}};
  intra.crossover_bytes = {1e6};
  intra.quality.points = 1;
  LevelFit inter = intra;
  inter.cost = {4e-6, 1 / 200e9};  // faster than inside the node on both counts
  inter.groups = {{16, 8}};
  fit.intra = intra;
  fit.inter = inter;
  const std::string toml = platform_toml(fit, "odd", {"x.csv"});
  EXPECT_NE(toml.find("# The inter-node alpha fitted is below the intra-node one"), std::string::npos);
  EXPECT_NE(toml.find("# The inter-node bandwidth fitted exceeds the intra-node one"), std::string::npos);
  const scenario::Scenario s = load_platform(toml, 16);
  EXPECT_EQ(s.platform.inter.latency_s, 0.0);
  expect_costs(platform::link_costs(s.platform).inter, {10e-6, 1 / 100e9});
}

TEST(CalibrateMain, WritesThePlatformFileAndASummary) {
  const std::string csv = write_file("summary.csv", kHeader + ring_csv({{2, 8}, {8, 8}}, kNvlink));
  const std::string out_path = write_file("out.toml", "old");
  std::ostringstream out;
  EXPECT_EQ(calibrate_main({csv}, {"ring", "calibrated", out_path, 0, {}, 0, {}, "", "bf16", ""}, out), 0);
  std::ifstream file(out_path);
  const std::string written((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, calibrate({csv}, {}).platform_toml);
  EXPECT_FALSE(std::filesystem::exists(out_path + ".tmp"));
  EXPECT_EQ(out.str().substr(0, 41), "dtsim calibrate: 22 measurements from 1 f");
  EXPECT_NE(out.str().find("wrote " + out_path), std::string::npos);
}

TEST(CalibrateMain, PrintsThePlatformFileWithoutOut) {
  const std::string csv = write_file("print.csv", kHeader + ring_csv({{2, 8}, {8, 8}}, kNvlink));
  std::ostringstream out;
  EXPECT_EQ(calibrate_main({csv}, {}, out), 0);
  EXPECT_EQ(out.str(), calibrate({csv}, {}).platform_toml);
}

TEST(CalibrateMain, BadInputIsAnInputError) {
  std::ostringstream out;
  EXPECT_EQ(error_of([&] { calibrate_main({}, {}, out); }), "no measurement file; one or more measurement files");
  for (const char* chooser : {"nccl", "auto", "mpich_auto"})
    EXPECT_EQ(error_of([&] { calibrate_main({"x.csv"}, {chooser, "x", "", 0, {}, 0, {}, "", "bf16", ""}, out); }).rfind(
                  std::string("--collective ") + chooser + ": it picks its algorithm", 0),
              0u);
  const std::string csv = write_file("ok.csv", kHeader + ring_csv({{2, 8}}, kNvlink));
  // A folder that cannot exist (its name is taken by a file): the error names it and the way out.
  EXPECT_EQ(error_of([&] { calibrate_main({csv}, {"ring", "x", csv + "/p.toml", 0, {}, 0, {}, "", "bf16", ""}, out); }).rfind(
                csv + ": cannot create the folder: ", 0),
            0u);
  EXPECT_TRUE(out.str().empty());
}

}  // namespace
}  // namespace dtsim::calibration
