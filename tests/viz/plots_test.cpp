// `dtsim plot` and `dtsim report` as a user runs them; the HTML page is rendered in headless Chromium.
#include <gtest/gtest.h>

#include "tests/viz/viz_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using dtsim::testing::count;
using dtsim::testing::have_matplotlib;
using dtsim::testing::Outcome;
using dtsim::testing::shell;

std::string binary() { return DTSIM_BINARY; }

fs::path folder(const std::string& name) { return dtsim::testing::fresh_folder(name); }

TEST(Plot, SweepGivesScalingBreakdownAndHeatmapInPngAndSvg) {
  if (!have_matplotlib()) GTEST_SKIP() << "python3-matplotlib is not installed (apt-get install python3-matplotlib)";
  const fs::path dir = folder("sweep");
  std::ofstream(dir / "sweep.toml") << "base = \"" << DTSIM_SOURCE_DIR << "/tests/sim/scenario/good/minimal.toml\"\n"
                                    << "[set]\n\"strategy.fidelity\" = \"analytic\"\n"
                                    << "[[axis]]\nkey = \"workers\"\nvalues = [2, 4, 8]\n"
                                    << "[[axis]]\nkey = \"strategy.scheduler\"\nvalues = [\"wfbp\", \"none\"]\n";
  ASSERT_EQ(shell("cd " + dir.string() + " && " + binary() + " sweep sweep.toml").code, 0);  // writes ./sweep-out
  const Outcome o = shell(binary() + " plot " + (dir / "sweep-out").string());
  ASSERT_EQ(o.code, 0) << o.output;
  for (const char* name : {"scaling", "breakdown", "heatmap"})
    for (const char* ext : {".png", ".svg"}) EXPECT_TRUE(fs::exists(dir / "sweep-out/plots" / (std::string(name) + ext))) << name << ext;
  fs::remove_all(dir);
}

TEST(Plot, RunGivesOneWorkersTimelineExposureAndLinks) {
  if (!have_matplotlib()) GTEST_SKIP() << "python3-matplotlib is not installed (apt-get install python3-matplotlib)";
  const fs::path dir = folder("run");
  ASSERT_EQ(shell(binary() + " run --out " + (dir / "run").string()).code, 0);
  const Outcome o = shell(binary() + " plot " + (dir / "run").string());
  ASSERT_EQ(o.code, 0) << o.output;
  for (const char* name : {"breakdown", "gantt", "exposure", "links"})
    for (const char* ext : {".png", ".svg"}) EXPECT_TRUE(fs::exists(dir / "run/plots" / (std::string(name) + ext))) << name << ext;
  // Lanes are merged (a phase of 161 layers is one bar) and one worker stands for 16 alike: the default run's
  // Gantt drew 24,000 bars in 3.4 MB of SVG before.
  const std::string gantt = dtsim::testing::file_text(dir / "run/plots/gantt.svg");
  EXPECT_LT(gantt.size(), 200'000u);
  EXPECT_NE(gantt.find("worker 0 comm"), std::string::npos);
  EXPECT_EQ(gantt.find("worker 1 "), std::string::npos);
  fs::remove_all(dir);
}

TEST(Plot, RefusesAFolderWithoutResults) {
  const fs::path dir = folder("empty");
  const Outcome o = shell(binary() + " plot " + dir.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("no report.json, results.csv or plan.json in this folder"), std::string::npos) << o.output;
  fs::remove_all(dir);
}

TEST(Report, HtmlPageShowsTablesAndPlotsInChromium) {
  if (!have_matplotlib()) GTEST_SKIP() << "python3-matplotlib is not installed (apt-get install python3-matplotlib)";
  if (shell("command -v chromium").code != 0) GTEST_SKIP() << "chromium is not installed (apt-get install chromium)";
  const fs::path dir = folder("report");
  ASSERT_EQ(shell(binary() + " run --out " + (dir / "run").string() + " --set strategy.fidelity=analytic").code, 0);
  const Outcome report = shell(binary() + " report " + (dir / "run").string());
  ASSERT_EQ(report.code, 0) << report.output;
  // The page is self-contained: move it away from the run folder before rendering.
  fs::rename(dir / "run/report.html", dir / "alone.html");
  fs::remove_all(dir / "run");
  const Outcome dom = shell("chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                            "--disable-background-networking --disable-component-update --disable-sync "
                            "--user-data-dir=" + (dir / "profile").string() + " --dump-dom file://" +
                            (dir / "alone.html").string());
  ASSERT_EQ(dom.code, 0) << dom.output;
  EXPECT_GE(count(dom.output, "<table"), 4) << dom.output.substr(0, 2000);
  EXPECT_GE(count(dom.output, "<svg"), 2);
  for (const char* plot : {"breakdown", "gantt", "exposure"})
    EXPECT_NE(dom.output.find("<figure id=\"" + std::string(plot) + "\">"), std::string::npos) << plot;
  EXPECT_NE(dom.output.find("resnet50"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
