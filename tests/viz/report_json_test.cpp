// report.json's per-worker and per-link lists: an entry per run of consecutive workers alike and per class of
// links (schema dtsim.report/3), exactly what every worker and link holds.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/viz/viz_fixture.hpp"
#include "viz/reports.hpp"

namespace {

namespace fs = std::filesystem;

std::string written(const dtsim::run::RunResult& r, const std::vector<std::string>& outputs) {
  const fs::path path = fs::temp_directory_path() / ("report_json_test_" + std::to_string(::getpid()) + ".json");
  dtsim::viz::write_report_json(path.string(), dtsim::viz::report_json(r, outputs));
  std::string text = dtsim::testing::file_text(path);
  fs::remove(path);
  return text;
}

TEST(ReportJson, WorkersAlikeInARowShareAnEntry) {
  dtsim::run::RunResult r;
  r.info.workers = 6;
  r.traffic = {{5, 7}, {5, 7}, {5, 7}, {std::int64_t{1} << 40, 7}, {5, 7}, {5, 7}};
  r.workers = {{1, 0, 0, 0.5}, {1, 0, 0, 0.5}, {1, 0, 0, 0.5}, {1, 0, 0, 0.5}, {1, 0, 0, 0.5}, {2, 1, 1, 1e-05}};
  const nlohmann::json report = dtsim::viz::report_json(r, {});
  EXPECT_EQ(report["schema"], "dtsim.report/3");
  EXPECT_EQ(report["traffic"], nlohmann::json::parse(R"([
    {"worker": 0, "count": 3, "bytes_sent": 5, "bytes_received": 7},
    {"worker": 3, "count": 1, "bytes_sent": 1099511627776, "bytes_received": 7},
    {"worker": 4, "count": 2, "bytes_sent": 5, "bytes_received": 7}])"));
  EXPECT_EQ(report["workers"], nlohmann::json::parse(R"([
    {"worker": 0, "count": 5, "iterations": 1, "dropped": 0, "skipped": 0, "waiting_s": 0.5},
    {"worker": 5, "count": 1, "iterations": 2, "dropped": 1, "skipped": 1, "waiting_s": 1e-05}])"));
  r.traffic.clear();
  r.workers.clear();
  EXPECT_EQ(dtsim::viz::report_json(r, {})["traffic"], nlohmann::json::array());
  EXPECT_EQ(dtsim::viz::report_json(r, {})["workers"], nlohmann::json::array());
}

TEST(ReportJson, LinksAreClassesWithTheirCount) {
  dtsim::run::RunResult r;
  r.links = {{"nic0_UP", 1.5e9, 0.25, 25e9, 25e9, 4}, {"gpu0_DOWN", 0.1, 1.0 / 3.0, 1e9, 2e9, 1}};
  const nlohmann::json links = dtsim::viz::report_json(r, {})["links"];
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0], nlohmann::json::parse(R"({"name": "nic0_UP", "count": 4, "bytes_per_iteration": 1.5e9,
    "utilisation": 0.25, "bandwidth_Bps": 25e9, "line_rate_Bps": 25e9})"));
  EXPECT_EQ(links[1]["count"], 1);
  EXPECT_EQ(links[1]["line_rate_Bps"], 2e9);
}

TEST(ReportJson, WrittenIsTheReportsDump) {
  dtsim::run::RunResult r;
  r.traffic = {{0, 0}, {1, 2}};
  r.links = {{"node0_nic\"0\"_UP", 1.5e9, 0.25}};
  const std::vector<std::string> outputs = {"report.json", "summary.csv"};
  EXPECT_EQ(written(r, outputs), dtsim::viz::report_json(r, outputs).dump(2) + "\n");
}

}  // namespace
