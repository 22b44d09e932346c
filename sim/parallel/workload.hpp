#pragma once
/// The training iteration of a 3D-parallel layout as a task graph, one program per pipeline stage: Megatron-LM's
/// tensor-parallel collectives inside each transformer layer, the pipeline schedule's passes with their
/// activation sends, and the data-parallel gradient reductions (or local SGD's model averages) or ZeRO/FSDP gathers
/// and reduce-scatters.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "models/gpu_profile.hpp"
#include "models/model.hpp"
#include "sim/parallel/data_parallel.hpp"
#include "sim/parallel/layout.hpp"
#include "sim/scheduling/copy_costs.hpp"
#include "sim/scheduling/iteration_plan.hpp"
#include "sim/taskgraph/task_graph.hpp"

namespace dtsim::parallel {

/// What the data-parallel replicas of a stage exchange in an iteration (sim/sync's scheme, iteration by iteration).
enum class DataExchange {
  gradients,  ///< every gradient, reduced as backward produces it (bsp; ZeRO/FSDP's reduce-scatters)
  models,     ///< each replica steps alone, then the replicas average their parameters (local SGD's period end)
  none,       ///< each replica steps alone (local SGD inside a period); hybrid sharding still reduce-scatters
};

/// One unit's data-parallel gradients on a rank of its stage, as the stage's scheduler sees them.
struct StageGradient {
  int unit = 0;             ///< index into Workload::units
  std::int64_t bytes = 0;   ///< on the wire, in the gradient dtype, one tensor-parallel rank's share
  double backward_s = 0;    ///< its backward's computation in one micro-batch (recomputation included)
  /// Per layer of the unit: (model layer, its parameters on one tensor-parallel rank).
  std::vector<std::pair<int, std::int64_t>> layer_parameters;
};

/// A stage's data-parallel exchanges from its gradients (forward order): the plan's buckets in launch order, whose
/// tensors and ready_layer index `gradients` (a bucket is issued after the last micro-batch's backward of its ready
/// unit, and not before `not_before_s` after that backward pass starts), and, when not empty, each bucket's work
/// (compress, the exchanges among the stage's data-parallel ranks, decompress). Its credit_bytes must be 0.
using DataPlanner = std::function<scheduling::IterationPlan(int stage, const std::vector<StageGradient>& gradients)>;

/// What the builder needs besides the layout.
struct WorkloadInput {
  const models::Model* model = nullptr;
  std::vector<models::LayerTime> times;  ///< per layer of the model, one micro-batch on one whole GPU
  std::vector<bool> recomputed;          ///< per layer: its forward runs again in backward
  models::Precision precision = models::Precision::fp32;
  models::Precision gradient_dtype = models::Precision::fp32;  ///< of the data-parallel reductions
  int micro_batches = 1;                 ///< per iteration and pipeline
  int iterations = 1;
  int hybrid_shard = 1;                  ///< hybrid sharding: the data-parallel ranks of a node
  std::vector<DataExchange> exchanges;   ///< per iteration (empty: gradients every iteration); models: not with zero1..3
  int averaged_copies = 1;               ///< model-sized vectors an average moves (2: the momentum buffers too)
  /// Overlap Local-SGD: an average is awaited by the next averaging iteration's step, not by the next forward.
  bool average_in_flight = false;
  /// The data dimension's buckets of each stage without sharded parameters (sharding none, zero1, zero2); empty:
  /// each unit's gradients one reduction (wfbp at the unit's granularity). Zero3 and hybrid sharding reduce-scatter
  /// each unit in every micro-batch (FSDP frees a unit's unsharded gradient after its reduce-scatter).
  DataPlanner data_planner;
  /// How a stage's data-parallel gradients meet (sharding = "none" only, else collective): collectives of the data
  /// group; or per bucket one push to the parameter servers (item: the bucket's index in the stage's plan), their
  /// sum on the server stream (server_sums) and a pull on the gather stream; or per bucket one exchange with the
  /// same rank of the neighbouring replicas (data_parallel.hpp's fragments). A push or neighbour exchange stands
  /// for all of its bucket's exchanges (their local work included), as in plain data parallelism.
  ExchangeFragment::Kind data_meeting = ExchangeFragment::Kind::collective;
  /// push_pull: per bucket of stage `stage`'s plan, the servers' summation between its push and its pull (0: none).
  std::function<std::vector<double>(int stage, const scheduling::IterationPlan& plan)> server_sums;
  /// The GPU's element-wise copies (sim/scheduling/copy_costs.hpp): the framework's casts and copies around sharded
  /// parameters' collectives (sim/parallel/framework.hpp).
  scheduling::CopyCosts copy;
};

/// A unit of the model: a transformer layer, or the layers before the first or after the last one. Sharded
/// data parallelism gathers and reduces a unit at a time (FSDP's wrapping unit); gradients of a unit are
/// reduced together (a bucket).
struct Unit {
  int first_layer = 0;
  int end_layer = 0;      ///< one past the last
  double parameters = 0;  ///< per tensor-parallel rank, routed experts aside
  double expert_parameters = 0;  ///< of its routed experts, per rank of its expert x expert_tensor groups
};

/// A stage's share of the model and its program's landmarks.
struct StagePlan {
  std::vector<std::vector<int>> chunks;  ///< per chunk of the stage: its units
  double parameters = 0;                 ///< per rank of the stage, before data-parallel sharding
  std::vector<int> iteration_end;        ///< per iteration: the task that ends it on this stage
  /// Its data-parallel buckets (ready_layer: a unit) and their work, as WorkloadInput::data_planner gave them.
  scheduling::IterationPlan exchanges;
  std::vector<double> server_sum_s;  ///< push_pull (WorkloadInput::server_sums): per bucket
};

struct Workload {
  taskgraph::TaskGraph graph;
  std::vector<Unit> units;
  std::vector<StagePlan> stages;
};

/// The transformer layers of each model chunk (pipeline x virtual_stages of them, in model order) of a model of
/// `blocks` layers: layout.layers_per_stage, or equal runs when it is empty. The layers before the first transformer
/// layer (the embedding) join the first chunk, those after the last (the final norm, head and loss) the last chunk.
std::vector<int> layers_per_chunk(const Layout& layout, int blocks);

/// Why the layout cannot train `model` (empty when it can): tensor or pipeline parallelism on a model without
/// transformer layers, layers not divisible by the model chunks (or a layers_per_stage list of another length, sum,
/// or with an empty chunk other than an embedding's or loss's own), ZeRO-3 or hybrid
/// sharding with pipelining (DeepSpeed and FSDP do not pipeline sharded parameters), a framework with a sharding it does
/// not run, a schedule refusal.
std::string layout_refusal(const Layout& layout, const models::Model& model, int micro_batches);

/// The task graph of `input.iterations` iterations under `layout` (layout_refusal() empty).
Workload build_workload(const Layout& layout, const WorkloadInput& input);

/// The tasks of each stage's program in build_workload(layout, input), counted without building it (a million
/// micro-batches would take gigabytes): every pass emits the same tasks for its chunk and direction whatever its
/// micro-batch, and every iteration of one DataExchange the same passes, so a stage has, summed over the kinds of
/// iteration, iterations x (fixed + micro_batches x per micro-batch) tasks, read off one iteration of the kind
/// built at pipeline and at 2 x pipeline micro-batches.
std::vector<std::int64_t> workload_tasks(const Layout& layout, const WorkloadInput& input);

}  // namespace dtsim::parallel
