// Sweeps as a user runs them: grid and zip points, one process per point, failures recorded, re-runs
// skipping finished points, shards and the Slurm job-array script.
#include <gtest/gtest.h>

#include "tests/shell_command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/scenario/sweep_spec.hpp"

namespace {

namespace fs = std::filesystem;
using dtsim::testing::dtsim;
using dtsim::testing::Outcome;
using dtsim::testing::shell;



std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A folder with a sweep file over good/minimal.toml (a star of 8 hosts).
fs::path sweep_folder(const std::string& name, const std::string& body) {
  const fs::path dir = fs::temp_directory_path() / ("dtsim-sweep-" + name + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "sweep.toml") << "base = \"" << DTSIM_SOURCE_DIR << "/tests/sim/scenario/good/minimal.toml\"\n"
                                    << body;
  return dir;
}

int lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

TEST(SweepSpec, GridVariesTheLastAxisFastestAndZipPairsValues) {
  const fs::path dir = sweep_folder("spec", "[[axis]]\nkey = \"workers\"\nvalues = [2, 4]\n"
                                            "[[axis]]\nkey = \"strategy.scheduler\"\nvalues = [\"wfbp\", \"none\", \"ddp\"]\n");
  const auto spec = dtsim::scenario::load_sweep((dir / "sweep.toml").string());
  const auto points = spec.points();
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[1].settings[1].second, "\"none\"");
  EXPECT_EQ(points[3].settings[0].second, "4");
  EXPECT_EQ(spec.output_dir, (dir / "sweep-out").string());
  std::ofstream(dir / "zip.toml") << "mode = \"zip\"\n[[axis]]\nkey = \"workers\"\nvalues = [2, 4]\n"
                                     "[[axis]]\nkey = \"batch_size\"\nvalues = [8, 16]\n";
  EXPECT_EQ(dtsim::scenario::load_sweep((dir / "zip.toml").string()).points().size(), 2u);
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
                                           "[[axis]]\nkey = \"workers\"\nvalues = [2, 4, 100]\n"
                                           "[[axis]]\nkey = \"strategy.scheduler\"\nvalues = [\"wfbp\", \"none\"]\n");
  const Outcome first = dtsim("sweep " + (dir / "sweep.toml").string());
  EXPECT_EQ(first.code, 1) << first.output;  // workers = 100 does not fit on 8 hosts: two failed points
  EXPECT_NE(first.output.find("6 of 6 points have a result, 2 failed"), std::string::npos) << first.output;
  const std::string csv = read(dir / "sweep-out/results.csv");
  EXPECT_EQ(lines(csv), 7);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "point,workers,strategy.scheduler,status,mean_iteration_s,samples_per_s,scaling_efficiency,"
            "single_worker_iteration_s,forward_s,backward_s,update_s,exposed_comm_s,idle_s,bytes_sent_per_worker,"
            "buckets,error");
  EXPECT_NE(csv.find("5,100,none,failed"), std::string::npos) << csv;
  EXPECT_NE(csv.find("workers = 100 exceeds the 8 GPUs"), std::string::npos) << csv;
  EXPECT_EQ(lines(read(dir / "sweep-out/results.jsonl")), 6);
  const Outcome second = dtsim("sweep " + (dir / "sweep.toml").string());
  EXPECT_NE(second.output.find("4 points already have a result"), std::string::npos) << second.output;
  fs::remove_all(dir);
}

TEST(Sweep, ShardsThenMergeGiveTheSameResults) {
  const fs::path dir = sweep_folder("shards", "[set]\n\"strategy.fidelity\" = \"analytic\"\n"
                                              "[[axis]]\nkey = \"workers\"\nvalues = [2, 3, 4, 5]\n");
  const std::string file = (dir / "sweep.toml").string();
  ASSERT_EQ(dtsim("sweep " + file + " --shard 0 --shards 2").code, 0);
  EXPECT_FALSE(fs::exists(dir / "sweep-out/points/1/point.json"));
  EXPECT_TRUE(fs::exists(dir / "sweep-out/points/2/point.json"));
  ASSERT_EQ(dtsim("sweep " + file + " --shard 1 --shards 2").code, 0);
  const Outcome merged = dtsim("sweep " + file + " --merge");
  EXPECT_EQ(merged.code, 0) << merged.output;
  EXPECT_EQ(lines(read(dir / "sweep-out/results.csv")), 5);
  fs::remove_all(dir);
}

TEST(Sweep, SlurmScriptIsAJobArrayOverShards) {
  const fs::path dir = sweep_folder("slurm", "[[axis]]\nkey = \"workers\"\nvalues = [2, 4, 8]\n");
  const Outcome o = dtsim("sweep " + (dir / "sweep.toml").string() + " --slurm --shards 3 --no-submit");
  ASSERT_EQ(o.code, 0) << o.output;
  const std::string script = read(dir / "sweep-out/sweep.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-2"), std::string::npos) << script;
  EXPECT_NE(script.find("--shard \"$SLURM_ARRAY_TASK_ID\" --shards 3"), std::string::npos) << script;
  fs::remove_all(dir);
}

}  // namespace
