#pragma once
/// Scale-out of a sweep on an existing Slurm cluster: an sbatch job array, one shard of points per task.
#include <string>

#include "sim/scenario/sweep_spec.hpp"

namespace dtsim::sweep {

/// How the job array is made.
struct SlurmOptions {
  std::string dtsim_binary;  ///< absolute path of dtsim on the cluster's shared file system
  int shards = 1;            ///< array tasks; task i runs the points with index % shards == i
  int jobs = 1;              ///< points at once inside a task (and CPUs asked per task)
  bool wait = false;         ///< sbatch --wait: return when the whole array has finished
};

/// Writes <output>/sweep.sbatch: an array job whose task SLURM_ARRAY_TASK_ID runs
/// `dtsim sweep <file> --shard $SLURM_ARRAY_TASK_ID --shards N -j J`. Returns the script's path.
std::string write_sbatch_script(const scenario::SweepSpec& spec, const SlurmOptions& options);

/// Submits the script with sbatch --parsable (and --wait if asked); returns the job id. Throws
/// std::runtime_error with sbatch's message when submission fails.
std::string submit_sbatch(const std::string& script, bool wait);

}  // namespace dtsim::sweep
