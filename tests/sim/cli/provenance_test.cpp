// Results that say what made them and never mix with an earlier run's: report.json's provenance, the
// resolved scenario re-run, the console banner with the overrides, and a run folder cleared of stale outputs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/shell_command.hpp"

namespace {

namespace fs = std::filesystem;
using dtsim::testing::dtsim;
using dtsim::testing::Outcome;

fs::path folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("dtsim-provenance-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

nlohmann::json report(const fs::path& dir) {
  std::ifstream in(dir / "report.json");
  return nlohmann::json::parse(in);
}

TEST(Provenance, ReportCarriesVersionCommandOverridesAndTheResolvedScenario) {
  const fs::path out = folder("report");
  const Outcome o = dtsim("run --set platform.inter_link.bandwidth=25Gbps --set iterations=1 --out " + out.string());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("  overrides  --set platform.inter_link.bandwidth=25Gbps --set iterations=1\n"),
            std::string::npos) << o.output;
  EXPECT_NE(o.output.find("on v100_4x4_10gbe (modified by --set platform.*)"), std::string::npos) << o.output;
  const nlohmann::json r = report(out);
  const nlohmann::json& p = r["provenance"];
  const std::string version = dtsim("--version").output;
  EXPECT_EQ("dtsim " + p["dtsim_version"].get<std::string>() + "\n", version);
  EXPECT_NE(p["command_line"].get<std::string>().find(" run --set platform.inter_link.bandwidth=25Gbps --set iterations=1"),
            std::string::npos);
  EXPECT_EQ(p["overrides"], nlohmann::json({"platform.inter_link.bandwidth=25Gbps", "iterations=1"}));
  const std::string resolved = p["resolved_scenario"];
  EXPECT_NE(resolved.find("bandwidth = \"25Gbps\""), std::string::npos) << resolved;  // the override
  EXPECT_NE(resolved.find("latency = \"11.25us\""), std::string::npos) << resolved;   // the platform, inline
  EXPECT_NE(resolved.find("sync = \"bsp\""), std::string::npos) << resolved;          // a default
  EXPECT_EQ(r["outputs"], nlohmann::json({"report.json", "summary.csv", "timeline.json"}));

  // The resolved scenario alone reproduces the run.
  const fs::path again = folder("again");
  fs::create_directories(again);
  std::ofstream(again / "resolved.toml") << resolved;
  const Outcome rerun = dtsim("run " + (again / "resolved.toml").string() + " --out " + (again / "out").string());
  ASSERT_EQ(rerun.code, 0) << rerun.output;
  const nlohmann::json r2 = report(again / "out");
  EXPECT_EQ(r2["provenance"]["scenario_digest"], p["scenario_digest"]);
  EXPECT_EQ(r2["provenance"]["resolved_scenario"], p["resolved_scenario"]);
  EXPECT_EQ(r2["summary"], r["summary"]);
  EXPECT_EQ(r2["iterations"], r["iterations"]);
  fs::remove_all(out);
  fs::remove_all(again);
}

TEST(Provenance, EveryShippedScenarioResolvesToAFixedPoint) {
  int checked = 0;
  const fs::path tmp = folder("fixpoint");
  fs::create_directories(tmp);
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(DTSIM_SOURCE_DIR) / "scenarios")) {
    if (entry.path().extension() != ".toml" || entry.path().parent_path().filename() == "sweeps") continue;
    const Outcome first = dtsim("validate " + entry.path().string() + " --resolved");
    ASSERT_EQ(first.code, 0) << entry.path() << first.output;
    std::ofstream(tmp / "resolved.toml") << first.output;
    const Outcome second = dtsim("validate " + (tmp / "resolved.toml").string() + " --resolved");
    ASSERT_EQ(second.code, 0) << entry.path() << second.output;
    EXPECT_EQ(second.output, first.output) << entry.path();
    ++checked;
  }
  EXPECT_GE(checked, 15);  // scenarios/ holds 15 files outside sweeps/ today
  fs::remove_all(tmp);
}

TEST(RunFolder, ANewRunRemovesWhatAnEarlierRunLeft) {
  const fs::path out = folder("stale");
  ASSERT_EQ(dtsim("run --set workers=16 --set iterations=1 --out " + out.string()).code, 0);
  ASSERT_TRUE(fs::exists(out / "timeline.json"));
  fs::create_directories(out / "plots");
  std::ofstream(out / "plots" / "breakdown.png") << "old";
  std::ofstream(out / "report.html") << "old";
  std::ofstream(out / "notes.txt") << "the user's";
  const Outcome o = dtsim("run --set workers=4 --set iterations=1 --set output.timeline=false --out " + out.string());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("removed 5 outputs of an earlier run"), std::string::npos) << o.output;
  EXPECT_FALSE(fs::exists(out / "timeline.json"));
  EXPECT_FALSE(fs::exists(out / "plots"));
  EXPECT_FALSE(fs::exists(out / "report.html"));
  EXPECT_TRUE(fs::exists(out / "notes.txt"));
  EXPECT_EQ(report(out)["outputs"], nlohmann::json({"report.json", "summary.csv"}));
  EXPECT_EQ(report(out)["setup"]["workers"], 4);
  fs::remove_all(out);
}

TEST(RunFolder, ARunThatDoesNotFitLeavesAnEarlierRunsOutputs) {
  const fs::path out = folder("refused");
  ASSERT_EQ(dtsim("run --set workers=4 --set iterations=1 --out " + out.string()).code, 0);
  // The run's own memory check refuses, for data parallelism and for a layout, before the folder is claimed.
  for (const std::string& big : {std::string("--set model.name=gpt2_medium --set batch_size=512"),
                                 std::string("--set model.name=llama2_70b --set platform=dgx_h100 --set workers=8 "
                                             "--set parallel.tensor=2 --set batch_size=8")}) {
    const Outcome o = dtsim("run " + big + " --set iterations=1 --out " + out.string());
    EXPECT_EQ(o.code, 2) << o.output;
    EXPECT_NE(o.output.find("per GPU"), std::string::npos) << o.output;
    EXPECT_TRUE(fs::exists(out / "timeline.json")) << big;
    EXPECT_EQ(report(out)["setup"]["workers"], 4) << big;
  }
  fs::remove_all(out);
}

TEST(RunFolder, ASweepFolderIsRefused) {
  const fs::path out = folder("sweep");
  fs::create_directories(out);
  std::ofstream(out / "results.csv") << "point\n";
  const std::string said = "dtsim: error: " + out.string() +
                           ": the folder holds a sweep's results; write the run into another folder (--out or "
                           "output.dir)\n";
  const Outcome o = dtsim("run --out " + out.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.output, said);
  // Before anything is simulated: a run that would not fit hears of the folder first.
  const Outcome big = dtsim("run --set model.name=gpt2_medium --set batch_size=512 --out " + out.string());
  EXPECT_EQ(big.code, 2);
  EXPECT_EQ(big.output, said);
  fs::remove_all(out);
}

}  // namespace
