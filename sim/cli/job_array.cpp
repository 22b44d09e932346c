#include <sched.h>

#include <iostream>
#include <string>

#include "sim/cli/commands.hpp"
#include "sim/core/error.hpp"

namespace dtsim::cli {

std::optional<int> run_job_array(const sweep::JobArray& array, const sweep::SlurmOptions& options, bool submit,
                                 const std::string& what, const std::string& merge_command) {
  const std::string script = sweep::write_sbatch_script(array, options);
  std::cout << "wrote " << script << " (" << what << " in " << options.shards << " array tasks)\n";
  if (!submit) return 0;
  const std::string job = sweep::submit_sbatch(script, options.wait);
  std::cout << "submitted job array " << job << "\n";
  if (options.wait) return std::nullopt;
  std::cout << "when it has finished: " << merge_command << "\n";
  return 0;
}

void check_shard(int shard, int shards) {
  if (shard < 0 || shard >= shards)
    throw core::InputError("--shard " + std::to_string(shard), "the shard is out of range",
                           "0 to --shards - 1 (" + std::to_string(shards - 1) + ")");
}

int usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

}  // namespace dtsim::cli
