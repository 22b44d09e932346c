#pragma once
/// What one simulation run produces; everything viz/ writes comes from here.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/memory/memory_breakdown.hpp"

namespace dtsim::run {

/// Where one worker's time in one iteration went. When the workers start the iteration together,
/// forward + backward + update + exposed_comm + idle equals the iteration time.
struct Breakdown {
  double forward_s = 0;
  double backward_s = 0;
  double update_s = 0;        ///< optimizer step
  double exposed_comm_s = 0;  ///< communication not hidden behind compute
  double idle_s = 0;          ///< from this worker's end of iteration to the last worker's
};

/// One part of a worker's iteration: a kind of kernel of its compute, its exposed communication or a wait.
struct TimeShare {
  std::string name;  ///< "GEMM", "attention", "element-wise", "optimizer", "launch/CPU", "measured", "exposed
                     ///< communication", "pipeline bubble", "waiting for other workers"
  double seconds = 0;
};

/// One iteration of the whole job (BSP: all workers).
struct IterationResult {
  int index = 0;
  double start_s = 0;
  double end_s = 0;
  double time_s = 0;                    ///< end_s - start_s
  double samples_per_s = 0;            ///< global batch / time_s
  double scaling_efficiency = 0;       ///< samples_per_s / (workers * single-worker samples/s)
  std::vector<Breakdown> per_worker;   ///< indexed by worker
};

/// Bytes one worker put on and took off the network over the whole run.
struct WorkerTraffic {
  std::int64_t bytes_sent = 0;
  std::int64_t bytes_received = 0;
  bool operator==(const WorkerTraffic&) const = default;
};

/// Load of one parameter server over the whole run.
struct ServerLoad {
  int host = 0;               ///< the host it runs on
  std::int64_t bytes_in = 0;  ///< pushes received
  std::int64_t bytes_out = 0; ///< pulls served
  double busy_s = 0;          ///< summing pushes
};

/// One worker over the whole run.
struct WorkerSummary {
  int iterations = 0;     ///< iterations it computed (asynchronous schemes: fast workers compute more)
  int dropped = 0;        ///< of which the server dropped the gradient (backup workers)
  int skipped = 0;        ///< of which the worker skipped the upload (LAG)
  double waiting_s = 0;   ///< blocked on synchronisation (exposed communication plus waiting for others)
  bool operator==(const WorkerSummary&) const = default;
};

/// Traffic on each directed link of a class: links of one kind (names that differ only in their numbers) that
/// carry the same bytes at the same bandwidth (platform::link_classes).
struct LinkUse {
  std::string name;              ///< SimGrid name of the class's first link (lowest id), e.g. "nic3_UP"
  double bytes_per_iteration = 0;
  double utilisation = 0;        ///< bytes / (bandwidth x mean iteration time)
  double bandwidth_Bps = 0;      ///< the rate it carries payload at
  double line_rate_Bps = 0;      ///< its product's line rate (above bandwidth_Bps where packet overhead is modelled)
  int count = 1;                 ///< links in the class
};

/// One interval on the timeline (Chrome trace "X" event).
struct TraceEvent {
  int worker = 0;
  std::string lane;   ///< "compute", "comm" or "compress"
  std::string name;   ///< e.g. "forward conv1", "backward layer4.2.conv3", "exchange bucket 3"
  std::string category;  ///< "forward", "backward", "update", "comm"
  double start_s = 0;
  double end_s = 0;
  std::int64_t bytes = 0;  ///< payload bytes of a communication event, 0 otherwise
  /// Of a communication event, the part of its span that is start-up latency: its plans' per-step and path
  /// latencies along their longest chain (alpha per step; collectives::LatencyOnly); the rest is its bytes over
  /// the links' bandwidth. Unset where not known (other events, layouts' collectives, sampled participants).
  std::optional<double> latency_s;
};

/// One point-to-point message at the message level (Chrome trace flow arrow).
struct MessageArrow {
  int from = 0;
  int to = 0;
  double start_s = 0;   ///< transfer starts (both sides posted)
  double end_s = 0;
  std::int64_t bytes = 0;
};

/// One test-set evaluation of numerics mode.
struct CurvePoint {
  std::int64_t step = 0;
  double simulated_time_s = 0;  ///< when step `step` ends on the simulated cluster
  double loss = 0;
  double accuracy = 0;
  double consensus_distance = 0;  ///< (1/n) sum_i ||x_i - x_bar||^2 over the workers' models (0: replicas agree)
};

/// Identification of the run, echoed into every report.
struct RunInfo {
  std::string scenario;        ///< file path or "built-in default"
  std::string model;
  std::string gpu;
  std::string precision;
  std::string gradient_dtype;  ///< the dtype gradients are kept in and exchanged in
  std::string platform;        ///< platform name
  std::string topology;        ///< "star", "two_level", ...
  std::string network_model;   ///< SimGrid network model, e.g. "CM02"
  std::vector<std::string> network_settings;  ///< every SimGrid setting applied, "key:value"
  std::string sync;            ///< scheme with its parameters, e.g. "ssp (staleness 3)"
  std::string architecture;    ///< in words, e.g. "ring all-reduce", "parameter server (2 dedicated servers, ...)"
  std::string collective;
  std::string scheduler;
  std::string fidelity;
  std::string compression;     ///< compressor and how its kernel times were obtained; empty without compression
  std::string not_reproducible;  ///< why the same inputs would not give the same result (host timing); empty if they would
  int workers = 0;
  int trace_workers = 0;       ///< workers whose events and per-worker breakdowns are reported
  int batch_per_worker = 0;   ///< samples per worker, or per data-parallel replica under a layout
  int replicas = 0;           ///< data-parallel replicas sharing the global batch; 0: every worker is one
  int sampled = 0;            ///< workers that compute an iteration under client sampling (FedAvg); 0: all
  int iterations = 0;
  std::int64_t parameters = 0;
  std::int64_t gradient_tensors = 0;
  std::int64_t buckets = 0;    ///< communication messages (buckets) per iteration
  double overlap_slowdown = 1;     ///< compute slowdown while a worker's exchange runs (CommOverlap)
  double collective_launch_s = 0;  ///< launch cost of an exchange (CommOverlap)
  // Provenance: which dtsim, which command and which resolved settings made this result.
  std::string dtsim_version;   ///< core::dtsim_version()
  std::string command_line;    ///< as typed (set by the command line; empty from the library)
  std::vector<std::string> overrides;  ///< --set arguments
  std::string resolved_scenario;       ///< scenario::Provenance::resolved_toml
  std::string scenario_digest;         ///< scenario::Provenance::digest
  std::vector<std::pair<std::string, std::string>> inputs;  ///< (absolute path, digest) of every file read
};

/// The full result of one run.
struct RunResult {
  RunInfo info;
  std::vector<IterationResult> iterations;  ///< the iterations completed (fewer than asked when the job stopped)
  double mean_iteration_s = 0;            ///< mean over iterations
  double samples_per_s = 0;               ///< global batch / mean_iteration_s
  double single_worker_iteration_s = 0;   ///< forward + backward + update of one worker, no communication
  double scaling_efficiency = 0;
  std::vector<WorkerTraffic> traffic;     ///< indexed by worker
  std::vector<TraceEvent> events;         ///< timeline of the traced workers, each lane in time order
  std::vector<MessageArrow> messages;     ///< message level: iteration 0's messages between traced workers
  std::vector<TraceEvent> critical_path;  ///< tasks bounding the last iteration of worker 0, in order
  std::vector<double> exposed_comm_per_bucket_s;  ///< last iteration of worker 0, indexed by bucket
  std::vector<std::string> nccl_choice_per_bucket;  ///< collective nccl/auto: "ring/Simple" per bucket; else empty
  std::vector<CurvePoint> curve;          ///< numerics mode: test loss and accuracy against simulated time
  double target_accuracy = 0;             ///< numerics mode: the target of time_to_accuracy_s (0: none)
  std::optional<double> time_to_accuracy_s;  ///< simulated time when the target accuracy was first reached
  std::vector<LinkUse> links;             ///< every class of links with traffic, highest utilisation first
  std::vector<WorkerSummary> workers;     ///< indexed by worker
  std::vector<ServerLoad> servers;        ///< parameter servers, indexed by server
  std::vector<std::int64_t> staleness;    ///< ssp/asp: pulls by staleness (iterations missing from the slowest worker)
  std::vector<std::string> failures;      ///< what failed and when ("1.500 s: worker 3 crashed"), in order
  memory::MemoryBreakdown memory;         ///< peak memory of the fullest GPU
  /// Model FLOPs of one sample, forward and backward without recomputation: 3 x the forward FLOPs (Chowdhery et
  /// al., "PaLM", 2022, appendix B).
  double model_flops_per_sample = 0;
  double peak_flops_per_gpu = 0;          ///< dense peak at the run's precision
  /// Model FLOPs utilisation: model FLOPs per second achieved over the workers' peak (PaLM, appendix B).
  double mfu = 0;
  /// Worker 0's last iteration by kind of kernel, exposed communication, bubble and wait (sim/run/time_by_class.hpp);
  /// the parts sum to its iteration time when the workers start it together.
  std::vector<TimeShare> time_by_class;
  std::string stopped;                    ///< why the job stopped before its last iteration; empty otherwise
  double stopped_at_s = 0;                ///< when it stopped (simulated time), with `stopped`
};

}  // namespace dtsim::run
