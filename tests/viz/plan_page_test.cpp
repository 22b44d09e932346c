// `dtsim report` and `dtsim plot` of a plan folder: the Pareto fronts, the recommended candidate's timeline, the
// goodput breakdown and what made the answer (viz/plan_page.cpp, viz/plot.py), drawn the same bytes every time.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "tests/viz/viz_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using dtsim::testing::dtsim;
using dtsim::testing::file_text;
using dtsim::testing::Outcome;

/// The closed-form plan of tests/sim/plan (one-GPU nodes, 10 or 100 Gb/s) with failures frequent enough to show:
/// 0.05 failures per GPU-hour, a 95.37 MiB checkpoint written at 10 MB/s, 2 minutes to restart.
fs::path goodput_plan(const std::string& name, int recheck) {
  const fs::path dir = dtsim::testing::fresh_folder(name);
  for (const char* file : {"closed_form_base.toml", "one_gpu_nodes.toml"})
    fs::copy_file(std::string(DTSIM_SOURCE_DIR) + "/tests/sim/plan/" + file, dir / file);
  std::ofstream(dir / "plan.toml") << "base = \"closed_form_base.toml\"\nrecheck = " << recheck << "\n"
                                   << "[job]\nsamples = 320000\n[target]\ntime = \"2h\"\n"
                                   << "[search]\nplatforms = [\"one_gpu_nodes.toml\"]\nnodes = [1, 2, 4, 8]\n"
                                   << "nic = [\"10Gbps\", \"100Gbps\"]\n"
                                   << "[goodput]\ngpu_failure_rate = 0.05\ncheckpoint_write_bandwidth = \"10MBps\"\n"
                                   << "restart_time = \"2min\"\n"
                                   << "[costs.gpu.v100]\nhour = 2.0\nwatts = 300\nnode_watts = 100\n";
  const Outcome o = dtsim("plan " + (dir / "plan.toml").string() + " --out " + (dir / "out").string() + " -j 2");
  EXPECT_EQ(o.code, 0) << o.output;
  return dir / "out";
}

TEST(PlanPage, FrontsTimelineGoodputAndWhatMadeIt) {
  if (!dtsim::testing::have_matplotlib()) GTEST_SKIP() << "python3-matplotlib is not installed";
  const fs::path out = goodput_plan("plan-page", 1);
  const nlohmann::json plan = nlohmann::json::parse(file_text(out / "plan.json"));
  const Outcome report = dtsim("report " + out.string());
  ASSERT_EQ(report.code, 0) << report.output;
  const std::string page = file_text(out / "report.html");
  for (const char* figure : {"pareto", "timeline", "goodput"})
    EXPECT_NE(page.find(std::string("<figure id=\"") + figure + "\"><svg"), std::string::npos) << figure;
  // The timeline is the recommended candidate's flow re-check (re-checks write theirs).
  const int best = plan["recommended"].get<int>();
  ASSERT_GE(best, 0);
  const nlohmann::json& recommended = plan["candidates"][static_cast<std::size_t>(best)];
  ASSERT_TRUE(recommended.contains("flow"));
  EXPECT_EQ(plan["timeline"], recommended["flow"]["run"]);
  EXPECT_TRUE(fs::exists(out / plan["timeline"].get<std::string>() / "timeline.json"));
  EXPECT_NE(page.find("The recommended candidate's last iteration (" + plan["timeline"].get<std::string>() + "/timeline.json"),
            std::string::npos);
  // The goodput table starts with the recommended candidate, at its goodput below 100 %.
  const double fraction = recommended["goodput"]["fraction"].get<double>();
  EXPECT_LT(fraction, 0.999);
  EXPECT_NE(page.find("<h2>Goodput: failures, restarts and checkpoints</h2>"), std::string::npos);
  EXPECT_NE(page.find("<tr><td>* " + recommended["label"].get<std::string>() + "</td>"), std::string::npos) << page;
  // Which dtsim, which command, which settings.
  const nlohmann::json& p = plan["provenance"];
  EXPECT_EQ(p["command_line"], "dtsim plan " + (out.parent_path() / "plan.toml").string() + " --out " + out.string());
  EXPECT_NE(page.find("<h2>Made by</h2>"), std::string::npos);
  EXPECT_NE(page.find("<tr><td>command</td><td>" + p["command_line"].get<std::string>() + "</td></tr>"), std::string::npos);
  EXPECT_NE(page.find("<tr><td>dtsim</td><td>" + p["dtsim_version"].get<std::string>() + " (executable digest " +
                      p["dtsim_digest"].get<std::string>() + ")</td></tr>"),
            std::string::npos);
  EXPECT_NE(page.find("(digest " + p["plan_digest"].get<std::string>() + ")"), std::string::npos);
  EXPECT_NE(page.find("<tr><td>resolved goodput</td>"), std::string::npos);
  const std::string footer = "dtsim " + p["dtsim_version"].get<std::string>() + ": " + p["command_line"].get<std::string>();
  for (const char* plot : {"pareto", "timeline", "goodput"})
    EXPECT_NE(file_text(out / "plots" / (std::string(plot) + ".svg")).find(footer), std::string::npos) << plot;
  // The same folder reports the same bytes (no date, no random ids in the SVGs).
  ASSERT_EQ(dtsim("report " + out.string()).code, 0);
  EXPECT_EQ(file_text(out / "report.html"), page);
  fs::remove_all(out.parent_path());
}

// Without a flow re-check the recommended candidate's analytic run is made once more with its timeline: the same
// iteration as the run the answer used.
TEST(PlanPage, TimelineOfARecommendationNotRecheckedIsItsAnalyticRun) {
  const fs::path out = goodput_plan("plan-timeline", 0);
  const nlohmann::json plan = nlohmann::json::parse(file_text(out / "plan.json"));
  const nlohmann::json& recommended = plan["candidates"][static_cast<std::size_t>(plan["recommended"].get<int>())];
  ASSERT_FALSE(recommended.contains("flow"));
  const std::string run = plan["timeline"].get<std::string>();
  EXPECT_NE(run, recommended["analytic"]["run"].get<std::string>());
  ASSERT_TRUE(fs::exists(out / run / "timeline.json"));
  const nlohmann::json report = nlohmann::json::parse(file_text(out / run / "report.json"));
  EXPECT_EQ(report["summary"]["mean_iteration_s"], recommended["analytic"]["mean_iteration_s"]);
  EXPECT_EQ(report["setup"]["fidelity"], "analytic");
  fs::remove_all(out.parent_path());
}

}  // namespace
