// The dtsim binary as a user runs it: exit codes, --help, and every file in scenarios/ runs.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>

#include "tests/shell_command.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using dtsim::testing::dtsim;
using dtsim::testing::Outcome;
using dtsim::testing::shell;



fs::path temporary_folder(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("dtsim-cli-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  return dir;
}

TEST(Cli, HelpOnEveryCommand) {
  for (const char* command : {"", "run", "validate", "list", "sweep", "plot", "report", "calibrate", "collective", "platform", "compare"}) {
    const Outcome o = dtsim(std::string(command) + " --help");
    EXPECT_EQ(o.code, 0) << command;
    EXPECT_NE(o.output.find("Usage"), std::string::npos) << command << ": " << o.output;
  }
}

TEST(Cli, CalibrateOnAnNvlinkMeshWritesThatPlatformWithTheFittedNvlink) {
  // Times of one 20 GB/s, 8 us NVLink through the DGX-1's rings (1, 4, 6 rings at 2, 4, 8 GPUs), at sizes where
  // NCCL runs Simple (LL128 below about 16 MiB: alpha_beta_fit_test) and with alphas above NCCL's latency term
  // (8.4 + 3.4 us a hop), which adds nothing then.
  const fs::path dir = temporary_folder("calibrate_mesh");
  fs::create_directories(dir);
  {
    std::ofstream csv(dir / "times.csv");
    csv << "gpus,gpus_per_node,bytes,time_us\n";
    for (const auto& [p, rings] : {std::pair{2, 1}, {4, 4}, {8, 6}})
      for (long n : {67108864L, 268435456L, 1073741824L})
        csv << p << ",8," << n << "," << std::setprecision(17)
            << 2.0 * (p - 1) * (8.0 + std::ceil(double(n) / (p * rings)) / 20e3) << "\n";
  }
  const std::string out = (dir / "fit.toml").string();
  const Outcome o = dtsim("calibrate " + (dir / "times.csv").string() + " --platform dgx1_v100 --name fit --out " + out);
  ASSERT_EQ(o.code, 0) << o.output;
  const Outcome shown = dtsim("platform show " + out);
  ASSERT_EQ(shown.code, 0) << shown.output;
  std::ifstream written(out);
  const std::string text((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("bandwidth = '20GBps'"), std::string::npos) << text;
  EXPECT_NE(text.find("latency = '8us'"), std::string::npos) << text;
  EXPECT_NE(text.find("call_latency = '0us'"), std::string::npos) << text;  // none in these times
  EXPECT_NE(text.find("nvlinks = 'hybrid_cube_mesh'"), std::string::npos) << text;
  const Outcome refused = dtsim("calibrate " + (dir / "times.csv").string() + " --platform pcie_v100");
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.output.find("neither an NVLink mesh nor an NVSwitch node"), std::string::npos) << refused.output;
  // An NVSwitch node: the GPU's port (two a route: latency alpha / 2) and the buffers are written.
  const std::string a100 = (dir / "a100.toml").string();
  const Outcome nvswitch = dtsim("calibrate " + (dir / "times.csv").string() + " --platform dgx_a100 --out " + a100);
  ASSERT_EQ(nvswitch.code, 0) << nvswitch.output;
  EXPECT_EQ(dtsim("platform show " + a100).code, 0);
  std::ifstream switch_file(a100);
  const std::string switch_text((std::istreambuf_iterator<char>(switch_file)), std::istreambuf_iterator<char>());
  EXPECT_NE(switch_text.find("fabric = 'nvswitch'"), std::string::npos) << switch_text;
  EXPECT_NE(switch_text.find("NVSwitch port fitted"), std::string::npos) << switch_text;
  fs::remove_all(dir);
}

TEST(Cli, DefaultScenarioRunsAndWritesReports) {
  const fs::path out = temporary_folder("default");
  const Outcome o = dtsim("run --out " + out.string() + " --set strategy.fidelity=analytic");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("resnet50"), std::string::npos);
  EXPECT_NE(o.output.find("scaling efficiency"), std::string::npos);
  for (const char* file : {"report.json", "summary.csv", "timeline.json"}) EXPECT_TRUE(fs::exists(out / file)) << file;
  std::ifstream csv(out / "summary.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "iteration,time_s,samples_per_s,scaling_efficiency,forward_s,backward_s,update_s,exposed_comm_s,idle_s");
  fs::remove_all(out);
}

TEST(Cli, NcclRunNamesEachBucketsAlgorithmAndProtocol) {
  const fs::path out = temporary_folder("nccl");
  const Outcome o = dtsim("run --out " + out.string() + " --set strategy.fidelity=analytic" +
                          " --set strategy.collective=nccl --set strategy.nccl_proto=LL");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("  nccl       ring/LL x"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find(" tree/LL x"), std::string::npos) << o.output;
  std::ifstream report(out / "report.json");
  std::stringstream json;
  json << report.rdbuf();
  EXPECT_NE(json.str().find("\"nccl_choice_per_bucket\""), std::string::npos);
  fs::remove_all(out);
}

TEST(Cli, BadInputExitsWithTwoAndALocatedMessage) {
  const Outcome o = dtsim("run --set workers=0");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.output,
            "dtsim: error: --set workers=0: 'workers' = 0 is out of range; allowed: 1 to 1048576\n");
  EXPECT_EQ(dtsim("list nothing").code, 2);
  EXPECT_EQ(dtsim("frobnicate").code, 2);
  EXPECT_EQ(dtsim("validate /nonexistent.toml").code, 2);
}

