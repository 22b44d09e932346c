// `dtsim compare` as a user runs it: two runs side by side, the settings that differ, and refusals of folders
// that are not runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/shell_command.hpp"

namespace {

namespace fs = std::filesystem;
using dtsim::testing::dtsim;
using dtsim::testing::Outcome;

fs::path temporary_folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("dtsim-compare-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

/// Two analytic runs of the default scenario, the second with the buckets of `strategy.scheduler=none`.
struct TwoRuns {
  fs::path root = temporary_folder("runs");
  fs::path a = root / "default";
  fs::path b = root / "none";
  TwoRuns() {
    const Outcome first = dtsim("run --out " + a.string() + " --set strategy.fidelity=analytic");
    const Outcome second = dtsim("run --out " + b.string() + " --set strategy.fidelity=analytic --set strategy.scheduler=none");
    EXPECT_EQ(first.code, 0) << first.output;
    EXPECT_EQ(second.code, 0) << second.output;
  }
  ~TwoRuns() { fs::remove_all(root); }
};

TEST(Compare, RunsDifferingInOneKeyShowThatKeyAndEachRunsTimes) {
  const TwoRuns runs;
  const Outcome o = dtsim("compare " + runs.a.string() + " " + runs.b.string() + " --json");
  ASSERT_EQ(o.code, 0) << o.output;
  const nlohmann::json c = nlohmann::json::parse(o.output);
  EXPECT_EQ(c["schema"], "dtsim.compare/1");
  EXPECT_FALSE(c["versions_differ"].get<bool>());
  ASSERT_EQ(c["settings_differ"].size(), 1u) << c["settings_differ"].dump();
  const nlohmann::json& diff = c["settings_differ"][0];
  EXPECT_EQ(diff["key"], "strategy.scheduler");
  EXPECT_NE(diff["values"][0], "\"none\"");
  EXPECT_EQ(diff["values"][1], "\"none\"");
  const nlohmann::json report_a = read_json(runs.a / "report.json"), report_b = read_json(runs.b / "report.json");
  ASSERT_EQ(c["runs"].size(), 2u);
  EXPECT_EQ(c["runs"][0]["mean_iteration_s"].get<double>(), report_a["summary"]["mean_iteration_s"].get<double>());
  EXPECT_EQ(c["runs"][1]["mean_iteration_s"].get<double>(), report_b["summary"]["mean_iteration_s"].get<double>());
  EXPECT_EQ(c["runs"][1]["samples_per_s"].get<double>(), report_b["summary"]["samples_per_s"].get<double>());
  // One bucket per tensor against one bucket for the whole model: the two iterations differ.
  EXPECT_NE(c["runs"][0]["mean_iteration_s"].get<double>(), c["runs"][1]["mean_iteration_s"].get<double>());
  // The breakdown's sum over a run's worker-mean fields is its iteration time (the breakdown fills the iteration).
  double sum = 0;
  for (const nlohmann::json& row : c["breakdown"]) sum += row["values"][1].get<double>();
  EXPECT_NEAR(sum, report_b["summary"]["mean_iteration_s"].get<double>(), 1e-9 * sum);
  EXPECT_FALSE(c["links"].empty());
  EXPECT_FALSE(c["critical_path"]["kinds"].empty());

  // The tables name the key with both values; --out writes the same comparison to compare.json.
  const fs::path out = runs.root / "comparison";
  const Outcome tables = dtsim("compare " + runs.a.string() + " " + runs.b.string() + " --out " + out.string());
  ASSERT_EQ(tables.code, 0) << tables.output;
  EXPECT_NE(tables.output.find("strategy.scheduler"), std::string::npos) << tables.output;
  EXPECT_NE(tables.output.find("\"none\""), std::string::npos) << tables.output;
  EXPECT_NE(tables.output.find("mean iteration"), std::string::npos) << tables.output;
  EXPECT_EQ(read_json(out / "compare.json"), c);
}

TEST(Compare, RunsOfDifferentVersionsAreComparedWithAWarning) {
  const TwoRuns runs;
  nlohmann::json report = read_json(runs.b / "report.json");
  report["provenance"]["dtsim_version"] = "0.0.1+gfeedfeedfeed";
  std::ofstream(runs.b / "report.json") << report.dump(2);
  const Outcome o = dtsim("compare " + runs.a.string() + " " + runs.b.string());
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("dtsim: warning: the runs come from different dtsim versions"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("0.0.1+gfeedfeedfeed"), std::string::npos) << o.output;
}

TEST(Compare, FoldersThatAreNotRunsAreRefusedWithWhatIsAllowed) {
  const fs::path root = temporary_folder("bad");
  fs::create_directories(root / "empty");
  fs::create_directories(root / "garbage");
  std::ofstream(root / "garbage" / "report.json") << "{\"not\": \"a report\"}";
  fs::create_directories(root / "sweep");
  std::ofstream(root / "sweep" / "results.csv") << "point\n";
  const std::string allowed = "give the output folder of `dtsim run --out DIR` (it holds report.json)";
  const std::pair<std::string, std::string> cases[] = {
      {(root / "missing").string(), (root / "missing").string() + ": no such folder; " + allowed},
      {(root / "empty").string(), (root / "empty").string() + ": no report.json in this folder; " + allowed},
      {(root / "garbage").string(),
       (root / "garbage" / "report.json").string() + ": not a dtsim report (a JSON object whose schema is dtsim.report/N); " + allowed},
      {(root / "sweep").string(), (root / "sweep").string() + ": the folder holds a sweep's results, not a run's; " + allowed},
  };
  for (const auto& [folder, message] : cases) {
    const Outcome o = dtsim("compare " + folder + " " + folder);
    EXPECT_EQ(o.code, 2) << o.output;
    EXPECT_EQ(o.output, "dtsim: error: " + message + "\n");
  }
  const Outcome one = dtsim("compare " + (root / "empty").string());
  EXPECT_EQ(one.code, 2);
  EXPECT_NE(one.output.find("give two or more run folders"), std::string::npos) << one.output;
  fs::remove_all(root);
}

}  // namespace
