#pragma once
/// A fully validated what-if: plain structs, no TOML. Produced only by load_scenario.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compressors/options.hpp"
#include "models/gpu_profile.hpp"
#include "models/model.hpp"
#include "sim/memory/recomputation.hpp"
#include "sim/parallel/layout.hpp"
#include "sim/collectives/nccl_tuning.hpp"
#include "sim/platform/platform_spec.hpp"
#include "sim/scheduling/framework.hpp"
#include "sim/scheduling/scheduler_options.hpp"
#include "sim/sync/sync_policy.hpp"

namespace dtsim::scenario {

/// How communication is simulated (DESIGN.md section 2).
enum class Fidelity {
  analytic,  ///< closed-form alpha-beta per collective step, no SimGrid
  flow,      ///< SimGrid, consecutive steps with the same flow pattern fused into one
  message,   ///< every point-to-point message on SimGrid
};

/// Names accepted for `strategy.fidelity`.
std::vector<std::string> fidelity_names();
/// Name of a fidelity as written in scenario files.
std::string fidelity_name(Fidelity f);
/// The fidelity called `name`; throws core::InputError listing the known names.
Fidelity parse_fidelity(const std::string& name);

/// Where and what to write.
struct Output {
  std::string dir = "dtsim-out";
  bool timeline = true;  ///< write timeline.json (Chrome trace)
  int trace_workers = 16;  ///< workers whose events are recorded (timeline, Gantt); worker 0 always
};

/// How the compression kernels' times are obtained (compression.kernel_time).
enum class KernelTime {
  model,     ///< each compressor's declared GPU work priced on the GPU profile (sim/run/kernel_model.hpp)
  fixed,     ///< bytes of fp32 input over a fixed throughput
  measured,  ///< host (or CUDA device) runs timed now, scaled to the GPU: not reproducible
};

/// Gradient compression in the simulation (timing mode).
struct Compression {
  std::string compressor;                ///< registry name; empty = no compression
  compressors::Options options;          ///< [compression.options]
  std::string error_feedback = "none";   ///< error_feedback_registry() name
  compressors::Options feedback_options; ///< [compression.error_feedback_options]
  std::string sparse_collective = "allgather";  ///< allgather | gtopk (sparsifiers only)
  std::string gradient = "normal";       ///< distribution of the synthetic gradients: normal | laplace | heavy_tailed
  double gradient_scale = 1e-3;          ///< scale (standard deviation for normal) of the synthetic gradients
  std::map<std::string, double> layer_scales;  ///< layer-name prefix -> scale of its gradients (longest prefix wins)
  std::string device = "cpu";            ///< where the kernels run: cpu | cuda
  KernelTime kernel_time = KernelTime::model;  ///< how kernel times are obtained
  std::optional<double> kernel_Bps;      ///< KernelTime::fixed: kernel throughput (bytes of fp32 input per second)
  std::uint64_t seed = 0;                ///< the synthetic gradients
};

/// Numerics mode: real training of a small model on real or synthetic data, against simulated time.
struct Numerics {
  bool enabled = false;
  std::string model = "mlp";               ///< softmax_regression | mlp | cnn
  std::vector<std::int64_t> hidden = {128};
  std::string dataset = "gaussian_mixture";  ///< gaussian_mixture | teacher | mnist | cifar10
  std::int64_t examples = 4096;            ///< synthetic data
  std::int64_t dims = 32;
  int classes = 10;
  double separation = 0.5;                 ///< gaussian_mixture
  std::vector<std::string> files;          ///< mnist: images, labels; cifar10: data_batch_*.bin (paths)
  double test_fraction = 0.2;
  std::string shards = "iid";              ///< iid | dirichlet
  double dirichlet_alpha = 0.5;
  std::int64_t steps = 200;
  std::int64_t eval_every = 20;
  std::string optimizer = "sgd";           ///< sgd | momentum | nesterov | adam
  double learning_rate = 0.1;
  std::int64_t warmup_steps = 0;
  std::optional<double> target_accuracy;   ///< report the simulated time to reach it
  std::uint64_t seed = 1;
};

/// Periodic interference ([stragglers.interference]): from `offset_s`, every `period_s`, the listed workers
/// (all when empty) compute `factor` times slower for `duration_s` (a co-located job, a daemon, a checkpoint).
struct Interference {
  double period_s = 0;
  double duration_s = 0;
  double offset_s = 0;
  double factor = 2;
  std::vector<int> workers;
};

/// A worker's compute speed over time (trace-driven, like a SimGrid speed profile): from time_s on, it runs
/// at `speed` times its nominal speed, until the next step. Before the first step: nominal.
struct SpeedStep {
  double time_s = 0;
  double speed = 1;
};

/// Stragglers: per-worker compute slowdown, fixed and random, reproducible from the seed.
struct Stragglers {
  std::vector<int> slow_workers;   ///< workers whose compute is always slower
  double slow_factor = 2.0;        ///< their compute-time multiplier
  std::string noise = "none";      ///< none | lognormal (x exp(scale N(0,1))) | exponential (x (1 + Exp(scale)))
  double noise_scale = 0.1;
  std::uint64_t seed = 0;
  std::optional<Interference> interference;
  std::map<int, std::vector<SpeedStep>> speed_profiles;  ///< per worker, steps in time order
  /// True when any worker can be slowed down.
  bool enabled() const {
    return !slow_workers.empty() || noise != "none" || interference || !speed_profiles.empty();
  }
};

/// A parameter server ([strategy.ps]; architecture "ps" or "byteps", which changes the defaults).
struct ParameterServer {
  int servers = 1;
  bool dedicated = true;              ///< servers on hosts of their own after the workers; false: server s on worker s's host
  std::int64_t partition_bytes = 0;   ///< largest piece of a bucket; 0: each bucket split evenly over the servers
  std::optional<double> summation_Bps = 10e9;  ///< server summation throughput (fp32 input); none: free
  bool hierarchical = false;          ///< a node's GPUs reduce to its first GPU, which pushes and pulls for them
  std::int64_t credit_bytes = 0;      ///< bytes a worker pushes at once, lower layers first; 0: no limit
  std::string pull = "dense";         ///< dense | compressed (the server compresses the aggregate like a push)
};

/// Decentralised SGD ([strategy.gossip], architecture "gossip").
struct Gossip {
  std::string topology = "ring";  ///< gossip_topology_names()
  int degree = 4;                 ///< random graphs: mean degree
  std::uint64_t seed = 0;         ///< random graphs
  double consensus_step = 0.0;    ///< CHOCO-SGD's gamma (numerics mode with compression); 0 = not given
  bool power_gossip = false;      ///< exchange = "powergossip": rank-1 differences per edge (PowerGossip)
};

/// A failure at a time ([[failures]]): a worker crashes, or a directed link goes down (for `duration_s`, or
/// for good when absent).
struct Failure {
  double at_s = 0;
  int worker = -1;                    ///< the crashing worker; -1 for a link failure
  std::string link;                   ///< the failing link (as `dtsim platform show` names it)
  std::optional<double> duration_s;   ///< link: back up after this long
};

/// The memory model's settings ([memory]).
struct MemorySettings {
  bool refuse = true;  ///< check = "refuse": a run that does not fit is refused; "warn": it runs with a warning
  memory::Recomputation recomputation = memory::Recomputation::none;
  std::string optimizer = "momentum";  ///< models::optimizer_names(); numerics mode: numerics.optimizer
};

/// A file the scenario reads besides itself and its platform (a layer table, a profile, a dataset).
struct InputFile {
  std::string path;    ///< absolute
  std::string digest;  ///< core::file_digest of its bytes
};

/// Where a scenario came from and everything that decides its result (report.json's "provenance").
struct Provenance {
  std::vector<std::string> overrides;  ///< the --set arguments, in order
  /// The scenario as the loader used it: every key read, defaults included, the platform inline and file
  /// paths absolute. `dtsim run` on this text reproduces the run.
  std::string resolved_toml;
  std::vector<InputFile> inputs;
  /// Digest of the dtsim version, resolved_toml (less output.dir) and the inputs' digests: equal digests,
  /// equal results.
  std::string digest;
};

/// One validated scenario.
struct Scenario {
  std::string source;           ///< scenario file path, or "built-in default"
  std::string platform_source;  ///< platform file path or "built-in <name>"
  platform::PlatformSpec platform;
  models::Model model;
  models::GpuProfile gpu;
  models::Precision precision = models::Precision::fp32;
  models::Fp8Recipe fp8_recipe = models::Fp8Recipe::delayed;  ///< gpu.fp8_recipe, its default resolved (precision fp8)
  models::Precision gradient_dtype = models::Precision::fp32;  ///< strategy.gradient_dtype, its default resolved
  std::optional<double> measured_iteration_s;  ///< calibrate compute to this single-GPU iteration time
  int workers = 1;
  int batch_size = 1;  ///< per worker
  int iterations = 1;
  std::string architecture = "allreduce";  ///< allreduce | ps | byteps | gossip
  sync::SyncPolicy sync;                   ///< [strategy] sync and its table
  ParameterServer ps;
  Gossip gossip;
  std::string collective = "ring";
  collectives::NcclForce nccl;  ///< strategy.nccl_algo / nccl_proto (collective nccl or auto only)
  std::string scheduler = "wfbp";
  scheduling::SchedulerOptions scheduler_options;  ///< [strategy.fusion], [strategy.ddp], [strategy.priority]
  std::string framework = "none";                  ///< strategy.framework: none | horovod | ddp
  scheduling::FrameworkOptions framework_options;  ///< [strategy.horovod]
  Fidelity fidelity = Fidelity::flow;
  Compression compression;
  MemorySettings memory;
  parallel::Layout parallel;  ///< [parallel]; plain data parallelism over the workers when absent
  Numerics numerics;
  Stragglers stragglers;
  std::vector<Failure> failures;  ///< in time order
  Output output;
  Provenance provenance;
};

}  // namespace dtsim::scenario