TEST(Cli, ARunThatDoesNotFitIsRefusedBeforeSimulatingAndValidateSaysSo) {
  const std::string file = std::string(DTSIM_SOURCE_DIR) + "/scenarios/default.toml";
  const fs::path out = temporary_folder("refused");
  for (const std::string& command : {"run --out " + out.string() + " ", std::string("validate ")}) {
    const Outcome o = dtsim(command + file + " --set model.name=gpt2_medium --set batch_size=512");
    EXPECT_EQ(o.code, 2) << o.output;
    EXPECT_NE(o.output.find("gpt2_medium at batch 512 needs 2.47 TiB per GPU (every worker), more than the v100's "
                            "16.00 GiB; make it fit with one of:\n    batch_size = 2 or less\n"),
              std::string::npos)
        << o.output;
  }
  EXPECT_FALSE(fs::exists(out)) << "a refused run claimed its output folder";
  // The largest models do not fit any GPU under data parallelism; validate still shows their memory.
  const Outcome big = dtsim("validate " + file + " --set model.name=llama3_405b --set memory.check=warn");
  EXPECT_EQ(big.code, 0) << big.output;
  EXPECT_NE(big.output.find("memory per GPU (every worker): DOES NOT FIT"), std::string::npos) << big.output;
  EXPECT_NE(big.output.find("405,853,388,800 parameters x 4 B (fp32)"), std::string::npos) << big.output;
}

TEST(Cli, SetTakesOneValueSoTheScenarioCanFollow) {
  const std::string file = std::string(DTSIM_SOURCE_DIR) + "/tests/sim/scenario/good/minimal.toml";
  const Outcome o = dtsim("validate --set workers=2 --set strategy.scheduler=none " + file);
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("2 workers"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("none"), std::string::npos) << o.output;
}

