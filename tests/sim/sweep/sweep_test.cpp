// Sweeps as a user runs them: grid and zip points, one process per point, failures recorded, re-runs
// skipping finished points, shards and the Slurm job-array script.
#include <gtest/gtest.h>

#include "tests/sim/sweep/sweep_folder.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/scenario/sweep_spec.hpp"

namespace {

namespace fs = std::filesystem;
using dtsim::testing::lines;
using dtsim::testing::Outcome;
using dtsim::testing::read;
using dtsim::testing::sweep_folder;
using dtsim::testing::sweep_in;

TEST(SweepSpec, GridVariesTheLastAxisFastestAndZipPairsValues) {
  const fs::path dir = sweep_folder("spec", "[[axis]]\nkey = \"workers\"\nvalues = [2, 4]\n"
                                            "[[axis]]\nkey = \"strategy.scheduler\"\nvalues = [\"wfbp\", \"none\", \"ddp\"]\n");
  const auto spec = dtsim::scenario::load_sweep((dir / "sweep.toml").string());
  const auto points = spec.points();
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[1].settings[1].second, "\"none\"");
  EXPECT_EQ(points[3].settings[0].second, "4");
  EXPECT_EQ(spec.output_dir, "sweep-out");  // where the user runs dtsim, not next to the sweep file
  std::ofstream(dir / "zip.toml") << "mode = \"zip\"\n[[axis]]\nkey = \"workers\"\nvalues = [2, 4]\n"
                                     "[[axis]]\nkey = \"batch_size\"\nvalues = [8, 16]\n";
  const auto zip = dtsim::scenario::load_sweep((dir / "zip.toml").string());
  EXPECT_EQ(zip.points().size(), 2u);
  EXPECT_EQ(zip.output_dir, "zip-out");
  fs::remove_all(dir);
}

TEST(SweepSpec, ZipAxesOfDifferentLengthsAreRefused) {
  const fs::path dir = sweep_folder("zip", "mode = \"zip\"\n[[axis]]\nkey = \"workers\"\nvalues = [2, 4]\n"
                                           "[[axis]]\nkey = \"batch_size\"\nvalues = [8]\n");
  try {
    dtsim::scenario::load_sweep((dir / "sweep.toml").string());
    FAIL();
  } catch (const dtsim::core::InputError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "sweep.toml").string() +
                                         ":8:10: zip axis 'batch_size' has 1 values but 'workers' has 2; in zip mode "
                                         "every axis has the same number of values");
  }
  fs::remove_all(dir);
}

TEST(Sweep, RunsEveryPointRecordsFailuresAndSkipsFinishedPointsOnReRun) {
  const fs::path dir = sweep_folder("run", "jobs = 2\n[set]\n\"strategy.fidelity\" = \"analytic\"\n"
                                           "[[axis]]\nkey = \"workers\"\nvalues = [2, 4]\n"
                                           "[[axis]]\nkey = \"batch_size\"\nvalues = [16, 32, 4096]\n");
  const Outcome first = sweep_in(dir, (dir / "sweep.toml").string());
  // Batch 4096 loads but does not fit in a V100's 16 GiB: two points fail when they run.
  EXPECT_EQ(first.code, 1) << first.output;
  EXPECT_NE(first.output.find("6 of 6 points have a result, 2 failed"), std::string::npos) << first.output;
  const std::string csv = read(dir / "sweep-out/results.csv");
  EXPECT_NE(csv.find("\n0,2,16,ok,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n4,4,32,ok,"), std::string::npos) << csv;
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "point,workers,batch_size,status,mean_iteration_s,samples_per_s,scaling_efficiency,"
            "single_worker_iteration_s,forward_s,backward_s,update_s,exposed_comm_s,idle_s,"
            "bytes_sent_per_worker_per_iteration,buckets_per_iteration,mfu,memory_peak_bytes,error,key");
  EXPECT_NE(csv.find("5,4,4096,failed"), std::string::npos) << csv;
  EXPECT_NE(csv.find("resnet18 at batch 4096 needs"), std::string::npos) << csv;
  EXPECT_EQ(lines(read(dir / "sweep-out/results.jsonl")), 6);
  const Outcome second = sweep_in(dir, (dir / "sweep.toml").string());
  EXPECT_NE(second.output.find("reusing 4 of 6 points"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("running 2 (new, changed or failed before)"), std::string::npos) << second.output;
  fs::remove_all(dir);
}

