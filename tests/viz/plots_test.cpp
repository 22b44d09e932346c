// `dtsim plot` and `dtsim report` as a user runs them; the HTML page is rendered in headless Chromium.
#include <gtest/gtest.h>

#include "tests/shell_command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using dtsim::testing::dtsim;
using dtsim::testing::Outcome;
using dtsim::testing::shell;



std::string binary() { return DTSIM_BINARY; }

bool have_matplotlib() { return shell("/usr/bin/python3 -c 'import matplotlib'").code == 0; }

fs::path folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("dtsim-viz-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Plot, SweepGivesScalingBreakdownAndHeatmapInPngAndSvg) {
  if (!have_matplotlib()) GTEST_SKIP() << "python3-matplotlib is not installed (apt-get install python3-matplotlib)";
  const fs::path dir = folder("sweep");
  std::ofstream(dir / "sweep.toml") << "base = \"" << DTSIM_SOURCE_DIR << "/tests/sim/scenario/good/minimal.toml\"\n"
                                    << "[set]\n\"strategy.fidelity\" = \"analytic\"\n"
                                    << "[[axis]]\nkey = \"workers\"\nvalues = [2, 4, 8]\n"
                                    << "[[axis]]\nkey = \"strategy.scheduler\"\nvalues = [\"wfbp\", \"none\"]\n";
  ASSERT_EQ(shell(binary() + " sweep " + (dir / "sweep.toml").string()).code, 0);
  const Outcome o = shell(binary() + " plot " + (dir / "sweep-out").string());
  ASSERT_EQ(o.code, 0) << o.output;
  for (const char* name : {"scaling", "breakdown", "heatmap"})
    for (const char* ext : {".png", ".svg"}) EXPECT_TRUE(fs::exists(dir / "sweep-out/plots" / (std::string(name) + ext))) << name << ext;
  fs::remove_all(dir);
}

TEST(Plot, RefusesAFolderWithoutResults) {
  const fs::path dir = folder("empty");
  const Outcome o = shell(binary() + " plot " + dir.string());
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.output.find("no report.json or results.csv in this folder"), std::string::npos) << o.output;
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
  EXPECT_NE(dom.output.find("<figcaption>breakdown</figcaption>"), std::string::npos);
  EXPECT_NE(dom.output.find("<figcaption>gantt</figcaption>"), std::string::npos);
  EXPECT_NE(dom.output.find("resnet50"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