TEST(Cli, CollectiveIsTheSimulatorsNcclTests) {
  const Outcome o = dtsim("collective --platform star_16_10gbe --algorithm ring --workers 16 --sizes 1MiB,4MiB "
                          "--fidelity analytic --format csv");
  ASSERT_EQ(o.code, 0) << o.output;
  std::istringstream lines(o.output);
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  EXPECT_EQ(header, "bytes,count,type,algorithm,algbw_GBps,busbw_GBps,time_s");
  // 2(p-1) alpha + 2(p-1)/p n beta with alpha = 30 us (two 15 us links) and beta = 1 / 1.25 GB/s.
  const double expected = 30 * 30e-6 + 30.0 / 16 * 1048576 / 1.25e9;
  EXPECT_EQ(first.substr(0, first.find(',')), "1048576");
  EXPECT_NEAR(std::stod(first.substr(first.rfind(',') + 1)), expected, 1e-9 * expected);
  EXPECT_NE(dtsim("collective --platform star_16_10gbe --algorithm mpich_auto --workers 16 --sizes 1KiB:1MiB")
                .output.find("recursive_doubling"),
            std::string::npos);
  // nccl (and auto) add NCCL's (algorithm, protocol) per size: the tree with LL for small messages on 10 GbE.
  const Outcome nccl = dtsim("collective --platform star_16_10gbe --algorithm auto --workers 16 --sizes 1KiB "
                             "--fidelity analytic --format csv");
  ASSERT_EQ(nccl.code, 0) << nccl.output;
  EXPECT_EQ(nccl.output.substr(0, nccl.output.find('\n')),
            "bytes,count,type,algorithm,algbw_GBps,busbw_GBps,time_s,nccl_choice,nccl_model_s");
  EXPECT_NE(nccl.output.find("1024,256,float,tree,"), std::string::npos) << nccl.output;
  EXPECT_NE(nccl.output.find(",tree/LL,"), std::string::npos) << nccl.output;
  const Outcome forced = dtsim("collective --platform star_16_10gbe --algorithm nccl --nccl-algo ring "
                               "--nccl-proto Simple --workers 16 --sizes 1KiB --fidelity analytic --format csv");
  EXPECT_NE(forced.output.find(",ring/Simple,"), std::string::npos) << forced.output;
  const std::string four = "collective --platform star_16_10gbe --workers 4 --sizes 1KiB ";
  EXPECT_EQ(dtsim(four + "--algorithm ring --nccl-algo tree").code, 2);  // not NCCL's collective
  EXPECT_EQ(dtsim(four + "--algorithm nccl --nccl-proto ll").code, 2);   // NCCL writes LL
  EXPECT_EQ(dtsim("collective --platform star_16_10gbe --workers 17 --sizes 1MiB").code, 2);
  EXPECT_EQ(dtsim("collective --platform star_16_10gbe --workers 4 --sizes 1MiBs").code, 2);
}

/// The csv fields of `line`.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

