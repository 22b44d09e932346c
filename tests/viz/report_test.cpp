// `dtsim report` answers the capacity question: what bounds the run (a communication-bound and a compute-bound
// scenario give different answers), what-ifs that dtsim accepts, and a stopped run's banner.
#include <gtest/gtest.h>

#include <regex>
#include <vector>

#include "tests/viz/viz_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using dtsim::testing::dtsim;
using dtsim::testing::Outcome;

std::string scenario(const std::string& name) { return std::string(DTSIM_SOURCE_DIR) + "/tests/viz/scenarios/" + name + ".toml"; }

/// Runs a scenario (with `overrides`) and its report; returns the page (and the run's console in `console`).
std::string report_of(const std::string& name, const fs::path& dir, const std::string& overrides = "",
                      std::string* console = nullptr) {
  const Outcome run = dtsim("run " + scenario(name) + " " + overrides + " --out " + (dir / name).string());
  EXPECT_EQ(run.code, 0) << run.output;
  if (console) *console = run.output;
  const Outcome report = dtsim("report " + (dir / name).string());
  EXPECT_EQ(report.code, 0) << report.output;
  return dtsim::testing::file_text(dir / name / "report.html");
}

/// The what-if commands the page proposes, as written in its <code> cells.
std::vector<std::string> what_ifs(const std::string& page) {
  std::vector<std::string> commands;
  const std::regex code("<tr><td><code>([^<]*)</code></td>");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), code); it != std::sregex_iterator(); ++it)
    commands.push_back((*it)[1]);
  return commands;
}

/// Every proposed command names this scenario and is accepted by `dtsim validate` (never run).
void expect_valid_what_ifs(const std::string& page, const std::string& name) {
  const std::vector<std::string> commands = what_ifs(page);
  EXPECT_FALSE(commands.empty());
  const std::string prefix = "dtsim run " + scenario(name) + " ";
  for (const std::string& c : commands) {
    ASSERT_EQ(c.rfind(prefix, 0), 0u) << c;
    const Outcome v = dtsim("validate " + scenario(name) + " " + c.substr(prefix.size()));
    EXPECT_EQ(v.code, 0) << c << "\n" << v.output;
  }
}

TEST(Report, CommunicationBoundRunSaysSoWithTheLinksAndProposesFewerBucketsAndBytes) {
  if (!dtsim::testing::have_matplotlib()) GTEST_SKIP() << "python3-matplotlib is not installed";
  const fs::path dir = dtsim::testing::fresh_folder("communication");
  std::string console;
  const std::string page = report_of("communication_bound", dir, "", &console);
  // The console gives the same answer, and proposes no what-if it has not simulated: explain ranks them.
  const std::string answer = "Bounded by gradient exchanges: 298 ms (88 %) of the critical path of the last iteration";
  EXPECT_NE(console.find(answer), std::string::npos) << console;
  EXPECT_EQ(console.find("  try: "), std::string::npos) << console;
  EXPECT_NE(console.find("what-ifs: `dtsim explain "), std::string::npos) << console;
  EXPECT_NE(page.find("data-bound=\"communication\""), std::string::npos);
  EXPECT_NE(page.find(answer), std::string::npos);
  EXPECT_NE(page.find("<b>340 ms</b>per iteration"), std::string::npos);
  EXPECT_NE(page.find("<b>36 %</b>scaling efficiency"), std::string::npos);
  EXPECT_NE(page.find("Busiest link: nic0_UP carries 182.80 MiB per iteration and is busy 45 % of it"), std::string::npos);
  EXPECT_NE(page.find("--set strategy.scheduler=mg_wfbp"), std::string::npos);
  EXPECT_NE(page.find("--set compression.compressor=fp16"), std::string::npos);
  EXPECT_NE(page.find("--set platform.inter_link.bandwidth=25Gbps"), std::string::npos);  // 10GbE's next: 25GbE
  EXPECT_NE(page.find("not simulated yet: <code>dtsim explain</code>"), std::string::npos);
  EXPECT_EQ(page.find("class=\"stopped\""), std::string::npos);
  expect_valid_what_ifs(page, "communication_bound");
  fs::remove_all(dir);
}

