#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>

#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/core/shell_quote.hpp"
#include "sim/scenario/sweep_spec.hpp"
#include "sim/sweep/slurm.hpp"
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
  if (args.shard < 0 || args.shard >= args.shards)
    throw core::InputError("--shard " + std::to_string(args.shard), "the shard is out of range",
                           "0 to --shards - 1 (" + std::to_string(args.shards - 1) + ")");
  const auto points = spec.points().size();
  std::optional<std::vector<sweep::PointKey>> computed;  // loading every point's scenario: once, and only if needed
  const auto keys = [&]() -> const std::vector<sweep::PointKey>& {
    if (!computed) computed = sweep::point_keys(spec, self_executable());
    return *computed;
  };
  if (args.slurm) {
    const sweep::SlurmOptions slurm{self_executable(), args.shards, jobs, args.wait};
    const std::string script = sweep::write_sbatch_script(spec, slurm);
    std::cout << "wrote " << script << " (" << points << " points in " << args.shards << " array tasks)\n";
    if (!args.submit) return 0;
    const std::string job = sweep::submit_sbatch(script, args.wait);
    std::cout << "submitted job array " << job << "\n";
    if (!args.wait) {
      std::cout << "when it has finished: dtsim sweep " << args.file << " --merge\n";
      return 0;
    }
  } else if (!args.merge) {
    std::cout << points << " points, " << jobs << " at once, results in " << spec.output_dir << "\n";
    sweep::run_sweep(spec, keys(), {self_executable(), jobs, args.shard, args.shards}, std::cerr,
                     isatty(STDERR_FILENO) == 1);
    if (args.shards > 1) return 0;  // the shards are merged once all have run
  }
  const auto [results, failed] = sweep::merge_results(spec, keys());
  std::cout << results << " of " << points << " points have a result, " << failed << " failed: " << spec.output_dir
            << "/results.csv, " << spec.output_dir << "/results.jsonl\n";
  return failed > 0 || results < static_cast<int>(points) ? 1 : 0;
}

}  // namespace dtsim::cli