TEST(Cli, CollectiveMeasuresEveryNcclTestsOperationWithItsBusBandwidthFactor) {
  // 16 hosts of a 10 GbE star (1.25 GB/s, 15 us a link): alpha = 30 us, beta = 1 / 1.25 GB/s.
  const std::string run = "collective --platform star_16_10gbe --workers 16 --sizes 16MiB --fidelity analytic --format csv ";
  const double n = 16 << 20, alpha = 30e-6, beta = 1 / 1.25e9;
  struct Case {
    const char* op;
    double factor;
    double time_s;  ///< closed form, written out here
    const char* choice;
  };
  for (const Case& c : {
           // All-to-all: every host's link carries its 15 chunks of n/16 at once.
           Case{"alltoall", 15.0 / 16, alpha + 15 * (n / 16) * beta, "p2p/Simple"},
           // Send/recv: one hop each.
           Case{"sendrecv", 1.0, alpha + n * beta, "p2p/Simple"},
       }) {
    const Outcome o = dtsim(run + "--op " + c.op);
    ASSERT_EQ(o.code, 0) << o.output;
    std::istringstream lines(o.output);
    std::string header, row;
    std::getline(lines, header);
    std::getline(lines, row);
    EXPECT_EQ(header, "bytes,count,type,algorithm,algbw_GBps,busbw_GBps,time_s,nccl_choice,nccl_model_s");
    const std::vector<std::string> f = fields(row);
    ASSERT_EQ(f.size(), 9u) << row;
    EXPECT_EQ(f[0], "16777216");
    EXPECT_EQ(f[1], "4194304");  // floats
    EXPECT_EQ(f[2], "float");
    EXPECT_EQ(f[3], "p2p");
    EXPECT_NEAR(std::stod(f[6]), c.time_s, 1e-9 * c.time_s) << c.op;
    EXPECT_NEAR(std::stod(f[5]), std::stod(f[4]) * c.factor, 1e-9) << c.op;
    EXPECT_NEAR(std::stod(f[4]), n / c.time_s / 1e9, 1e-9) << c.op;
    EXPECT_EQ(f[7], c.choice);
    EXPECT_EQ(f[8], "");  // NCCL has no model of its point-to-point calls
  }
  // All-gather and reduce-scatter: NCCL's ring with its choice and model; busbw = algbw x 15/16.
  for (const char* op : {"allgather", "reduce_scatter"}) {
    std::istringstream lines(dtsim(run + "--op " + op + " -d half").output);
    std::string header, row;
    std::getline(lines, header);
    std::getline(lines, row);
    const std::vector<std::string> f = fields(row);
    ASSERT_EQ(f.size(), 9u) << row;
    EXPECT_EQ(f[1], "8388608");  // halves
    EXPECT_EQ(f[3], "ring");
    EXPECT_EQ(f[7].substr(0, 5), "ring/");
    EXPECT_NEAR(std::stod(f[5]), std::stod(f[4]) * 15 / 16, 1e-9);
    EXPECT_GT(std::stod(f[8]), 0);
  }
  // The table names the factor.
  EXPECT_NE(dtsim("collective --platform star_16_10gbe --workers 16 --sizes 1MiB --op broadcast").output.find(
                "busbw = algbw x 1 = 1"),
            std::string::npos);
  EXPECT_NE(dtsim("collective --platform star_16_10gbe --workers 16 --sizes 1MiB --op allgather").output.find(
                "busbw = algbw x (n-1)/n = 0.9375"),
            std::string::npos);
  // Mistakes: an unknown operation or type, an algorithm the operation does not have, NCCL_ALGO off the all-reduce,
  // NCCL_PROTO on point-to-point.
  const std::string four = "collective --platform star_16_10gbe --workers 4 --sizes 1KiB ";
  EXPECT_EQ(dtsim(four + "--op gather").output,
            "dtsim: error: --op gather: unknown operation 'gather'; known: allreduce, allgather, reduce_scatter, "
            "alltoall, broadcast, sendrecv\n");
  EXPECT_EQ(dtsim(four + "-d float8").code, 2);
  EXPECT_EQ(dtsim(four + "--op allgather --algorithm bruck").code, 2);
  EXPECT_EQ(dtsim(four + "--op allgather --nccl-algo tree").code, 2);
  EXPECT_EQ(dtsim(four + "--op alltoall --nccl-proto LL").code, 2);
  EXPECT_EQ(dtsim(four + "--op broadcast --nccl-proto LL --format csv").code, 0);
  EXPECT_EQ(dtsim("collective --platform star_16_10gbe --workers 1 --sizes 1KiB --op alltoall").output,
            "dtsim: error: --workers 1: one rank moves nothing: no time to measure; at least 2\n");
}

/// The first column of each csv row after the header.
std::string first_column(const std::string& csv) {
  std::istringstream lines(csv);
  std::string line, out;
  std::getline(lines, line);
  while (std::getline(lines, line)) out += (out.empty() ? "" : " ") + line.substr(0, line.find(','));
  return out;
}