TEST(Sweep, AValueThatDoesNotLoadIsRefusedAtItsLineAndColumnBeforeAnyPointRuns) {
  // Each value loads alone but not on this base (8 GPUs, bandwidths positive and finite), and the sweep
  // file is the mistake: exit 2 at the value, nothing run, nothing written, nothing submitted.
  const std::vector<std::pair<std::string, std::string>> cases{
      {"[[axis]]\nkey = \"workers\"\nvalues = [2, inf]\n",
       ":4:14: axis 'workers' value inf (point 1): 'workers' has type floating-point; it must be an integer"},
      {"[[axis]]\nkey = \"workers\"\nvalues = [2, 100]\n",
       ":4:14: axis 'workers' value 100 (point 1): workers = 100 exceeds the 8 GPUs of platform 'test-star'; at most "
       "8 on this platform"},
      {"[[axis]]\nkey = \"workers\"\nvalues = [2, 4]\n[[axis]]\nkey = \"platform.link.bandwidth\"\n"
       "values = [\"10Gbps\", \"nanGbps\"]\n",
       ":7:21: axis 'platform.link.bandwidth' value \"nanGbps\" (point 1): 'nanGbps' is negative or not finite;"},
      {"[[axis]]\nkey = \"platform.link.bandwidth\"\nvalues = [\"-0Gbps\"]\n",
       ":4:11: axis 'platform.link.bandwidth' value \"-0Gbps\" (point 0): bandwidth '-0Gbps' is zero; a bandwidth "
       "must be positive"},
      {"[set]\nbatch_size = -1\n[[axis]]\nkey = \"workers\"\nvalues = [2, 4]\n",
       ":3:14: [set] batch_size = -1 (every point): "}};
  for (const auto& [body, expected] : cases) {
    const fs::path dir = sweep_folder("refused", body);
    const std::string file = (dir / "sweep.toml").string();
    for (const std::string& arguments : {file, file + " --slurm --no-submit", file + " --merge"}) {
      const Outcome o = sweep_in(dir, arguments);
      EXPECT_EQ(o.code, 2) << arguments << "\n" << o.output;
      EXPECT_EQ(o.output.rfind("dtsim: error: " + file + expected, 0), 0u) << arguments << "\n" << o.output;
      EXPECT_FALSE(fs::exists(dir / "sweep-out")) << arguments;
    }
    fs::remove_all(dir);
  }
}

/// Row of results.csv whose first field is `point`, split at commas (no quoted fields in these sweeps).
std::vector<std::string> row(const std::string& csv, int point) {
  std::istringstream lines(csv);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(std::to_string(point) + ",", 0) != 0) continue;
    std::vector<std::string> fields;
    std::istringstream f(line);
    for (std::string field; std::getline(f, field, ',');) fields.push_back(field);
    return fields;
  }
  return {};
}

TEST(Sweep, PointsAreKeyedByTheirResolvedScenarioNotTheirIndex) {
  const fs::path dir = sweep_folder("keyed", "[set]\n\"strategy.fidelity\" = \"analytic\"\n"
                                             "[[axis]]\nkey = \"workers\"\nvalues = [4, 8]\n");
  const std::string file = (dir / "sweep.toml").string();
  ASSERT_EQ(sweep_in(dir, file).code, 0);
  const std::vector<std::string> four = row(read(dir / "sweep-out/results.csv"), 0);
  // Edit the axis: [4, 8] -> [2, 4]. Point 0 is now 2 workers (new), point 1 is 4 workers (reused).
  std::ofstream(dir / "sweep.toml") << "base = \"" << DTSIM_SOURCE_DIR << "/tests/sim/scenario/good/minimal.toml\"\n"
                                    << "[set]\n\"strategy.fidelity\" = \"analytic\"\n"
                                    << "[[axis]]\nkey = \"workers\"\nvalues = [2, 4]\n";
  const Outcome edited = sweep_in(dir, file);
  ASSERT_EQ(edited.code, 0) << edited.output;
  EXPECT_NE(edited.output.find("reusing 1 of 2 points"), std::string::npos) << edited.output;
  const std::string csv = read(dir / "sweep-out/results.csv");
  EXPECT_EQ(lines(csv), 3) << csv;  // the 8-worker result is no longer part of the sweep
  std::vector<std::string> reused = row(csv, 1);
  ASSERT_EQ(reused.size(), four.size());
  EXPECT_EQ(reused[1], "4");
  EXPECT_EQ(std::vector<std::string>(reused.begin() + 2, reused.end()),
            std::vector<std::string>(four.begin() + 2, four.end()));  // same metrics, same key
  const std::vector<std::string> two = row(csv, 0);
  EXPECT_EQ(two[1], "2");
  EXPECT_NE(two[3], four[3]);  // a new simulation, not the old point 0's row
  // A [set] key changes every point's resolved scenario: nothing is reused.
  std::ofstream(dir / "sweep.toml") << "base = \"" << DTSIM_SOURCE_DIR << "/tests/sim/scenario/good/minimal.toml\"\n"
                                    << "[set]\n\"strategy.fidelity\" = \"analytic\"\nbatch_size = 8\n"
                                    << "[[axis]]\nkey = \"workers\"\nvalues = [2, 4]\n";
  const Outcome more = sweep_in(dir, file);
  ASSERT_EQ(more.code, 0) << more.output;
  EXPECT_EQ(more.output.find("reusing"), std::string::npos) << more.output;
  EXPECT_NE(row(read(dir / "sweep-out/results.csv"), 1)[3], four[3]);
  // Writing a default explicitly resolves to the same scenario: reused.
  std::ofstream(dir / "sweep.toml") << "base = \"" << DTSIM_SOURCE_DIR << "/tests/sim/scenario/good/minimal.toml\"\n"
                                    << "[set]\n\"strategy.fidelity\" = \"analytic\"\nbatch_size = 8\n"
                                    << "\"strategy.sync\" = \"bsp\"\n"
                                    << "[[axis]]\nkey = \"workers\"\nvalues = [2, 4]\n";
  const Outcome same = sweep_in(dir, file);
  EXPECT_NE(same.output.find("reusing 2 of 2 points"), std::string::npos) << same.output;
  fs::remove_all(dir);
}

