#include "sim/plan/layout_space.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/error.hpp"
#include "sim/memory/activations.hpp"
#include "sim/parallel/context_parallel.hpp"
#include "sim/parallel/expert_parallel.hpp"
#include "sim/parallel/workload.hpp"

namespace dtsim::plan {
namespace {

const models::Model& model_of(const LayoutSpace& space) { return space.base->model; }

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

/// The transformer layers (blocks) of the model.
int blocks(const models::Model& model) {
  int n = 0;
  for (std::size_t i = 0; i < model.layers.size(); ++i)
    if (model.layers[i].block >= 0 && (i == 0 || model.layers[i - 1].block != model.layers[i].block)) ++n;
  return n;
}

/// The ranks left to the dimensions not placed yet: workers over the extents placed so far (every registered
/// dimension but data and the folded ones, which re-divide a stage's ranks; the ones not enumerated yet are at the
/// base's extent, 1 unless fixed).
int model_parallel(const parallel::Layout& l) {
  int product = 1;
  for (const parallel::DimensionEntry& d : parallel::dimension_registry())
    if (d.name != "data" && !d.folded) product *= l.*d.extent;
  return product;
}

/// The loader's layout rules for the dimensions placed before data: the folded (expert) dimensions re-divide the
/// stage's ranks that data completes, so they are checked once it has (the expert step, or the last check).
bool refused_before_data(parallel::Layout l, const models::Model& model) {
  for (const parallel::DimensionEntry& d : parallel::dimension_registry())
    if (d.folded) l.*d.extent = 1;
  return !parallel::layout_refusal(l, model, 1).empty();
}

/// Megatron-LM keeps a tensor group inside a scale-up domain (Narayanan et al. 2021, section 3) and gives each of
/// its GPUs whole attention heads; with tensor > 1, sequence parallelism (Korthikanti et al. 2023) on or off (on
/// only, by the loader's rules, for a mixture of experts).
void tensor(const LayoutSpace& space, const LayoutPoint& p, std::vector<LayoutPoint>& out) {
  const int others = model_parallel(p.layout) / p.layout.tensor;
  for (int t : divisors(space.gpus_per_node)) {
    if (space.workers % (others * t) != 0) continue;
    LayoutPoint q = p;
    q.layout.tensor = t;
    for (const bool sequence_parallel : {false, true}) {
      if (t == 1 && sequence_parallel) break;
      q.layout.sequence_parallel = sequence_parallel;
      if (t == 1 || !refused_before_data(q.layout, model_of(space))) out.push_back(q);
    }
  }
}

/// Each context-parallel rank holds 1/context of every sequence (Megatron-LM: the sequence in 2 x context
/// load-balanced chunks), exchanging keys and values by ring (p2p) or all-gather.
void context(const LayoutSpace& space, const LayoutPoint& p, std::vector<LayoutPoint>& out) {
  const int others = model_parallel(p.layout) / p.layout.context;
  if (space.workers % others != 0) return;
  for (int c : divisors(space.workers / others)) {
    LayoutPoint q = p;
    q.layout.context = c;
    if (c == 1) {
      out.push_back(q);
      continue;
    }
    if (!parallel::context_refusal(q.layout, model_of(space)).empty()) continue;
    for (const std::string& comm : parallel::context_comm_names()) {
      q.layout.context_comm = comm;
      out.push_back(q);
    }
  }
}

/// Pipeline stages dividing the transformer layers (equal stages), or unequal ones: the layers in as equal runs
/// as they go, the extra layer to the middle stages (the first carries the embedding, the last the head and the
/// loss). With stages, 1F1B, and interleaved 1F1B at every number of equal model chunks per GPU.
void pipeline(const LayoutSpace& space, const LayoutPoint& p, std::vector<LayoutPoint>& out) {
  const int others = model_parallel(p.layout) / p.layout.pipeline;
  const int layers = blocks(model_of(space));
  if (space.workers % others != 0) return;
  for (int stages : divisors(space.workers / others)) {
    if (stages > 1 && stages > layers) break;
    LayoutPoint q = p;
    q.layout.pipeline = stages;
    q.layout.schedule = "1f1b";
    q.layout.virtual_stages = 1;
    q.layout.layers_per_stage.clear();
    if (stages > 1 && layers % stages != 0) {
      std::vector<int> per(static_cast<std::size_t>(stages), layers / stages);
      const int extra = layers % stages;  // < stages: to stages 1, 2, ... (stage 0 too when only it is left)
      for (int k = 0; k < extra; ++k) ++per[static_cast<std::size_t>((k + 1) % stages)];
      q.layout.layers_per_stage = per;
    }
    out.push_back(q);
    if (stages == 1 || layers % stages != 0) continue;
    q.layout.schedule = "interleaved";
    for (int chunks : divisors(layers / stages))
      if (chunks > 1) {
        q.layout.virtual_stages = chunks;
        out.push_back(q);
      }
  }
}

/// Data parallelism is what the other dimensions leave of the workers; its replicas split the global batch.
void data(const LayoutSpace& space, const LayoutPoint& p, std::vector<LayoutPoint>& out) {
  const int others = model_parallel(p.layout);
  if (space.workers % others != 0) return;
  LayoutPoint q = p;
  q.layout.data = space.workers / others;
  if (space.global_batch % q.layout.data != 0) return;
  q.batch = space.global_batch / q.layout.data;
  out.push_back(q);
}

/// Expert-tensor parallelism on a model with routed experts (each expert's weights split over expert_tensor ranks),
/// folded into each pipeline stage's tensor x context x data ranks as Megatron-LM does (it multiplies no ranks):
/// divisors of a node's GPUs (its all-gathers and reduce-scatters run at every MoE layer, as tensor's all-reduces do)
/// that the loader takes with the expert extent so far (parallel::expert_refusal). A dense model keeps 1.
void expert_tensor(const LayoutSpace& space, const LayoutPoint& p, std::vector<LayoutPoint>& out) {
  for (int et : divisors(space.gpus_per_node)) {
    LayoutPoint q = p;
    q.layout.expert_tensor = et;
    if (parallel::expert_refusal(q.layout, model_of(space)).empty()) out.push_back(q);
  }
}

/// Expert parallelism on a model with routed experts (each rank of an expert group holds 1/expert of them), folded
/// like expert_tensor: divisors of the stage's ranks over expert_tensor that the loader takes (the experts divide over
/// them, parallel::expert_refusal); with expert > 1 and shared experts, their overlap with the dispatch
/// (moe_shared_expert_overlap) on and off. A dense model keeps 1.
void expert(const LayoutSpace& space, const LayoutPoint& p, std::vector<LayoutPoint>& out) {
  const int stage_ranks = p.layout.tensor * p.layout.context * p.layout.data;
  const bool shared = parallel::has_shared_experts(model_of(space));
  if (stage_ranks % p.layout.expert_tensor != 0) return;
  for (int e : divisors(stage_ranks / p.layout.expert_tensor)) {
    LayoutPoint q = p;
    q.layout.expert = e;
    q.layout.moe_shared_expert_overlap = false;
    if (!parallel::expert_refusal(q.layout, model_of(space)).empty()) continue;
    out.push_back(q);
    if (e == 1 || !shared) continue;
    q.layout.moe_shared_expert_overlap = true;
    out.push_back(q);
  }
}

/// Micro-batches dividing a replica's batch (gradient accumulation without pipelining); the interleaved schedule
/// needs a multiple of the stages.
void micro_batch(const LayoutSpace&, const LayoutPoint& p, std::vector<LayoutPoint>& out) {
  for (int size : divisors(p.batch)) {
    LayoutPoint q = p;
    q.layout.micro_batch = size;
    out.push_back(q);
  }
}

/// None, selective (the attention core) and full (every transformer layer), those the model has.
void recomputation(const LayoutSpace& space, const LayoutPoint& p, std::vector<LayoutPoint>& out) {
  for (const std::string& name : memory::recomputation_names()) {
    LayoutPoint q = p;
    q.recomputation = memory::parse_recomputation(name);
    try {
      memory::recomputed_layers(model_of(space), q.recomputation);
    } catch (const core::InputError&) {  // selective with fused attention, or no transformer layers
      continue;
    }
    out.push_back(q);
  }
}

/// ZeRO / FSDP over the replicas: none; zero1 and zero2 with more than one replica; zero3 without pipelining;
/// hybrid (zero3 inside a node, replicas across nodes) where the replicas' group spans nodes and shares them.
void sharding(const LayoutSpace& space, const LayoutPoint& p, std::vector<LayoutPoint>& out) {
  LayoutPoint q = p;
  const int replicas = p.layout.replicas();
  const int per_node = space.gpus_per_node / std::min(space.gpus_per_node, model_parallel(p.layout) / p.layout.context);
  for (const parallel::Sharding s : {parallel::Sharding::none, parallel::Sharding::zero1, parallel::Sharding::zero2,
                                     parallel::Sharding::zero3, parallel::Sharding::hybrid}) {
    if (s != parallel::Sharding::none && replicas == 1) continue;
    const bool shards_parameters = s == parallel::Sharding::zero3 || s == parallel::Sharding::hybrid;
    if (shards_parameters && p.layout.pipeline > 1) continue;
    if (s == parallel::Sharding::hybrid && (per_node < 2 || replicas <= per_node)) continue;
    q.layout.sharding = s;
    out.push_back(q);
  }
}

const std::array<DimensionEnumerator, 9> kEnumerators{{
    {"tensor", {"parallel.tensor", "parallel.sequence_parallel"}, "divisors of the GPUs of a node that divide the heads; sequence parallelism on and off", tensor},
    {"context", {"parallel.context", "parallel.context_comm"}, "divisors of the GPUs left whose 2 x context chunks divide a sequence; p2p and all_gather", context},
    {"pipeline", {"parallel.pipeline", "parallel.schedule", "parallel.virtual_stages", "parallel.layers_per_stage"},
     "divisors of the GPUs left up to the layers (unequal stages where they do not divide them); 1F1B and interleaved", pipeline},
    {"data", {"parallel.data", "batch_size"}, "the GPUs left; its replicas divide the global batch", data, true},
    {"expert_tensor", {"parallel.expert_tensor"}, "with routed experts, divisors of a node's GPUs dividing a stage's ranks",
     expert_tensor, false, true},
    {"expert", {"parallel.expert", "parallel.moe_shared_expert_overlap"},
     "with routed experts, divisors of a stage's ranks over expert_tensor that divide the experts; with shared experts, "
     "their overlap on and off", expert, false, true},
    {"micro_batch", {"parallel.micro_batch"}, "divisors of a replica's batch", micro_batch},
    {"recomputation", {"memory.activation_recomputation"}, "none, selective, full", recomputation},
    {"sharding", {"parallel.sharding"}, "none, zero1, zero2 (with replicas), zero3 (without pipelining), hybrid", sharding},
}};

bool searches(const std::vector<std::string>& searched, std::string_view name) {
  return std::find(searched.begin(), searched.end(), name) != searched.end();
}

}  // namespace

std::span<const DimensionEnumerator> layout_enumerators() { return kEnumerators; }

std::vector<std::string> layout_dimension_names() {
  std::vector<std::string> out{"auto"};
  for (const DimensionEnumerator& e : kEnumerators)
    if (!e.derived) out.emplace_back(e.name);
  return out;
}

std::vector<std::string> applicable_dimensions(const std::vector<std::string>& searched, const models::Model& model) {
  const bool routed = std::any_of(model.layers.begin(), model.layers.end(), [](const models::Layer& l) { return l.experts > 0; });
  std::vector<std::string> out;
  for (const std::string& name : searched) {
    const auto e = std::find_if(kEnumerators.begin(), kEnumerators.end(), [&](const DimensionEnumerator& d) { return d.name == name; });
    if (routed || e == kEnumerators.end() || !e->routed_experts_only) out.push_back(name);
  }
  return out;
}

std::vector<LayoutPoint> enumerate_layouts(const LayoutSpace& space, const std::vector<std::string>& searched) {
  const scenario::Scenario& base = *space.base;
  LayoutPoint start;
  start.layout = base.parallel;
  start.recomputation = base.memory.recomputation;
  // A micro-batch the base sets (other than its whole batch) is kept; otherwise a replica's batch is one.
  const int fixed_micro_batch =
      base.parallel.micro_batch > 0 && base.parallel.micro_batch != base.batch_size ? base.parallel.micro_batch : 0;
  std::vector<LayoutPoint> points{start};
  for (const DimensionEnumerator& e : kEnumerators) {
    if (!e.derived && !searches(searched, e.name)) continue;
    std::vector<LayoutPoint> next;
    for (const LayoutPoint& p : points) e.extend(space, p, next);
    points = std::move(next);
  }
  std::vector<LayoutPoint> out;
  for (LayoutPoint& p : points) {
    if (!searches(searched, "micro_batch")) p.layout.micro_batch = fixed_micro_batch > 0 ? fixed_micro_batch : p.batch;
    if (p.batch % p.layout.micro_batch != 0) continue;
    if (!parallel::layout_refusal(p.layout, base.model, p.batch / p.layout.micro_batch).empty()) continue;
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> layout_settings(const LayoutPoint& p,
                                                                 const std::vector<std::string>& searched) {
  const parallel::Layout& l = p.layout;
  std::vector<std::pair<std::string, std::string>> out;
  const auto set = [&](std::string key, std::string value) { out.emplace_back(std::move(key), std::move(value)); };
  if (searches(searched, "tensor")) {
    set("parallel.tensor", std::to_string(l.tensor));
    if (l.tensor > 1) set("parallel.sequence_parallel", l.sequence_parallel ? "true" : "false");
  }
  if (searches(searched, "context")) {
    set("parallel.context", std::to_string(l.context));
    if (l.context > 1) set("parallel.context_comm", "\"" + l.context_comm + "\"");
  }
  if (searches(searched, "pipeline")) {
    set("parallel.pipeline", std::to_string(l.pipeline));
    if (l.pipeline > 1) {
      set("parallel.schedule", "\"" + l.schedule + "\"");
      set("parallel.virtual_stages", std::to_string(l.virtual_stages));
      if (!l.layers_per_stage.empty()) set("parallel.layers_per_stage", fmt::format("[{}]", fmt::join(l.layers_per_stage, ", ")));
    }
  }
  if (searches(searched, "expert_tensor")) set("parallel.expert_tensor", std::to_string(l.expert_tensor));
  if (searches(searched, "expert")) {
    set("parallel.expert", std::to_string(l.expert));
    if (l.expert > 1) set("parallel.moe_shared_expert_overlap", l.moe_shared_expert_overlap ? "true" : "false");
  }
  set("batch_size", std::to_string(p.batch));
  set("parallel.micro_batch", std::to_string(l.micro_batch));
  if (searches(searched, "recomputation"))
    set("memory.activation_recomputation", "\"" + std::string(memory::recomputation_name(p.recomputation)) + "\"");
  if (searches(searched, "sharding"))
    set("parallel.sharding", "\"" + std::string(parallel::sharding_name(l.sharding)) + "\"");
  return out;
}

std::string layout_label(const LayoutPoint& p) {
  const parallel::Layout& l = p.layout;
  std::string out = parallel::extents_name(l);
  if (l.sequence_parallel) out += ", sequence parallel";
  if (l.context > 1) out += ", context " + l.context_comm;
  if (l.moe_shared_expert_overlap) out += ", shared experts overlapped";
  if (l.virtual_stages > 1) out += fmt::format(", interleaved x{}", l.virtual_stages);
  if (!l.layers_per_stage.empty()) out += fmt::format(", stages of [{}] layers", fmt::join(l.layers_per_stage, ", "));
  const int micro_batches = p.batch / l.micro_batch;
  out += fmt::format(", {} micro-batch{} of {}", micro_batches, micro_batches == 1 ? "" : "es", l.micro_batch);
  if (p.recomputation != memory::Recomputation::none)
    out += fmt::format(", recompute {}", memory::recomputation_name(p.recomputation));
  if (l.sharding != parallel::Sharding::none) out += fmt::format(", {}", parallel::sharding_name(l.sharding));
  return out;
}

}  // namespace dtsim::plan
