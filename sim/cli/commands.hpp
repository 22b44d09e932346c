#pragma once
/// The dtsim subcommands. Each returns the process exit code; bad input throws core::InputError.
#include <string>
#include <vector>

namespace dtsim::cli {

/// `dtsim run [SCENARIO] [--out DIR] [--set k=v ...]`.
int run_command(const std::string& file, const std::vector<std::string>& overrides, const std::string& out_dir);
/// `dtsim validate SCENARIO [--set k=v ...]`.
int validate_command(const std::string& file, const std::vector<std::string>& overrides);
/// `dtsim list models|gpus|collectives|schedulers|platforms`.
int list_command(const std::string& what);

/// Options of `dtsim sweep`.
struct SweepArguments {
  std::string file;
  int jobs = 0;  ///< 0: the sweep file's `jobs`
  bool slurm = false;
  bool wait = false;
  bool submit = true;
  bool merge = false;
  int shard = 0;
  int shards = 1;
};
/// `dtsim sweep SWEEP.toml [-j N] [--slurm [--shards K] [--wait] [--no-submit]] [--shard I --shards K] [--merge]`.
int sweep_command(const SweepArguments& args);

/// Absolute path of the running dtsim executable (sweeps start it once per point).
std::string self_executable();

}  // namespace dtsim::cli
