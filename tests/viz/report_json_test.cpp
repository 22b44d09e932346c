// report.json as written (its per-worker and per-link lists entry by entry) is the text of the report as a json
// object dumped whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "tests/viz/viz_fixture.hpp"
#include "viz/reports.hpp"

namespace {

namespace fs = std::filesystem;

std::string written(const dtsim::run::RunResult& r, const std::vector<std::string>& outputs) {
  const fs::path path = fs::temp_directory_path() / ("report_json_test_" + std::to_string(::getpid()) + ".json");
  dtsim::viz::write_report_json(path.string(), r, outputs);
  std::string text = dtsim::testing::file_text(path);
  fs::remove(path);
  return text;
}

TEST(ReportJson, WrittenListsAreTheWholeReportsDump) {
  dtsim::run::RunResult r;
  r.info.workers = 3;
  r.traffic = {{0, 0}, {std::int64_t{1} << 40, 123456789}, {-1, 7}};
  r.workers = {{1, 0, 0, 0.0}, {2, 1, 1, 1e-05}, {3, 0, 2, 123456.789}};
  r.links = {{"node0_nic\"0\"_UP", 1.5e9, 0.25}, {"spine\\down", 0.1, 1.0 / 3.0},
             {"x", std::numeric_limits<double>::denorm_min(), 1e300}};
  const std::vector<std::string> outputs = {"report.json", "summary.csv"};
  EXPECT_EQ(written(r, outputs), dtsim::viz::report_json(r, outputs).dump(2) + "\n");
  // Empty lists, as the other architectures leave them.
  r.traffic.clear();
  r.links.clear();
  EXPECT_EQ(written(r, outputs), dtsim::viz::report_json(r, outputs).dump(2) + "\n");
  r.workers.clear();
  EXPECT_EQ(written(r, {}), dtsim::viz::report_json(r, {}).dump(2) + "\n");
}

TEST(ReportJson, DiagnosisReportLeavesOutOnlyThePerWorkerLists) {
  dtsim::run::RunResult r;
  r.traffic = {{1, 2}};
  r.workers = {{1, 0, 0, 0.5}};
  r.links = {{"l", 2.0, 0.5}};
  nlohmann::json whole = dtsim::viz::report_json(r, {}), without = dtsim::viz::report_json_without_workers(r);
  EXPECT_EQ(without["links"], whole["links"]);
  EXPECT_TRUE(without["traffic"].is_string());
  EXPECT_TRUE(without["workers"].is_string());
  whole.erase("traffic");
  whole.erase("workers");
  without.erase("traffic");
  without.erase("workers");
  EXPECT_EQ(without, whole);
}

}  // namespace