TEST(Report, ComputeBoundRunSaysSoAndProposesFasterGpusWithTheirPlatform) {
  if (!dtsim::testing::have_matplotlib()) GTEST_SKIP() << "python3-matplotlib is not installed";
  const fs::path dir = dtsim::testing::fresh_folder("compute");
  // Overrides that change nothing: the platform's own latency, the file's own iterations.
  const std::string page = report_of("compute_bound", dir, "--set iterations=2 --set platform.inter_link.latency=1.5us");
  EXPECT_NE(page.find("data-bound=\"compute\""), std::string::npos);
  EXPECT_NE(page.find("Bounded by compute: computation is 126 ms (99 %) of the critical path"), std::string::npos);
  EXPECT_NE(page.find("--set platform=a100_8x8_200gbib --set gpu.profile=a100"), std::string::npos);
  EXPECT_EQ(page.find("strategy.scheduler="), std::string::npos);  // communication is not the problem
  for (const std::string& c : what_ifs(page)) {  // the run's own overrides come along, less those replaced
    EXPECT_NE(c.find(" --set iterations=2 --set "), std::string::npos) << c;
    const bool new_platform = c.find("--set platform=") != std::string::npos;
    EXPECT_EQ(c.find("platform.inter_link.latency") == std::string::npos, new_platform) << c;
  }
  expect_valid_what_ifs(page, "compute_bound");
  fs::remove_all(dir);
}

TEST(Report, StoppedRunSaysWhenAndWhyAboveEverythingAndOnTheConsole) {
  if (!dtsim::testing::have_matplotlib()) GTEST_SKIP() << "python3-matplotlib is not installed";
  const fs::path dir = dtsim::testing::fresh_folder("stopped");
  const Outcome run = dtsim("run " + scenario("stopped") + " --out " + (dir / "stopped").string());
  ASSERT_EQ(run.code, 0) << run.output;
  const std::string stopped = "STOPPED at 100 ms after 2 of 3 iterations";
  // The console says it before the iteration table, and again as its last word on the run.
  const auto console = run.output.find("STOPPED at 100.000 ms after 2 of 3 iterations: worker 1 crashed; the job "
                                       "cannot go on without worker 1");
  ASSERT_NE(console, std::string::npos) << run.output;
  EXPECT_LT(console, run.output.find(" iter "));
  EXPECT_EQ(dtsim::testing::count(run.output, "STOPPED at"), 2);
  ASSERT_EQ(dtsim("report " + (dir / "stopped").string()).code, 0);
  const std::string page = dtsim::testing::file_text(dir / "stopped/report.html");
  const auto banner = page.find("<div class=\"stopped\" role=\"alert\"><strong>" + stopped + "</strong>: worker 1 "
                                "crashed; the job cannot go on without worker 1.");
  ASSERT_NE(banner, std::string::npos) << page.substr(0, 3000);
  EXPECT_LT(banner, page.find("class=\"answer\""));  // first thing under the title
  EXPECT_NE(page.find("<li>100.000 ms: worker 1 crashed</li>"), std::string::npos);  // the failures list
  fs::remove_all(dir);
}

}  // namespace

namespace {

TEST(Report, PageShowsTheMemoryBreakdownAndTheModelFlopsUtilisation) {
  if (!dtsim::testing::have_matplotlib()) GTEST_SKIP() << "python3-matplotlib is not installed";
  const fs::path dir = dtsim::testing::fresh_folder("memory");
  std::string console;
  const std::string page = report_of("compute_bound", dir, "", &console);
  EXPECT_NE(console.find("  memory     3.72 GiB of 16.00 GiB per GPU (23.3%): weights 97.49 MiB"), std::string::npos)
      << console;
  EXPECT_NE(console.find("model FLOPs utilisation "), std::string::npos) << console;
  EXPECT_NE(page.find("model FLOPs utilisation</div>"), std::string::npos);
  EXPECT_NE(page.find("<b>3.72 GiB</b>memory per GPU of 16.00 GiB</div>"), std::string::npos);
  EXPECT_NE(page.find("<h3>Memory per GPU (every worker)</h3>"), std::string::npos);
  EXPECT_NE(page.find("<tr><td>communication buffers</td><td>97.49 MiB</td>"), std::string::npos);  // DDP's buckets
  EXPECT_EQ(page.find("would not fit"), std::string::npos);
  const std::string over = report_of("compute_bound", dir, "--set batch_size=256 --set memory.check=warn");
  EXPECT_NE(over.find("The peak exceeds the GPU's memory: this run would not fit"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
