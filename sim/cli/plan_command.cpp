#include <unistd.h>

#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/core/error.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/plan/plan_report.hpp"
#include "sim/plan/shards.hpp"
#include "sim/scenario/plan_spec.hpp"
#include "sim/sweep/folder_lock.hpp"

namespace dtsim::cli {
namespace {

/// The arguments that make the answer: the plan and its output folder. -j, --slurm, --shard and --merge choose only
/// how it runs, so a local run, a merged job array and any -j record the same command (and write the same bytes).
std::string answer_arguments(const PlanArguments& args) {
  return core::shell_quote(args.file) + (args.out_dir.empty() ? "" : " --out " + core::shell_quote(args.out_dir));
}

std::string answer_command(const PlanArguments& args) { return "dtsim plan " + answer_arguments(args); }

/// The shard's summary, and what it did on the console.
int finish_shard(const scenario::PlanSpec& plan, const plan::PlanResult& result, const PlanArguments& args) {
  const nlohmann::json summary = plan::shard_summary(plan, result, args.shard, args.shards, answer_command(args));
  const std::string path = plan::shard_summary_path(plan, args.shard, args.shards);
  core::write_atomically(path, [&](std::ostream& out) { out << summary.dump(2) << '\n'; });
  fmt::print("shard {} of {}: {} candidates simulated, {} dropped (dominated), {} failed, {} re-checked at the flow "
             "level; wrote {}\nwhen every shard has finished: dtsim plan {} --merge\n",
             args.shard, args.shards, summary["simulated"].get<int>(), summary["dropped"].get<int>(),
             summary["failed"].get<int>(), summary["rechecked"].get<int>(), path, answer_arguments(args));
  return 0;
}

}  // namespace

int plan_command(const PlanArguments& args) {
  scenario::PlanSpec plan = scenario::load_plan(args.file);
  if (!args.out_dir.empty()) plan.output_dir = args.out_dir;
  const int jobs = args.jobs > 0 ? args.jobs : plan.jobs > 0 ? plan.jobs : usable_cores();
  check_shard(args.shard, args.shards);
  if (args.merge && args.shards > 1)
    throw core::InputError("--merge", "it is given with --shards " + std::to_string(args.shards),
                           "--merge alone gathers the shards of a job array (tasks that ran --shard I --shards K)");
  bool merge = args.merge;
  if (args.slurm) {
    namespace fs = std::filesystem;
    const sweep::JobArray array{
        plan.output_dir, "plan.sbatch", "dtsim-plan",
        fmt::format("dtsim plan of {} as a job array: task i searches the candidates at positions i, i + {}, ... of the "
                    "search order (sim/plan/shards.hpp); then dtsim plan --merge", plan.source, args.shards),
        {self_executable(), "plan", fs::absolute(plan.source).lexically_normal().string(), "--out",
         fs::absolute(plan.output_dir).lexically_normal().string()}};
    const int array_jobs = args.jobs > 0 ? args.jobs : plan.jobs > 0 ? plan.jobs : 1;
    if (const std::optional<int> code = run_job_array(array, {args.shards, array_jobs, args.wait}, args.submit,
                                                      "the plan's candidates", answer_command(args) + " --merge"))
      return *code;
    merge = true;  // sbatch --wait returned: the array has finished
  }
  const int shard = args.slurm ? 0 : args.shard, shards = args.slurm ? 1 : args.shards;
  // Its candidates run as a sweep's points in this folder: a second plan or sweep into it is refused; the shards
  // of one job array share it.
  const sweep::FolderLock lock(plan.output_dir, shard, shards,
                               "dtsim plan " + args.file + (shards > 1 ? fmt::format(" --shard {} --shards {}", shard, shards) : ""));
  if (merge)
    for (const std::string& line : plan::shard_status(plan)) std::cerr << line << '\n';
  const plan::PlanResult result = plan::search(
      plan, {self_executable(), jobs, "analytic", false, shard, shards}, std::cerr, isatty(STDERR_FILENO) == 1);
  if (shards > 1) return finish_shard(plan, result, args);
  plan::print_plan(std::cout, plan, result);
  const std::string json_path = plan.output_dir + "/plan.json";
  core::write_atomically(json_path, [&](std::ostream& out) {
    out << plan::plan_json(plan, result, answer_command(args)).dump(2) << '\n';
  });
  std::cout << "wrote " << json_path << "\n";
  return result.recommended >= 0 ? 0 : 1;
}

}  // namespace dtsim::cli
