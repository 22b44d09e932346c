#include "sim/parallel/stage_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "models/fp8_recipe.hpp"
#include "sim/core/units.hpp"
#include "sim/memory/activations.hpp"
#include "sim/memory/model_states.hpp"
#include "sim/parallel/expert_parallel.hpp"
#include "sim/parallel/pipeline_schedule.hpp"

namespace dtsim::parallel {
namespace {

/// How much of a layer's kept activations one GPU of the tensor group holds (routed experts: the busiest rank's load
/// of its own tokens' share).
double kept_share(const models::Layer& l, const Layout& layout) {
  const bool split = l.split == models::TensorSplit::row || l.split == models::TensorSplit::sharded;
  return (split || layout.sequence_parallel ? 1.0 / layout.tensor : 1.0) *
         (l.experts > 0 ? rank_load(l, layout.expert) : 1.0);
}

/// Activations one micro-batch leaves in a chunk, and the most a full recomputation rebuilds at once.
struct ChunkActivations {
  double kept = 0;
  double rebuilt = 0;
};

ChunkActivations chunk_activations(const Workload& w, const std::vector<int>& units, const models::Model& model,
                                   const Layout& layout, double element, memory::Recomputation r) {
  ChunkActivations a;
  for (int unit : units) {
    const Unit& u = w.units[static_cast<std::size_t>(unit)];
    double block = 0;
    for (auto i = static_cast<std::size_t>(u.first_layer); i < static_cast<std::size_t>(u.end_layer); ++i) {
      const models::Layer& l = model.layers[i];
      const double kept = memory::kept_bytes(l, element, r == memory::Recomputation::selective && l.attention_core) *
                          kept_share(l, layout);
      if (r == memory::Recomputation::full && l.block >= 0) block += kept;
      else a.kept += kept;
    }
    if (r == memory::Recomputation::full && model.layers[static_cast<std::size_t>(u.first_layer)].block >= 0) {
      const models::Layer& first = model.layers[static_cast<std::size_t>(u.first_layer)];
      a.kept += element * static_cast<double>(first.input_elements) / (layout.sequence_parallel ? layout.tensor : 1);
      a.rebuilt = std::max(a.rebuilt, block);
    }
  }
  // Context parallelism: a rank holds 1/context of every sequence's tokens (and of its attention scores' rows).
  a.kept *= static_cast<double>(layout.micro_batch) / layout.context;
  a.rebuilt *= static_cast<double>(layout.micro_batch) / layout.context;
  return a;
}

}  // namespace

memory::MemoryBreakdown stage_memory(const Layout& layout, const Workload& workload, int stage,
                                     const models::Model& model, const models::GpuProfile& gpu,
                                     models::Precision precision, models::Precision gradient_dtype,
                                     const models::Optimizer& optimizer,
                                     memory::Recomputation recomputation, int micro_batches, int hybrid_shard,
                                     models::Fp8Recipe fp8_recipe) {
  const StagePlan& plan = workload.stages[static_cast<std::size_t>(stage)];
  memory::MemoryBreakdown b;
  b.gpu = gpu.name;
  b.where = "pipeline stage " + std::to_string(stage);
  b.capacity_bytes = gpu.memory_bytes;
  const auto parameters = static_cast<std::int64_t>(plan.parameters);
  std::int64_t fp8_parameters = 0, expert_fp8_parameters = 0;  // of the stage's Linear layers, per rank
  for (const auto& chunk : plan.chunks)
    for (int u : chunk) {
      const Unit& unit = workload.units[static_cast<std::size_t>(u)];
      for (auto i = static_cast<std::size_t>(unit.first_layer); i < static_cast<std::size_t>(unit.end_layer); ++i)
        if (const models::Layer& l = model.layers[i]; models::runs_in_fp8(l) && l.experts > 0)
          expert_fp8_parameters += l.parameter_count() / (layout.expert * layout.expert_tensor);
        else if (models::runs_in_fp8(l))
          fp8_parameters += l.parameter_count() / (l.split != models::TensorSplit::replicated ? layout.tensor : 1);
    }
  const memory::ModelStates states =
      memory::model_states(parameters, precision, gradient_dtype, optimizer, fp8_parameters, fp8_recipe);
  const int shards = layout.sharding == Sharding::hybrid ? hybrid_shard
                     : layout.sharding == Sharding::none ? 1
                                                         : layout.replicas();
  const bool shard_gradients = layout.sharding != Sharding::none && layout.sharding != Sharding::zero1;
  const bool shard_weights = layout.sharding == Sharding::zero3 || layout.sharding == Sharding::hybrid;
  const double e = memory::element_bytes(precision);
  const std::string precision_text(models::precision_name(precision));
  auto part = [&](const char* name, double bytes, bool sharded, const std::string& what) {
    b.items.push_back({name, sharded ? bytes / shards : bytes,
                       sharded ? what + fmt::format(", 1/{} of them (sharded)", shards) : what});
  };
  part("weights", states.weights_bytes, shard_weights,
       fmt::format("{} parameters of the stage per GPU x {} B ({})", core::format_count(parameters), e, precision_text));
  part("gradients", states.gradients_bytes, shard_gradients,
       fmt::format("{} B each ({})", memory::element_bytes(gradient_dtype), models::precision_name(gradient_dtype)));
  part("optimizer state", states.optimizer_bytes, layout.sharding != Sharding::none,
       fmt::format("{}: {} fp32 state{}{}", optimizer.name, optimizer.state_words, optimizer.state_words == 1 ? "" : "s",
                   e < 4 ? " + fp32 master weights" : ""));
  // Megatron-LM's distributed optimizer steps on fp32 main gradients: with 16-bit gradients it keeps an fp32 copy of
  // its shard of them (distrib_optimizer.py; docs/user-guide/features/dist_optimizer.md, "fp16 parameters, fp16
  // gradients": 4 + 16/d bytes per parameter, 4/d of them this copy).
  if (layout.framework.framework == Framework::megatron && layout.sharding == Sharding::zero1 &&
      memory::element_bytes(gradient_dtype) < 4)
    part("fp32 main-gradient shard", 4.0 * static_cast<double>(parameters), true,
         "the distributed optimizer's fp32 copy of its shard of the 16-bit gradients");
  if (precision == models::Precision::fp8)
    part("fp8 weight copies", states.fp8_weight_bytes, shard_weights,
         fmt::format("{} Linear-layer parameters of the stage per GPU x {} B ({} recipe)",
                     core::format_count(fp8_parameters), models::fp8_weight_copy_bytes(fp8_recipe),
                     models::fp8_recipe_name(fp8_recipe)));
  // Routed experts: 1/(expert x expert_tensor) of them per GPU, their states sharded over expert_data (Megatron-LM's
  // distributed optimizer), their dispatch and combine buffers (the all-to-all's send and receive of one MoE layer).
  double expert_parameters = 0, routed_bytes = 0;
  for (const auto& chunk : plan.chunks)
    for (int u : chunk) expert_parameters += workload.units[static_cast<std::size_t>(u)].expert_parameters;
  if (expert_parameters > 0) {
    const memory::ModelStates experts =
        memory::model_states(static_cast<std::int64_t>(expert_parameters), precision, gradient_dtype, optimizer,
                             expert_fp8_parameters, fp8_recipe);
    const int expert_shards = layout.sharding == Sharding::none
                                  ? 1
                                  : layout.tensor * layout.context * layout.data / (layout.expert * layout.expert_tensor);
    b.items.push_back({"expert weights", experts.weights_bytes,
                       fmt::format("{} routed-expert parameters per GPU (1/{} of the stage's)",
                                   core::format_count(static_cast<std::int64_t>(expert_parameters)),
                                   layout.expert * layout.expert_tensor)});
    b.items.push_back({"expert gradients", shard_gradients ? experts.gradients_bytes / expert_shards : experts.gradients_bytes,
                       fmt::format("{} B each", memory::element_bytes(gradient_dtype))});
    b.items.push_back({"expert optimizer state", experts.optimizer_bytes / expert_shards,
                       fmt::format("1/{} of them (sharded over expert_data)", expert_shards)});
    if (precision == models::Precision::fp8)
      b.items.push_back({"expert fp8 weight copies", experts.fp8_weight_bytes,
                         fmt::format("{} routed-expert parameters per GPU", core::format_count(expert_fp8_parameters))});
    for (const models::Layer& l : model.layers)
      if (l.kernel == models::Kernel::moe_permute)
        routed_bytes = std::max(routed_bytes, 2.0 * memory::element_bytes(precision) *
                                                  static_cast<double>(l.output_elements * layout.micro_batch) /
                                                  (layout.context * layout.tensor));
    for (const models::Layer& l : model.layers)
      if (l.experts > 0) {
        routed_bytes *= rank_load(l, layout.expert);
        break;
      }
    b.items.push_back({"dispatch buffers", routed_bytes,
                       "one MoE layer's all-to-all send and receive buffers of a micro-batch's routed tokens"});
  }
  if (shard_weights) {
    std::vector<double> units;
    for (const auto& chunk : plan.chunks)
      for (int u : chunk) units.push_back(workload.units[static_cast<std::size_t>(u)].parameters);
    std::sort(units.rbegin(), units.rend());
    double gathered = 0;
    for (std::size_t i = 0; i < std::min<std::size_t>(2, units.size()); ++i) gathered += units[i];
    b.items.push_back({"gathered parameters", gathered * memory::element_bytes(precision),
                       "the two largest units' weights, gathered at once"});
  }
  const double element = memory::element_bytes(precision);
  std::vector<ChunkActivations> chunks;
  for (const auto& units : plan.chunks)
    chunks.push_back(chunk_activations(workload, units, model, layout, element, recomputation));
  // The schedule's worst moment: activations of every forward whose backward has not run.
  const std::vector<Pass> passes =
      pipeline_schedule(layout.schedule)(stage, layout.pipeline, micro_batches, layout.virtual_stages);
  std::vector<int> live(chunks.size(), 0);
  double now = 0, peak = 0, rebuilt = 0;
  int in_flight = 0;
  for (const Pass& p : passes) {
    const ChunkActivations& c = chunks[static_cast<std::size_t>(p.chunk)];
    const int step = p.forward ? 1 : -1;
    live[static_cast<std::size_t>(p.chunk)] += step;
    now += step * c.kept;
    if (now > peak) {
      peak = now;
      in_flight = 0;
      for (int n : live) in_flight += n;
    }
    rebuilt = std::max(rebuilt, c.rebuilt);
  }
  b.items.push_back({"activations", peak + rebuilt,
                     fmt::format("{} micro-batches of {} in flight at the schedule's peak{}", in_flight,
                                 layout.micro_batch, rebuilt > 0 ? ", plus one layer rebuilt" : "")});
  b.notes.push_back("NCCL's buffers, the allocator's fragmentation, the CUDA context");
  return b;
}

}  // namespace dtsim::parallel
