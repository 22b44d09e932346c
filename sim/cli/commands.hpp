#pragma once
/// The dtsim subcommands. Each returns the process exit code; bad input throws core::InputError.
#include <optional>
#include <string>
#include <vector>

#include "sim/calibration/calibrate.hpp"
#include "sim/sweep/slurm.hpp"

namespace dtsim::cli {

/// `dtsim run [SCENARIO] [--out DIR] [--set k=v ...] [--explain]`; `command_line` is recorded in report.json;
/// --explain then simulates the what-ifs as `dtsim explain` does and prints three (the best of each kind of change).
int run_command(const std::string& file, const std::vector<std::string>& overrides, const std::string& out_dir,
                const std::string& command_line, bool explain);
/// `dtsim validate SCENARIO [--set k=v ...] [--resolved]`; --resolved prints the resolved scenario, a file that
/// `dtsim run` reproduces the run from.
int validate_command(const std::string& file, const std::vector<std::string>& overrides, bool resolved);
/// `dtsim list models|gpus|collectives|schedulers|platforms|keys` (keys: docs/scenario-reference.md).
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

/// Options of `dtsim plan`.
struct PlanArguments {
  std::string file;
  int jobs = 0;             ///< 0: the plan file's `jobs`, or every core
  std::string out_dir;      ///< empty: the plan file's `output`
  bool slurm = false;       ///< as `dtsim sweep`'s: a job array of `shards` tasks
  bool wait = false;
  bool submit = true;
  bool merge = false;       ///< the answer from the shards' runs (simulating what they lack)
  int shard = 0;
  int shards = 1;
};
/// `dtsim plan PLAN.toml [-j N] [--out DIR] [--slurm [--shards K] [--wait] [--no-submit]] [--shard I --shards K]
/// [--merge]`: searches the plan's clusters for the best that meets its target (sim/plan/shards.hpp: shards and
/// merge); exit 1 when none does.
int plan_command(const PlanArguments& args);

/// `dtsim explain RUN_DIR [-j N]`: why the run's iteration takes what it takes, and which neighbouring what-if
/// moves it most (simulated under RUN_DIR/explain); `what_ifs_only`: three what-ifs (the best of each kind of change), not the sentences.
int explain_command(const std::string& run_dir, int jobs, bool what_ifs_only);

/// `dtsim compare RUN_A RUN_B [...] [--json] [--out DIR]`: the runs side by side (viz::comparison_json); --json
/// prints compare.json instead of the tables, --out writes it to DIR/compare.json.
int compare_command(const std::vector<std::string>& run_dirs, bool json, const std::string& out_dir);

/// `dtsim plot RESULTS [--out DIR]`: PNG and SVG plots of a run or sweep folder (default DIR: RESULTS/plots).
int plot_command(const std::string& results, const std::string& out_dir);
/// `dtsim report RUN_OR_SWEEP_DIR`: one self-contained HTML page with the tables and plots.
int report_command(const std::string& folder);

/// `dtsim platform show PLATFORM [--xml]`: hosts, links, diameter, bisection bandwidth and a sketch, or the
/// SimGrid XML.
int platform_show_command(const std::string& platform, bool xml);
/// `dtsim calibrate MEASUREMENTS... [--platform P]`: calibration::calibrate_main; with an NVLink-mesh platform
/// P, the fit is of one NVLink through NCCL's rings over P's wiring and the file written is P with that NVLink.
int calibrate_command(const std::vector<std::string>& measurements, calibration::CalibrateOptions options,
                      const std::string& platform);

/// Options of `dtsim collective`, the simulator's nccl-tests.
struct CollectiveArguments {
  std::string platform;
  std::string op = "allreduce";  ///< nccl-tests' operation (collectives::nccl_tests_operations)
  std::string algorithm;         ///< one of the operation's (operation_algorithm_names); empty: ring for the
                                 ///< all-reduce, nccl for the others
  std::string type = "float";    ///< nccl-tests' -d: the element type of the count column
  int workers = 2;
  std::string sizes;                 ///< a list or range; or the nccl-tests options below
  std::string min_bytes;             ///< -b
  std::string max_bytes;             ///< -e (default: -b)
  std::string step_bytes;            ///< -i (default 1M, as nccl-tests)
  int step_factor = 1;               ///< -f; above 1 it multiplies instead of adding -i
  std::string fidelity = "flow";
  std::string format = "table";
  std::string nccl_algo;   ///< NCCL_ALGO for nccl/auto ("tree", "ring"); empty: NCCL's tuner
  std::string nccl_proto;  ///< NCCL_PROTO for nccl/auto ("LL", "LL128", "Simple"); empty: NCCL's tuner
};
/// The header of `dtsim collective --format csv`, and the columns NCCL's algorithms (nccl, auto, and the all-to-all's
/// direct) add to it; nccl_model_s is empty where NCCL has no model (point-to-point).
inline constexpr const char* kCollectiveCsvHeader = "bytes,count,type,algorithm,algbw_GBps,busbw_GBps,time_s";
inline constexpr const char* kCollectiveCsvNcclColumns = ",nccl_choice,nccl_model_s";
/// `dtsim collective --platform P [--op OP] [--algorithm A] --workers N --sizes LIST [--fidelity L] [--format table|csv]`:
/// one OP (all-reduce by default) per size; time, algorithm bandwidth and bus bandwidth (nccl-tests' definitions).
int collective_command(const CollectiveArguments& args);

/// argv as one line a shell reads back to the same arguments (report.json's provenance).
std::string shell_command_line(int argc, char** argv);

/// Absolute path of the running dtsim executable (sweeps start it once per point).
std::string self_executable();

/// `--slurm` of a sweep or a plan: writes the job array's script and, unless `submit` is false, submits it. Returns
/// the exit code to leave with now, or nothing when sbatch --wait has returned and the caller merges the shards'
/// results. `what` says what the tasks share ("12 points"); `merge_command` is printed for the user to run later.
std::optional<int> run_job_array(const sweep::JobArray& array, const sweep::SlurmOptions& options, bool submit,
                                 const std::string& what, const std::string& merge_command);
/// Refuses (core::InputError) a --shard outside 0 to shards - 1.
void check_shard(int shard, int shards);
/// The CPUs this process may run on (sched_getaffinity: a Slurm task's allocation, a taskset), at least 1.
int usable_cores();

}  // namespace dtsim::cli