TEST(Cli, CollectiveTakesNcclTestsSizes) {
  const std::string run = "collective --platform star_16_10gbe --workers 4 --fidelity analytic --format csv ";
  EXPECT_EQ(first_column(dtsim(run + "-b 8 -e 64 -f 2").output), "8 16 32 64");
  EXPECT_EQ(first_column(dtsim(run + "-b 1K -e 1M -f 32").output), "1024 32768 1048576");
  EXPECT_EQ(first_column(dtsim(run + "-b 1M -e 3M").output), "1048576 2097152 3145728");  // -i 1M, as nccl-tests
  EXPECT_EQ(first_column(dtsim(run + "-b 100 -e 250 -i 50").output), "100 150 200 250");
  EXPECT_EQ(first_column(dtsim(run + "-b 1G").output), "1073741824");
  EXPECT_EQ(first_column(dtsim(run + "--sizes 4096,1M,64MiB").output), "4096 1048576 67108864");
  EXPECT_EQ(dtsim(run + "-b 8 -e 4").output, "dtsim: error: -b 8 -e 4: -e is below -b; -b MIN -e MAX with MIN <= MAX\n");
  EXPECT_EQ(dtsim(run + "-b 8 -e 1G -i 1").output,
            "dtsim: error: -b 8 -e 1G -i 1: more than 10000 sizes; a larger -i, or -f 2 for powers of two\n");
  EXPECT_EQ(dtsim(run).output, "dtsim: error: dtsim collective: no sizes given; --sizes LIST, or nccl-tests' -b MIN "
                               "[-e MAX] [-f FACTOR | -i STEP]\n");
  EXPECT_EQ(dtsim(run + "-b 1 -e 8 -f 2 -i 1").code, 2);
  EXPECT_EQ(dtsim(run + "--sizes 1M -b 1").code, 2);
  // --help names the columns the csv has.
  std::istringstream csv(dtsim(run + "--sizes 1M").output);
  std::string header;
  std::getline(csv, header);
  std::istringstream nccl_csv(dtsim(run + "--sizes 1M --algorithm nccl").output);
  std::string nccl_header;
  std::getline(nccl_csv, nccl_header);
  ASSERT_EQ(nccl_header.rfind(header + ",", 0), 0u) << nccl_header;
  EXPECT_NE(dtsim("collective --help").output.find("(header: " + header + "; nccl and auto add " +
                                                   nccl_header.substr(header.size() + 1) + ")"),
            std::string::npos);
}

TEST(Cli, PlatformShow) {
  const Outcome o = dtsim("platform show v100_4x4_10gbe");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("16 GPUs on 4 nodes"), std::string::npos) << o.output;
  EXPECT_NE(dtsim("platform show star_16_10gbe --xml").output.find("<platform version=\"4.1\">"), std::string::npos);
  EXPECT_EQ(dtsim("platform show nowhere").code, 2);
}

TEST(Cli, ListsEveryRegistry) {
  for (const char* what : {"models", "gpus", "collectives", "schedulers", "sync", "platforms"}) {
    const Outcome o = dtsim(std::string("list ") + what);
    EXPECT_EQ(o.code, 0) << what;
    EXPECT_FALSE(o.output.empty()) << what;
  }
  EXPECT_NE(dtsim("list models").output.find("25557032"), std::string::npos);
  EXPECT_NE(dtsim("list gpus").output.find("memory   80 GiB"), std::string::npos);
  // The survey's Table 5: asp and ssp have no all-reduce form, ssp no gossip form.
  const std::string table = dtsim("list sync").output;
  EXPECT_NE(table.find("allreduce    yes             -               -               yes"), std::string::npos) << table;
  EXPECT_NE(table.find("gossip       yes             -               yes"), std::string::npos) << table;
}

TEST(Cli, SameScenarioSameBytes) {
  // The same command twice (report.json records the command line, so the folder is the same).
  const fs::path a = temporary_folder("a"), b = temporary_folder("b");
  ASSERT_EQ(dtsim("run --out " + a.string()).code, 0);
  fs::copy(a, b, fs::copy_options::recursive);
  ASSERT_EQ(dtsim("run --out " + a.string()).code, 0);
  for (const char* file : {"report.json", "summary.csv", "timeline.json"}) {
    std::ifstream fa(a / file), fb(b / file);
    std::stringstream sa, sb;
    sa << fa.rdbuf();
    sb << fb.rdbuf();
    EXPECT_EQ(sa.str(), sb.str()) << file;
  }
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST(Scenarios, EverySweepInScenariosRuns) {
  // Run from a temporary folder: the sweeps' output folders land where dtsim runs.
  const fs::path here = temporary_folder("sweeps");
  fs::create_directories(here);
  int ran = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(DTSIM_SOURCE_DIR) / "scenarios/sweeps")) {
    if (entry.path().extension() != ".toml") continue;
    const Outcome o = shell("cd " + here.string() + " && " + DTSIM_BINARY + " sweep " + entry.path().string() + " -j 2");
    EXPECT_TRUE(fs::exists(here / (entry.path().stem().string() + "-out/results.csv"))) << entry.path();
    EXPECT_EQ(o.code, 0) << entry.path() << "\n" << o.output;
    ++ran;
  }
  EXPECT_GE(ran, 1);
  fs::remove_all(here);
}

}  // namespace
