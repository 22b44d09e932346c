// dtsim plan across cores and machines: the same bytes for any -j, and a plan split into the shards of a Slurm job
// array then merged gives the local answer byte for byte (sim/plan/simulate.hpp, sim/plan/shards.hpp).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/read_file.hpp"
#include "tests/shell_command.hpp"

namespace dtsim::plan {
namespace {

namespace fs = std::filesystem;
using testing::read;

/// A scratch folder holding scale_out_plan.toml and the fixtures it names, removed at the end of the test.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("dtsim_plan_scale_" + std::to_string(getpid()) + "_" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* file : {"scale_out_plan.toml", "closed_form_base.toml", "one_gpu_nodes.toml"})
      fs::copy_file(std::string(DTSIM_SOURCE_DIR) + "/tests/sim/plan/" + file, dir / file);
  }
  ~Scratch() { fs::remove_all(dir); }
  /// `dtsim plan scale_out_plan.toml --out OUT ARGUMENTS` run in the folder `in` (made under the scratch folder):
  /// the same command from any folder writes the same command line into plan.json.
  testing::Outcome plan(const std::string& in, const std::string& arguments) const {
    fs::create_directories(dir / in);
    return testing::shell("(cd " + (dir / in).string() + " && " + DTSIM_BINARY + " plan ../scale_out_plan.toml --out out " +
                          arguments + " 2>/dev/null)");
  }
  testing::Outcome plan_with_progress(const std::string& in, const std::string& arguments) const {
    fs::create_directories(dir / in);
    return testing::shell("cd " + (dir / in).string() + " && " + DTSIM_BINARY + " plan ../scale_out_plan.toml --out out " +
                          arguments);
  }
  std::string plan_json(const std::string& in) const { return read(dir / in / "out" / "plan.json"); }
};

int count(const std::string& plan_json, const std::string& pruned) {
  int n = 0;
  const nlohmann::json plan = nlohmann::json::parse(plan_json);
  for (const auto& c : plan["candidates"]) n += c["pruned"] == pruned;
  return n;
}

TEST(PlanScaleOut, SameBytesForAnyJobs) {
  Scratch s;
  const testing::Outcome one = s.plan("j1", "-j 1");
  ASSERT_EQ(one.code, 0) << one.output;
  const testing::Outcome three = s.plan("j3", "-j 3");
  ASSERT_EQ(three.code, 0) << three.output;
  EXPECT_EQ(one.output, three.output);
  const std::string answer = s.plan_json("j1");
  EXPECT_EQ(s.plan_json("j3"), answer);
  // The rule was exercised: 14 of the 21 candidates are dropped, 7 kept, and the command recorded is the one that
  // makes the answer, without -j.
  EXPECT_EQ(count(answer, "dominated"), 14);
  EXPECT_EQ(count(answer, ""), 7);
  const nlohmann::json plan = nlohmann::json::parse(answer);
  EXPECT_EQ(plan["provenance"]["command_line"], "dtsim plan ../scale_out_plan.toml --out out");
  EXPECT_EQ(plan["candidates"][plan["recommended"].get<int>()]["label"], "one_gpu_nodes.toml x 1 node, batch_size=64");
}

TEST(PlanScaleOut, ShardsThenMergeGiveTheLocalAnswer) {
  Scratch s;
  const testing::Outcome local = s.plan("local", "-j 2");
  ASSERT_EQ(local.code, 0) << local.output;
  for (int shard = 0; shard < 3; ++shard) {
    const testing::Outcome o = s.plan("sharded", "--shard " + std::to_string(shard) + " --shards 3 -j 1");
    ASSERT_EQ(o.code, 0) << o.output;
    EXPECT_NE(o.output.find("wrote out/shards/shard-" + std::to_string(shard) + "-of-3.json"), std::string::npos) << o.output;
    EXPECT_FALSE(fs::exists(s.dir / "sharded/out/plan.json"));  // a shard writes no answer
  }
  const testing::Outcome merged = s.plan_with_progress("sharded", "--merge");
  ASSERT_EQ(merged.code, 0) << merged.output;
  EXPECT_EQ(s.plan_json("sharded"), s.plan_json("local"));
  // The merge simulated nothing: every analytic run and flow re-check it needed was a shard's.
  EXPECT_NE(merged.output.find("all 3 shards of the job array have finished"), std::string::npos) << merged.output;
  EXPECT_EQ(merged.output.find("point "), std::string::npos) << merged.output;
  EXPECT_NE(merged.output.find("running 0 (new, changed or failed before)"), std::string::npos) << merged.output;
  EXPECT_EQ(local.output, merged.output.substr(merged.output.find("Recommended: ")));
  const nlohmann::json summary = nlohmann::json::parse(read(s.dir / "sharded/out/shards/shard-1-of-3.json"));
  EXPECT_EQ(summary["schema"], "dtsim.plan-shard/1");
  EXPECT_EQ(summary["shard"], 1);
  EXPECT_GT(summary["simulated"].get<int>(), 0);
}