TEST(Sweep, PointsOfTheSameResolvedScenarioRunOnceAndShareTheResult) {
  // Two points, one folder: run at once they would clear each other's files.
  const fs::path dir = sweep_folder("repeats", "jobs = 3\n[set]\n\"strategy.fidelity\" = \"analytic\"\n"
                                               "[[axis]]\nkey = \"workers\"\nvalues = [4, 2, 4]\n");
  const Outcome o = sweep_in(dir, (dir / "sweep.toml").string());
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("1 points repeat the resolved scenario of an earlier point and share its result"),
            std::string::npos)
      << o.output;
  EXPECT_NE(o.output.find("3 of 3 points have a result, 0 failed"), std::string::npos) << o.output;
  const std::string csv = read(dir / "sweep-out/results.csv");
  std::vector<std::string> zero = row(csv, 0), two = row(csv, 2);
  ASSERT_EQ(zero.size(), two.size()) << csv;
  EXPECT_EQ(std::vector<std::string>(zero.begin() + 1, zero.end()), std::vector<std::string>(two.begin() + 1, two.end()));
  int folders = 0;
  for (const auto& entry : fs::directory_iterator(dir / "sweep-out/points")) folders += entry.is_directory();
  EXPECT_EQ(folders, 2);
  fs::remove_all(dir);
}

TEST(Sweep, BytesPerWorkerAreCountedPerIteration) {
  // Ring all-reduce of resnet18's gradient over 4 workers: every worker sends 2(p-1)/p of it per iteration.
  const fs::path dir = sweep_folder("bytes", "[set]\n\"strategy.fidelity\" = \"analytic\"\n"
                                             "\"strategy.scheduler\" = \"none\"\n"
                                             "[[axis]]\nkey = \"iterations\"\nvalues = [1, 3]\n");
  ASSERT_EQ(sweep_in(dir, (dir / "sweep.toml").string()).code, 0);
  const std::string csv = read(dir / "sweep-out/results.csv");
  const std::vector<std::string> one = row(csv, 0), three = row(csv, 1);
  ASSERT_EQ(one.size(), 18u) << csv;
  const double gradient_bytes = 11689512.0 * 4;  // resnet18 parameters x fp32
  EXPECT_DOUBLE_EQ(std::stod(one[12]), 2.0 * 3 / 4 * gradient_bytes);
  EXPECT_EQ(one[12], three[12]);
  fs::remove_all(dir);
}

TEST(Sweep, ShardsThenMergeGiveTheSameResults) {
  const fs::path dir = sweep_folder("shards", "[set]\n\"strategy.fidelity\" = \"analytic\"\n"
                                              "[[axis]]\nkey = \"workers\"\nvalues = [2, 3, 4, 5]\n");
  const std::string file = (dir / "sweep.toml").string();
  ASSERT_EQ(sweep_in(dir, file + " --shard 0 --shards 2").code, 0);
  const auto folders = [&] {
    int n = 0;
    for (const auto& entry : fs::directory_iterator(dir / "sweep-out/points")) n += fs::exists(entry.path() / "point.json");
    return n;
  };
  EXPECT_EQ(folders(), 2);  // points 0 and 2
  EXPECT_EQ(sweep_in(dir, file + " --merge").code, 1);  // half the points have no result yet
  ASSERT_EQ(sweep_in(dir, file + " --shard 1 --shards 2").code, 0);
  EXPECT_EQ(folders(), 4);
  const Outcome merged = sweep_in(dir, file + " --merge");
  EXPECT_EQ(merged.code, 0) << merged.output;
  EXPECT_EQ(lines(read(dir / "sweep-out/results.csv")), 5);
  fs::remove_all(dir);
}

TEST(Sweep, SlurmScriptIsAJobArrayOverShards) {
  const fs::path dir = sweep_folder("slurm", "[[axis]]\nkey = \"workers\"\nvalues = [2, 4, 8]\n");
  const Outcome o = sweep_in(dir, (dir / "sweep.toml").string() + " --slurm --shards 3 --no-submit");
  ASSERT_EQ(o.code, 0) << o.output;
  const std::string script = read(dir / "sweep-out/sweep.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-2"), std::string::npos) << script;
  EXPECT_NE(script.find("--shard \"$SLURM_ARRAY_TASK_ID\" --shards 3"), std::string::npos) << script;
  fs::remove_all(dir);
}

}  // namespace
