#pragma once
/// Scale-out on an existing Slurm cluster: an sbatch job array, one shard of the work per task (a sweep's points,
/// a plan's candidates), merged afterwards by the command that made the array.
#include <string>
#include <vector>

namespace dtsim::sweep {

/// What the array runs: task SLURM_ARRAY_TASK_ID runs `command` followed by
/// `--shard $SLURM_ARRAY_TASK_ID --shards <shards> -j <jobs>`.
struct JobArray {
  std::string output_dir;            ///< the script and each task's log (slurm-<job>_<task>.log) go here
  std::string script_name;           ///< "sweep.sbatch", "plan.sbatch"
  std::string job_name;              ///< sbatch --job-name
  std::string description;           ///< the script's comment line: what a task runs
  std::vector<std::string> command;  ///< absolute dtsim path, the subcommand and its arguments (absolute paths)
};

/// How the job array is made.
struct SlurmOptions {
  int shards = 1;     ///< array tasks
  int jobs = 1;       ///< work items at once inside a task (and CPUs asked per task)
  bool wait = false;  ///< sbatch --wait: return when the whole array has finished
};

/// Writes <output_dir>/<script_name>: an array job of `options.shards` tasks, each in the working directory of
/// this process. Returns the script's path.
std::string write_sbatch_script(const JobArray& array, const SlurmOptions& options);

/// Submits the script with sbatch --parsable (and --wait if asked); returns the job id. Throws
/// std::runtime_error with sbatch's message when submission fails.
std::string submit_sbatch(const std::string& script, bool wait);

}  // namespace dtsim::sweep
