#include "sim/plan/bounds.hpp"

#include <algorithm>
#include <cmath>

#include "models/optimizer.hpp"
#include "sim/core/error.hpp"
#include "sim/memory/model_states.hpp"
#include "sim/run/layout_run.hpp"
#include "sim/run/memory_check.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/parallel/expert_parallel.hpp"
#include "sim/parallel/workload.hpp"
#include "sim/scenario/parallel_section.hpp"
#include "sim/sync/architecture_traits.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::plan {

double allreduce_bytes_received(const scheduling::IterationPlan& plan) {
  double bytes = 0;
  for (std::size_t b = 0; b < plan.buckets.size(); ++b) {
    if (plan.work.empty()) {
      bytes += static_cast<double>(plan.buckets[b].bytes);
      continue;
    }
    for (const scheduling::Exchange& e : plan.work[b].exchanges)
      if (e.kind == scheduling::Exchange::Kind::allreduce) bytes += static_cast<double>(e.bytes);
  }
  return bytes;
}

double layout_compute_bound_s(const scenario::Scenario& s, const scheduling::IterationPlan& whole) {
  const parallel::Layout l = scenario::layout_of(s);
  const models::Model& model = s.model;
  int blocks = 0;
  for (std::size_t i = 0; i < model.layers.size(); ++i)
    if (model.layers[i].block >= 0 && (i == 0 || model.layers[i - 1].block != model.layers[i].block)) ++blocks;
  const std::vector<int> per = parallel::layers_per_chunk(l, blocks);
  const auto chunks = static_cast<int>(per.size());
  // A micro-batch's forward and backward on one GPU of each model chunk: the whole batch's over the micro-batches
  // and over tensor x context (GEMMs are no faster per sample at a smaller micro-batch nor at a narrower shard).
  const double share = 1.0 / (static_cast<double>(l.tensor) * l.context * scenario::micro_batches(s));
  std::vector<double> chunk_s(static_cast<std::size_t>(chunks), 0.0);
  int seen = 0, chunk = 0, through = per.front();  // blocks seen, the current chunk, blocks up to its end
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const models::Layer& layer = model.layers[i];
    if (layer.block >= 0 && (i == 0 || model.layers[i - 1].block != layer.block)) ++seen;
    while (chunk + 1 < chunks && seen > through) through += per[static_cast<std::size_t>(++chunk)];
    if (layer.block < 0 && seen == blocks) chunk = chunks - 1;  // the head and the loss: the last chunk
    // Routed experts: the busiest expert-parallel rank's tokens, which every rank waits for (expert_parallel.hpp).
    const double load = layer.experts > 0 ? parallel::rank_load(layer, l.expert) : 1.0;
    chunk_s[static_cast<std::size_t>(chunk)] += (whole.layers[i].forward_s + whole.layers[i].backward_s) * share * load;
  }
  // GPU d runs chunks d, d + pipeline, ...: it starts once the first micro-batch's forward has crossed chunks 0 to
  // d - 1, and its last backward is followed by those chunks' backward of the same micro-batch.
  double bound = 0, before = 0;
  for (int d = 0; d < l.pipeline; ++d) {
    double own = 0;
    for (int g = d; g < chunks; g += l.pipeline) own += chunk_s[static_cast<std::size_t>(g)];
    bound = std::max(bound, before + scenario::micro_batches(s) * own);
    before += chunk_s[static_cast<std::size_t>(d)];
  }
  return bound;
}

Bounds bounds(const scenario::Scenario& s, const scenario::PlanJob& job) {
  Bounds b;
  b.layout = scenario::uses_layout(s);
  scenario::Scenario whole = s;  // one GPU doing a replica's whole work
  whole.parallel = parallel::Layout{};
  // A layout's bound needs the layers' times only: one worker, so that no data-parallel collective is planned.
  if (b.layout) whole.workers = 1;
  const scheduling::IterationPlan plan = run::make_iteration_plan(whole);
  b.gpu = s.gpu.name;
  b.gpus = s.workers;
  const platform::PlatformSpec& p = s.platform;
  const bool star = p.topology == platform::Topology::star;
  b.nodes = star ? s.workers : (s.workers + p.gpus_per_node - 1) / p.gpus_per_node;
  b.nic_Bps = star ? p.intra.bandwidth_Bps : p.inter.bandwidth_Bps * (p.node.structured ? p.node.nics : 1);
  b.fabric = fabric(p, b.nodes);
  b.global_batch = static_cast<double>(b.layout ? s.parallel.data : s.workers) * s.batch_size;
  b.to_accuracy = job.unit == "accuracy";
  b.accuracy = b.to_accuracy ? job.amount : 0.0;
  if (job.unit == "iterations") {
    b.iterations = job.amount;
  } else if (!b.to_accuracy) {
    double samples = job.amount;
    if (job.unit == "tokens") {
      if (s.model.tokens <= 0)
        throw core::InputError("[job] tokens: model '" + s.model.name + "' has no sequence length",
                               "give samples or iterations for a model that is not a transformer");
      samples /= static_cast<double>(s.model.tokens);
    }
    b.iterations = std::ceil(samples / b.global_batch);
  }
  scenario::Scenario measured = s;  // the breakdown, not the refusal
  measured.memory.refuse = false;
  const memory::MemoryBreakdown memory = b.layout ? run::check_layout_memory(measured) : run::memory_breakdown(s, plan);
  b.memory_peak_bytes = memory.total_bytes();
  b.memory_capacity_bytes = memory.capacity_bytes;
  b.fits = memory.fits();
  const memory::ModelStates whole_states = memory::model_states(s.model.parameter_count(), s.precision, s.gradient_dtype,
                                                                models::optimizer(s.memory.optimizer));
  b.checkpoint_bytes = whole_states.weights_bytes + whole_states.optimizer_bytes;
  double shard = 0;
  for (const memory::MemoryItem& item : memory.items)
    if (item.name == "weights" || item.name == "optimizer state") shard += item.bytes;
  b.checkpoint_node_bytes = std::min(b.checkpoint_bytes, shard * (star ? 1 : p.gpus_per_node));
  if (b.layout) {  // ZeRO shards the update: it is left out
    b.compute_s = layout_compute_bound_s(s, plan);
    return b;
  }
  for (const scheduling::LayerPhase& l : plan.layers) b.compute_s += l.forward_s + l.backward_s + l.update_s;
  // The NIC bound holds for a synchronous all-reduce every iteration over a network of nodes with NICs.
  const bool every_iteration = s.sync.rules().meeting() == sync::Meeting::kGradients &&
                               sync::architecture_named(s.architecture).meets == sync::Meets::kCollective;
  if (every_iteration && b.nodes > 1 && p.topology != platform::Topology::graph)
    b.bandwidth_s = allreduce_bytes_received(plan) / b.nic_Bps;
  return b;
}

}  // namespace dtsim::plan
