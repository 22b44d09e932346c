// dtsim command line: argv -> load -> run -> viz. Exit 0 on success, 2 on bad input, 1 on an internal error
// (and, for sweeps, when a point failed).
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/calibration/calibrate.hpp"
#include "sim/cli/commands.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/core/error.hpp"
#include "sim/core/version.hpp"

namespace {

constexpr int kBadInput = 2;
constexpr int kInternal = 1;

void add_set_option(CLI::App* command, std::vector<std::string>& overrides) {
  command->add_option("--set", overrides, "override a scenario key: --set section.key=value (repeatable)")
      ->expected(1)
      ->allow_extra_args(false)  // `--set k=v FILE`: the file is the positional, optional for run and validate
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

/// -j N: processes at once.
void add_jobs_option(CLI::App* command, int& jobs, const std::string& what) {
  command->add_option("-j,--jobs", jobs, what)->check(CLI::Range(1, 256));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace dtsim;
  CLI::App app{"dtsim: simulate distributed deep-learning training on a modelled cluster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "dtsim " + std::string(core::dtsim_version()));

  std::string file, out_dir, what;
  std::vector<std::string> overrides;

  CLI::App* run = app.add_subcommand("run", "simulate a scenario and write the reports");
  run->add_option("scenario", file, "scenario TOML file (default: the built-in default scenario)");
  run->add_option("--out", out_dir, "output folder (default: output.dir of the scenario)");
  add_set_option(run, overrides);
  std::string device;
  run->add_option("--device", device, "where the compression kernels run: cpu | cuda (same as --set compression.device=...)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  bool run_explain = false;
  run->add_flag("--explain", run_explain, "then simulate the what-ifs as `dtsim explain` does and print the best three kinds of change");

  CLI::App* validate = app.add_subcommand("validate", "check a scenario file without simulating");
  validate->add_option("scenario", file, "scenario TOML file (default: the built-in default scenario)");
  add_set_option(validate, overrides);
  bool resolved = false;
  validate->add_flag("--resolved", resolved,
                     "print the resolved scenario (every setting, defaults included, platform inline) as TOML");

  CLI::App* list =
      app.add_subcommand("list", "list built-in models, GPUs, collectives, schedulers, sync schemes, platforms, "
                                 "scenario keys or which surveyed methods dtsim implements");
  list->add_option("what", what, "models | gpus | collectives | schedulers | sync | platforms | keys | coverage")
      ->required()
      ->check(CLI::IsMember({"models", "gpus", "collectives", "schedulers", "sync", "platforms", "keys", "coverage"}));

  cli::SweepArguments sweep_args;
  CLI::App* sweep = app.add_subcommand("sweep", "run a grid or zip of what-ifs, one process per point");
  sweep->add_option("sweep", sweep_args.file, "sweep TOML file")->required();
  add_jobs_option(sweep, sweep_args.jobs, "points at once (default: jobs in the sweep file)");
  sweep->add_flag("--slurm", sweep_args.slurm, "write and submit an sbatch job array instead of running here");
  sweep->add_flag("--wait", sweep_args.wait, "with --slurm: wait for the array to finish, then merge");
  sweep->add_flag("!--no-submit", sweep_args.submit, "with --slurm: only write the sbatch script");
  sweep->add_flag("--merge", sweep_args.merge, "collect the points' results into results.csv and results.jsonl");
  sweep->add_option("--shard", sweep_args.shard, "run only the points with index % shards == shard");
  sweep->add_option("--shards", sweep_args.shards, "number of shards (Slurm array tasks)")->check(CLI::Range(1, 100000));

  cli::PlanArguments plan_args;
  CLI::App* plan = app.add_subcommand("plan", "find the cheapest cluster that meets a training target (capacity planning)");
  plan->add_option("plan", plan_args.file, "plan TOML file")->required();
  add_jobs_option(plan, plan_args.jobs, "candidates simulated at once (default: jobs in the plan file, or every core)");
  plan->add_option("--out", plan_args.out_dir, "output folder (default: output in the plan file)");
  CLI::Option* plan_slurm =
      plan->add_flag("--slurm", plan_args.slurm, "write and submit an sbatch job array of --shards tasks instead of running here");
  plan->add_flag("--wait", plan_args.wait, "with --slurm: wait for the array to finish, then merge")->needs(plan_slurm);
  plan->add_flag("!--no-submit", plan_args.submit, "with --slurm: only write the sbatch script")->needs(plan_slurm);
  plan->add_flag("--merge", plan_args.merge, "the answer from the shards' runs (what they lack is simulated here)")
      ->excludes(plan_slurm);
  plan->add_option("--shard", plan_args.shard, "search only this shard's candidates (a job array's task)")->excludes(plan_slurm);
  plan->add_option("--shards", plan_args.shards, "number of shards (Slurm array tasks)")->check(CLI::Range(1, 100000));

  std::string run_dir;
  int explain_jobs = 2;
  CLI::App* explain = app.add_subcommand("explain", "say why a run's iteration takes what it takes and which knob moves it most");
  explain->add_option("run", run_dir, "output folder of dtsim run")->required();
  add_jobs_option(explain, explain_jobs, "what-ifs simulated at once");

  std::vector<std::string> compared;
  bool compare_json = false;
  CLI::App* compare = app.add_subcommand("compare", "put runs side by side: times, breakdown, critical path, links, "
                                                    "settings that differ");
  compare->add_option("runs", compared, "output folders of dtsim run (two or more)")->required();
  compare->add_flag("--json", compare_json, "print the comparison as JSON (compare.json) instead of tables");
  compare->add_option("--out", out_dir, "also write DIR/compare.json");

  std::string results;
  CLI::App* plot = app.add_subcommand("plot", "draw PNG and SVG plots of a run or sweep folder");
  plot->add_option("results", results, "output folder of dtsim run, dtsim sweep or dtsim plan")->required();
  plot->add_option("--out", out_dir, "where to write the plots (default: RESULTS/plots)");

  CLI::App* report = app.add_subcommand("report", "write one self-contained HTML page with tables and plots");
  report->add_option("folder", results, "output folder of dtsim run, dtsim sweep or dtsim plan")->required();

  std::string platform_ref;
  bool xml = false;
  CLI::App* platform = app.add_subcommand("platform", "inspect a platform");
  platform->require_subcommand(1);
  CLI::App* show = platform->add_subcommand("show", "hosts, links, diameter, bisection bandwidth and a sketch");
  show->add_option("platform", platform_ref, "a built-in platform name or a platform TOML file")->required();
  show->add_flag("--xml", xml, "print the SimGrid 3.32 platform XML instead");

  cli::CollectiveArguments coll;
  CLI::App* collective = app.add_subcommand("collective", "simulate one collective over a range of sizes (nccl-tests)");
  collective->add_option("--platform", coll.platform, "a built-in platform name or a platform TOML file")->required();
  collective->add_option("--op", coll.op, "allreduce | allgather | reduce_scatter | alltoall | broadcast | sendrecv");
  collective->add_option("--algorithm", coll.algorithm,
                         "the operation's algorithm (default: ring for allreduce, nccl otherwise); auto shows what it picks");
  collective->add_option("-d,--datatype", coll.type, "nccl-tests: element type of the count column (default float)");
  collective->add_option("--workers", coll.workers, "ranks (GPUs in order)")->required()->check(CLI::Range(1, 1 << 20));
  CLI::Option* sizes = collective->add_option(
      "--sizes", coll.sizes, "sizes: 1KiB,64MiB or a doubling range 8B:1GiB (plain numbers are bytes; 1K 1M 1G as nccl-tests: powers of 1024)");
  CLI::Option* min_bytes = collective->add_option("-b,--minbytes", coll.min_bytes, "nccl-tests: smallest size");
  collective->add_option("-e,--maxbytes", coll.max_bytes, "nccl-tests: largest size (default: -b)")->needs(min_bytes);
  CLI::Option* factor = collective->add_option("-f,--stepfactor", coll.step_factor, "nccl-tests: multiply the size by this")
                            ->check(CLI::Range(2, 1 << 20))
                            ->needs(min_bytes);
  collective->add_option("-i,--stepbytes", coll.step_bytes, "nccl-tests: add this to the size (default 1M)")
      ->needs(min_bytes)
      ->excludes(factor);
  sizes->excludes(min_bytes);
  collective->add_option("--fidelity", coll.fidelity, "analytic | flow | message")
      ->check(CLI::IsMember({"analytic", "flow", "message"}));
  collective->add_option("--format", coll.format, std::string("table | csv (header: ") + cli::kCollectiveCsvHeader + "; nccl and auto add " +
                             (cli::kCollectiveCsvNcclColumns + 1) + ")")
      ->check(CLI::IsMember({"table", "csv"}));
  collective->add_option("--nccl-algo", coll.nccl_algo, "NCCL_ALGO for the all-reduce's nccl or auto: tree | ring");
  collective->add_option("--nccl-proto", coll.nccl_proto, "NCCL_PROTO for --algorithm nccl or auto: LL | LL128 | Simple");

  std::vector<std::string> measurements;
  calibration::CalibrateOptions calibrate_options;
  CLI::App* calibrate =
      app.add_subcommand("calibrate", "fit alpha-beta link costs to measured all-reduce times (a platform file), or a "
                                      "GPU's kernel constants to a PyTorch profiler trace (a calibration file)");
  calibrate
      ->add_option("measurements", measurements,
                   "nccl-tests output, vTrain CSV (AR_GPU<n>_*) or CSV gpus,gpus_per_node,bytes,time_us; or one "
                   "PyTorch profiler trace (Kineto JSON)")
      ->required();
  calibrate->add_option("--gpu", calibrate_options.gpu, "with a trace: the built-in GPU profile to fit (e.g. a100)");
  calibrate->add_option("--precision", calibrate_options.precision,
                        "with a trace: precision of operators without recorded input types (default bf16)");
  calibrate->add_option("--layers", calibrate_options.layers_out,
                        "with a trace: write its \"forward/backward LAYER\" ranges' times as a measured_layers CSV");
  calibrate->add_option("--out", calibrate_options.out_path,
                        "platform (or, from a trace, calibration) file to write (default: print it)");
  calibrate->add_option("--name", calibrate_options.platform_name, "name of the platform (default: calibrated)");
  calibrate->add_option("--nodes", calibrate_options.nodes,
                        "nodes in the platform written, to predict a larger cluster (default: as measured)")
      ->check(CLI::Range(1, 1 << 20));
  std::string calibrate_platform;
  calibrate->add_option("--platform", calibrate_platform,
                        "the NVLink-mesh platform measured (e.g. dgx1_v100): fit one NVLink through NCCL's rings "
                        "over its wiring, write that platform with it");
  calibrate->add_option("--collective", calibrate_options.collective, "all-reduce whose closed form is fitted")
      ->check(CLI::IsMember(collectives::collective_names()));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kBadInput;
  }
  try {
    if (!device.empty()) overrides.push_back("compression.device=" + device);
    if (*run) return cli::run_command(file, overrides, out_dir, cli::shell_command_line(argc, argv), run_explain);
    if (*validate) return cli::validate_command(file, overrides, resolved);
    if (*sweep) return cli::sweep_command(sweep_args);
    if (*plan) return cli::plan_command(plan_args);
    if (*explain) return cli::explain_command(run_dir, explain_jobs, false);
    if (*compare) return cli::compare_command(compared, compare_json, out_dir);
    if (*plot) return cli::plot_command(results, out_dir);
    if (*report) return cli::report_command(results);
    if (*collective) return cli::collective_command(coll);
    if (*platform) return cli::platform_show_command(platform_ref, xml);
    if (*calibrate) return cli::calibrate_command(measurements, calibrate_options, calibrate_platform);
    return cli::list_command(what);
  } catch (const core::InputError& e) {
    std::cerr << "dtsim: error: " << e.what() << '\n';
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "dtsim: internal error: " << e.what() << '\n';
    return kInternal;
  }
}