TEST(PlanScaleOut, MergeSimulatesWhatAMissingShardLacks) {
  Scratch s;
  ASSERT_EQ(s.plan("local", "-j 2").code, 0);
  ASSERT_EQ(s.plan("sharded", "--shard 0 --shards 3 -j 2").code, 0);
  ASSERT_EQ(s.plan("sharded", "--shard 2 --shards 3 -j 2").code, 0);
  const testing::Outcome merged = s.plan_with_progress("sharded", "--merge -j 2");
  ASSERT_EQ(merged.code, 0) << merged.output;
  EXPECT_NE(merged.output.find("2 of 3 shards have finished; not shard 1: what they have not simulated is simulated here"),
            std::string::npos) << merged.output;
  EXPECT_NE(merged.output.find("point "), std::string::npos) << merged.output;  // shard 1's candidates ran here
  EXPECT_EQ(s.plan_json("sharded"), s.plan_json("local"));
}

TEST(PlanScaleOut, SlurmScriptIsAJobArrayOfShards) {
  Scratch s;
  const testing::Outcome o = s.plan("slurm", "--slurm --shards 4 -j 2 --no-submit");
  ASSERT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("plan.sbatch (the plan's candidates in 4 array tasks)"), std::string::npos) << o.output;
  const std::string script = read(s.dir / "slurm/out/plan.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-3"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --cpus-per-task=2"), std::string::npos) << script;
  EXPECT_NE(script.find("plan " + (s.dir / "scale_out_plan.toml").string() + " --out " + (s.dir / "slurm/out").string() +
                        " --shard \"$SLURM_ARRAY_TASK_ID\" --shards 4 -j 2"),
            std::string::npos)
      << script;
  EXPECT_FALSE(fs::exists(s.dir / "slurm/out/plan.json"));
}

TEST(PlanScaleOut, RefusesFlagsThatDoNotGoTogether) {
  Scratch s;
  const testing::Outcome out_of_range = s.plan_with_progress("bad", "--shard 3 --shards 3");
  EXPECT_EQ(out_of_range.code, 2);
  EXPECT_NE(out_of_range.output.find("--shard 3: the shard is out of range; 0 to --shards - 1 (2)"), std::string::npos)
      << out_of_range.output;
  const testing::Outcome merge = s.plan_with_progress("bad", "--merge --shards 3");
  EXPECT_EQ(merge.code, 2);
  EXPECT_NE(merge.output.find("--merge: it is given with --shards 3"), std::string::npos) << merge.output;
  // The job array's flags only with --slurm; a merge or a shard is not a job array.
  for (const auto& [arguments, refusal] : {std::pair<std::string, std::string>{"--wait", "--wait requires --slurm"},
                                           {"--no-submit", "--no-submit requires --slurm"},
                                           {"--slurm --merge", "--slurm excludes --merge"},
                                           {"--slurm --shard 1 --shards 2", "--slurm excludes --shard"}}) {
    const testing::Outcome o = s.plan_with_progress("bad", arguments);
    EXPECT_EQ(o.code, 2) << arguments;
    EXPECT_NE(o.output.find(refusal), std::string::npos) << o.output;
  }
}

}  // namespace
}  // namespace dtsim::plan
