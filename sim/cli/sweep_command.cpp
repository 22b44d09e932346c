#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/scenario/sweep_spec.hpp"
#include "sim/sweep/folder_lock.hpp"
#include "sim/sweep/point_check.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace dtsim::cli {

std::string self_executable() { return std::filesystem::canonical("/proc/self/exe").string(); }

std::string shell_command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i > 0 ? " " : "") + core::shell_quote(argv[i]);
  return line;
}

int sweep_command(const SweepArguments& args) {
  const scenario::SweepSpec spec = scenario::load_sweep(args.file);
  const int jobs = args.jobs > 0 ? args.jobs : spec.jobs;
  check_shard(args.shard, args.shards);
  const auto points = spec.points().size();
  // Every point's settings are loaded (not simulated) before anything runs or is submitted: a value that does not
  // load is refused at its line and column in the sweep file.
  const std::vector<sweep::PointKey> keys = sweep::checked_point_keys(spec, self_executable());
  if (args.slurm) {
    const sweep::JobArray array{
        spec.output_dir, "sweep.sbatch", "dtsim-sweep",
        fmt::format("dtsim sweep of {} as a job array: task i runs the points with index % {} == i.", spec.source, args.shards),
        {self_executable(), "sweep", std::filesystem::absolute(spec.source).string()}};
    if (const std::optional<int> code = run_job_array(array, {args.shards, jobs, args.wait}, args.submit,
                                                      std::to_string(points) + " points", "dtsim sweep " + args.file + " --merge"))
      return *code;
  }
  std::optional<sweep::FolderLock> lock;  // held until the results are merged
  if (!args.slurm && !args.merge) {
    const std::string shard =
        args.shards > 1 ? " --shard " + std::to_string(args.shard) + " --shards " + std::to_string(args.shards) : "";
    lock.emplace(spec.output_dir, args.shard, args.shards, "dtsim sweep " + args.file + shard);
    std::cout << points << " points, " << jobs << " at once, results in " << spec.output_dir << "\n";
    sweep::run_sweep(spec, keys, {self_executable(), jobs, args.shard, args.shards}, std::cerr,
                     isatty(STDERR_FILENO) == 1);
    if (args.shards > 1) return 0;  // the shards are merged once all have run
  }
  const auto [results, failed] = sweep::merge_results(spec, keys);
  std::cout << results << " of " << points << " points have a result, " << failed << " failed: " << spec.output_dir
            << "/results.csv, " << spec.output_dir << "/results.jsonl\n";
  return failed > 0 || results < static_cast<int>(points) ? 1 : 0;
}

}  // namespace dtsim::cli
