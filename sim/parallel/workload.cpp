#include "sim/parallel/workload.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/memory/model_states.hpp"
#include "sim/parallel/context_parallel.hpp"
#include "sim/parallel/expert_parallel.hpp"
#include "sim/parallel/pipeline_schedule.hpp"

namespace dtsim::parallel {
namespace {

using models::Layer;
using models::TensorSplit;
using taskgraph::Dep;
using taskgraph::Op;
using taskgraph::Stream;
using taskgraph::Task;

/// A stretch of computation, then the collective that ends it (none: `op` compute), on `group`'s stream. With
/// `overlaps` the next segment's computation overlaps the collective but for its `follows` fraction, which runs
/// after both (ring attention: every key/value block but the last is computed on while the next one arrives; MoE:
/// the shared experts while the tokens are dispatched, follows 0, the segment after waiting for both).
struct Segment {
  double compute_s = 0;
  Op op = Op::compute;
  std::int64_t bytes = 0;
  const char* group = "tensor";
  Stream stream = Stream::tensor;
  bool overlaps = false;
  double follows = 0;
};

/// How a layer's work and parameters divide over the tensor group.
bool splits_work(const Layer& l, const Layout& layout) {
  return l.split != TensorSplit::replicated || layout.sequence_parallel;
}
bool splits_parameters(const Layer& l) { return l.split != TensorSplit::replicated; }
/// A vocabulary-parallel embedding ends with an all-reduce of its output, like a row-parallel linear. Routed experts
/// exchange their tokens over the expert groups instead (expert_parallel.hpp).
bool reduces_output(const Layer& l) {
  return l.experts == 0 && (l.split == TensorSplit::row || (l.split == TensorSplit::sharded && l.parameter_count() > 0));
}
bool starts_column_run(const models::Model& m, std::size_t i) {
  return m.layers[i].experts == 0 && m.layers[i].split == TensorSplit::column &&
         (i == 0 || m.layers[i - 1].split != TensorSplit::column);
}
/// The first and the last routed-expert module of a run of them.
bool starts_routed(const models::Model& m, std::size_t i) {
  return m.layers[i].experts > 0 && (i == 0 || m.layers[i - 1].experts == 0);
}
bool ends_routed(const models::Model& m, std::size_t i) {
  return m.layers[i].experts > 0 && (i + 1 == m.layers.size() || m.layers[i + 1].experts == 0);
}

class Builder {
 public:
  Builder(const Layout& layout, const WorkloadInput& in) : layout_(layout), in_(in), model_(*in.model) {
    element_ = memory::element_bytes(in.precision);
    gradient_ = memory::element_bytes(in.gradient_dtype);
  }

  Workload build() {
    make_units();
    const int stages = layout_.pipeline, chunks = layout_.virtual_stages;
    work_.stages.resize(static_cast<std::size_t>(stages));
    const std::vector<int> per_chunk = layers_per_chunk(layout_, blocks_);
    for (int g = 0, first = 0; g < static_cast<int>(per_chunk.size()); first += per_chunk[static_cast<std::size_t>(g++)])
      for (int b = first; b < first + per_chunk[static_cast<std::size_t>(g)]; ++b) chunk_of_block_.push_back(g);
    for (int s = 0; s < stages; ++s) {
      StagePlan& stage = work_.stages[static_cast<std::size_t>(s)];
      for (int c = 0; c < chunks; ++c) {
        const int g = c * stages + s;
        std::vector<int>& units = stage.chunks.emplace_back();
        for (std::size_t u = 0; u < work_.units.size(); ++u)
          if (chunk_of_unit(static_cast<int>(u)) == g) units.push_back(static_cast<int>(u));
        for (int u : units) stage.parameters += work_.units[static_cast<std::size_t>(u)].parameters;
      }
    }
    plan_exchanges();
    work_.graph.programs.resize(static_cast<std::size_t>(stages));
    for (int s = 0; s < stages; ++s) {
      work_.graph.programs[static_cast<std::size_t>(s)].role = "stage " + std::to_string(s);
      build_stage(s);
    }
    for (const auto& [key, at] : receives_) {
      const auto& [role, task] = at;
      Task& t = work_.graph.programs[static_cast<std::size_t>(role)].tasks[static_cast<std::size_t>(task)];
      t.match = sends_.at(key);
    }
    return std::move(work_);
  }

 private:
  // Units: the layers before the first transformer layer, each transformer layer, the layers after the last.
  void make_units() {
    const auto& layers = model_.layers;
    for (std::size_t i = 0; i < layers.size();) {
      std::size_t end = i + 1;
      while (end < layers.size() && layers[end].block == layers[i].block) ++end;
      if (layers[i].block >= 0) ++blocks_;
      Unit unit{static_cast<int>(i), static_cast<int>(end), 0};
      for (std::size_t l = i; l < end; ++l)
        (layers[l].experts > 0 ? unit.expert_parameters : unit.parameters) +=
            static_cast<double>(layers[l].parameter_count()) / parameter_ways(layers[l]);
      work_.units.push_back(unit);
      i = end;
    }
  }

  /// The model chunk a unit belongs to (layers_per_chunk); what comes before the first block joins chunk 0, what
  /// comes after the last the last chunk.
  int chunk_of_unit(int u) const {
    const Layer& first = model_.layers[static_cast<std::size_t>(work_.units[static_cast<std::size_t>(u)].first_layer)];
    const int last_chunk = layout_.pipeline * layout_.virtual_stages - 1;
    if (first.block >= 0) return chunk_of_block_[static_cast<std::size_t>(first.block)];
    return u == 0 ? 0 : last_chunk;
  }

  /// A rank's share of a layer's work: its tensor-parallel share of 1/context of the tokens; the routed experts' as
  /// much (each rank computes its own tokens' routed work on average), times the busiest rank's load.
  double share(const Layer& l) const {
    return (splits_work(l, layout_) ? 1.0 / layout_.tensor : 1.0) / layout_.context *
           (l.experts > 0 ? rank_load(l, layout_.expert) : 1.0);
  }
  /// The ranks a layer's parameters divide over: the expert tensor and expert groups for routed experts.
  int parameter_ways(const Layer& l) const {
    if (l.experts > 0) return layout_.expert * layout_.expert_tensor;
    return splits_parameters(l) ? layout_.tensor : 1;
  }
  /// The ranks that hold the same routed-expert parameters (the expert_data group).
  int expert_replicas() const {
    return layout_.tensor * layout_.context * layout_.data / (layout_.expert * layout_.expert_tensor);
  }
  /// Ends the current segment with a token exchange of the MoE layer of module `i` over `group`: its tokens x top_k
  /// rows of hidden features per sample, of which a rank holds 1/(tensor x context) (expert_parallel.hpp), at the
  /// busiest rank's load; an all-to-all moves them, an expert-tensor all-gather (or reduce-scatter) the group's.
  void exchange_tokens(std::vector<Segment>& segments, std::size_t i, Op op, const char* group,
                       bool overlaps = false) const {
    if ((op == Op::alltoall ? layout_.expert : layout_.expert_tensor) == 1) return;  // every expert at hand
    std::size_t permute = i;
    while (model_.layers[permute].kernel != models::Kernel::moe_permute) --permute;
    std::size_t routed = permute;
    while (model_.layers[routed].experts == 0) ++routed;
    const double rank_bytes = static_cast<double>(activation_bytes(model_.layers[permute].output_elements)) /
                              layout_.tensor * rank_load(model_.layers[routed], layout_.expert);
    Segment& s = segments.back();
    s.op = op;
    s.bytes = static_cast<std::int64_t>(rank_bytes * (op == Op::alltoall ? 1 : layout_.expert_tensor));
    s.group = group;
    s.stream = op == Op::alltoall ? Stream::expert : Stream::tensor;
    s.overlaps = overlaps;
    segments.emplace_back();
  }
  /// A rank's bytes of an activation: its 1/context of the tokens.
  std::int64_t activation_bytes(std::int64_t elements_per_sample) const {
    return static_cast<std::int64_t>(static_cast<double>(elements_per_sample) * micro_batch() * element_ /
                                     layout_.context);
  }
  bool context_parallel() const { return layout_.context > 1; }
  bool ring_attention() const { return context_parallel() && layout_.context_comm == "p2p"; }
  /// Ends the current segment with the context group's exchange of `blocks` key/value blocks of attention core
  /// `core` (every rank's block: what an all-gather carries) by `op`; `overlapped`: the ring, whose next segment
  /// computes on each block but the last while the next one arrives.
  void exchange_keys_values(std::vector<Segment>& segments, const Layer& core, int blocks, Op op, bool overlapped) const {
    Segment& s = segments.back();
    s.op = op;
    s.bytes = blocks * layout_.context * activation_bytes(kv_elements(core)) / layout_.tensor;
    s.group = "context";
    s.stream = Stream::context;
    s.overlaps = overlapped;
    s.follows = overlapped ? 1.0 / layout_.context : 0;
    segments.emplace_back();
  }
  /// Megatron-LM's moe_shared_expert_overlap: the shared experts of module `i`'s MoE layer (between its permutation and
  /// its routed experts) compute while the tokens are dispatched; none: nothing to overlap.
  bool shared_overlap(std::size_t i) const {
    if (!layout_.moe_shared_expert_overlap) return false;
    std::size_t permute = i;
    while (model_.layers[permute].kernel != models::Kernel::moe_permute) --permute;
    return model_.layers[permute + 1].experts == 0;
  }
  /// The last module of the attention core that layer `i` belongs to.
  const Layer& core_end(std::size_t i) const {
    while (i + 1 < model_.layers.size() && model_.layers[i + 1].attention_core) ++i;
    return model_.layers[i];
  }
  bool starts_core(std::size_t i) const {
    return model_.layers[i].attention_core && (i == 0 || !model_.layers[i - 1].attention_core);
  }
  bool ends_core(std::size_t i) const {
    return model_.layers[i].attention_core && (i + 1 == model_.layers.size() || !model_.layers[i + 1].attention_core);
  }
  double micro_batch() const { return layout_.micro_batch; }

  /// Forward of a unit as segments ending at its tensor-parallel collectives (Megatron's f and g operators;
  /// with sequence parallelism an all-gather before each column-parallel run and a reduce-scatter after each
  /// row-parallel layer).
  std::vector<Segment> forward_segments(const Unit& unit) const {
    std::vector<Segment> segments(1);
    const bool tp = layout_.tensor > 1;
    for (auto i = static_cast<std::size_t>(unit.first_layer); i < static_cast<std::size_t>(unit.end_layer); ++i) {
      const Layer& l = model_.layers[i];
      if (tp && layout_.sequence_parallel && starts_column_run(model_, i)) {
        segments.back().op = Op::allgather;
        segments.back().bytes = activation_bytes(l.input_elements);
        segments.emplace_back();
      }
      if (context_parallel() && starts_core(i)) exchange_keys_values(segments, core_end(i), 1, Op::allgather, ring_attention());
      if (l.kernel == models::Kernel::moe_unpermute) exchange_tokens(segments, i, Op::alltoall, "expert");
      if (starts_routed(model_, i)) {
        if (layout_.expert_tensor > 1) exchange_tokens(segments, i, Op::allgather, "expert_tensor");
        else if (segments.back().compute_s > 0) segments.emplace_back();  // after the shared experts
      }
      segments.back().compute_s += in_.times[i].forward_s * share(l);
      if (l.kernel == models::Kernel::moe_permute)
        exchange_tokens(segments, i, Op::alltoall, "expert", shared_overlap(i));
      if (ends_routed(model_, i) && layout_.expert_tensor > 1)
        exchange_tokens(segments, i, Op::reduce_scatter, "expert_tensor");
      if (ring_attention() && ends_core(i)) segments.emplace_back();
      if (tp && reduces_output(l)) {
        segments.back().op = layout_.sequence_parallel ? Op::reduce_scatter : Op::allreduce;
        segments.back().bytes = activation_bytes(l.output_elements);
        segments.emplace_back();
      }
    }
    return segments;
  }

  /// Backward of a unit, last layer first: the conjugate collectives (an all-reduce of the input gradient after
  /// each column-parallel run; with sequence parallelism an all-gather before each row-parallel layer and a
  /// reduce-scatter after each column run). Recomputed layers run their forward again first: a wholly
  /// recomputed unit replays its forward segments (collectives included), a partly recomputed one (selective)
  /// adds its attention core's forward time.
  std::vector<Segment> backward_segments(const Unit& unit, bool& replay) const {
    std::vector<Segment> segments(1);
    const bool tp = layout_.tensor > 1;
    bool all = true;
    double again_s = 0;
    for (auto i = static_cast<std::size_t>(unit.first_layer); i < static_cast<std::size_t>(unit.end_layer); ++i) {
      all = all && in_.recomputed[i];
      if (in_.recomputed[i]) again_s += in_.times[i].forward_s * share(model_.layers[i]);
    }
    replay = all && again_s > 0;
    if (!replay) segments.back().compute_s = again_s;
    for (auto i = static_cast<std::size_t>(unit.end_layer); i-- > static_cast<std::size_t>(unit.first_layer);) {
      const Layer& l = model_.layers[i];
      if (tp && layout_.sequence_parallel && reduces_output(l)) {
        segments.back().op = Op::allgather;
        segments.back().bytes = activation_bytes(l.output_elements);
        segments.emplace_back();
      }
      // The ring sends each key/value block and its gradient on; the all-gather variant gathers the keys and
      // values again and reduce-scatters their gradients after the attention core's backward.
      if (context_parallel() && ends_core(i)) exchange_keys_values(segments, l, ring_attention() ? 2 : 1, Op::allgather, ring_attention());
      // Backward's conjugate token exchanges: the output gradients go to the experts (the combine's conjugate, after
      // the un-permutation), the input gradients back (the dispatch's, before the permutation), the shared experts'
      // backward overlapping the latter where the forward overlapped them.
      if (ends_routed(model_, i) && layout_.expert_tensor > 1)
        exchange_tokens(segments, i, Op::allgather, "expert_tensor");
      if (l.kernel == models::Kernel::moe_permute && segments.back().compute_s > 0) segments.emplace_back();
      segments.back().compute_s += in_.times[i].backward_s * share(l);
      if (l.kernel == models::Kernel::moe_unpermute) exchange_tokens(segments, i, Op::alltoall, "expert");
      if (starts_routed(model_, i)) {
        if (layout_.expert_tensor > 1) exchange_tokens(segments, i, Op::reduce_scatter, "expert_tensor");
        exchange_tokens(segments, i, Op::alltoall, "expert", shared_overlap(i));
      }
      if (context_parallel() && starts_core(i)) {
        if (ring_attention()) segments.emplace_back();
        else exchange_keys_values(segments, core_end(i), 1, Op::reduce_scatter, false);
      }
      if (tp && starts_column_run(model_, i)) {
        segments.back().op = layout_.sequence_parallel ? Op::reduce_scatter : Op::allreduce;
        segments.back().bytes = activation_bytes(l.input_elements);
        segments.emplace_back();
      }
    }
    return segments;
  }

  /// Emits `segments` on `program`: compute tasks on the compute stream, collectives on their group's stream, each
  /// waiting for the one before (a collective that the next computation overlaps: that computation waits for what
  /// the collective waits for, and its last `follows` for the collective too). `first_deps`: what the first task
  /// waits for. Returns the last task.
  int emit(taskgraph::Program& program, const std::vector<Segment>& segments, std::vector<int> first_deps,
           const std::string& name, const char* category) {
    int last = -1;
    std::vector<int> deps = std::move(first_deps);
    int overlapped = -1;  // the collective the next computation overlaps
    double follows = 0;
    auto compute = [&](double duration_s, std::vector<int> after) {
      Task t;
      t.name = name;
      t.category = category;
      t.duration_s = duration_s;
      t.deps.assign(after.begin(), after.end());
      return program.add(std::move(t));
    };
    for (const Segment& s : segments) {
      if (s.compute_s > 0 || s.op == Op::compute) {
        if (overlapped >= 0 && follows > 0) {
          const int hidden = compute(s.compute_s * (1 - follows), deps);
          last = compute(s.compute_s * follows, {hidden, overlapped});
          deps = {last};
        } else if (overlapped >= 0) {  // wholly hidden: what follows waits for both
          last = compute(s.compute_s, deps);
          deps = {last, overlapped};
        } else {
          last = compute(s.compute_s, deps);
          deps = {last};
        }
      } else if (overlapped >= 0) {
        deps.push_back(overlapped);
      }
      overlapped = -1;
      if (s.op != Op::compute) {
        // A collective that follows no computation of its unit follows the stage's last one (its stream waits for
        // the compute stream's event: the tensors it moves were made there).
        if (deps.empty())
          if (const int c = last_compute(program); c >= 0) deps = {c};
        Task t;
        t.op = s.op;
        t.stream = s.stream;
        t.name = name + " " + category_of(s);
        t.category = category_of(s);
        t.bytes = s.bytes;
        t.group = s.group;
        t.deps.assign(deps.begin(), deps.end());
        last = program.add(std::move(t));
        if (s.overlaps) overlapped = last, follows = s.follows;
        else deps = {last};
      }
    }
    return last;
  }

  /// The timeline category of a segment's collective: cp, ep (the token all-to-alls) or tp (the tensor and expert
  /// tensor groups).
  static const char* category_of(const Segment& s) {
    return s.stream == Stream::context ? "cp" : s.stream == Stream::expert ? "ep" : "tp";
  }

  int collective(taskgraph::Program& program, Op op, Stream stream, std::int64_t bytes, const char* group,
                 std::vector<Dep> deps, const std::string& name, const char* category) {
    Task t;
    t.op = op;
    t.stream = stream;
    t.name = name;
    t.category = category;
    t.bytes = bytes;
    t.group = group;
    t.deps.assign(deps.begin(), deps.end());
    return program.add(std::move(t));
  }

  std::int64_t gradient_bytes(const Unit& u) const { return static_cast<std::int64_t>(u.parameters * gradient_); }
  std::int64_t parameter_bytes(const Unit& u) const { return static_cast<std::int64_t>(u.parameters * element_); }

  /// Reduces `bytes` of gradients (a unit's, a bucket's) after task `after`; returns the tasks the optimizer step
  /// waits for. Without `across_replicas` (an iteration that exchanges no gradients) only hybrid sharding's shard
  /// reduces them.
  std::vector<int> reduce_gradients(taskgraph::Program& program, std::int64_t bytes, std::vector<Dep> after,
                                    const std::string& name, bool across_replicas) {
    if (layout_.replicas() == 1 || bytes == 0) return {};
    switch (layout_.sharding) {
      case Sharding::none:
        if (!across_replicas) return {};
        return {collective(program, Op::allreduce, Stream::data, bytes, "data", after, name + " dp", "dp")};
      case Sharding::zero1:
      case Sharding::zero2:
      case Sharding::zero3:
        return {collective(program, Op::reduce_scatter, Stream::data, bytes, "data", after, name + " dp", "dp")};
      case Sharding::hybrid: {
        const int rs = collective(program, Op::reduce_scatter, Stream::data, bytes, "shard", after, name + " dp", "dp");
        if (!across_replicas) return {rs};
        return {collective(program, Op::allreduce, Stream::data, bytes / shard_size(), "replica", {rs},
                           name + " dp replicas", "dp")};
      }
    }
    return {};
  }

  int shard_size() const {
    if (layout_.sharding == Sharding::hybrid) return in_.hybrid_shard;
    return layout_.sharding == Sharding::none ? 1 : layout_.replicas();
  }

  DataExchange exchange_in(int it) const {
    return in_.exchanges.empty() ? DataExchange::gradients : in_.exchanges[static_cast<std::size_t>(it)];
  }

  /// Local SGD's model average after the step (Lin et al., ICLR 2020; PyTorch's PeriodicModelAverager): the
  /// stage's parameters of this rank (its shard under hybrid sharding), averaged_copies times over (the momentum
  /// buffers too), all-reduced in the data-parallel dtype over the replicas. None where there is one replica.
  std::optional<int> average_models(taskgraph::Program& program, const StagePlan& stage, int after) {
    DTSIM_CHECK(layout_.sharding == Sharding::none || layout_.sharding == Sharding::hybrid,
                "a replica of ZeRO-1..3 holds a shard of the optimizer state and cannot step alone");
    const auto bytes = static_cast<std::int64_t>(stage.parameters / shard_size() * gradient_) * in_.averaged_copies;
    if (layout_.replicas() / shard_size() == 1 || bytes == 0) return std::nullopt;
    return collective(program, Op::allreduce, Stream::data, bytes,
                      layout_.sharding == Sharding::hybrid ? "replica" : "data", {after},
                      in_.averaged_copies > 1 ? "average parameters and momentum" : "average parameters", "dp");
  }

  /// Each stage's gradients as its scheduler sees them, and the planner's buckets over them.
  void plan_exchanges() {
    for (std::size_t s = 0; s < work_.stages.size(); ++s) {
      std::vector<StageGradient> gradients;
      for (const auto& chunk : work_.stages[s].chunks)
        for (int unit : chunk) {
          const Unit& u = work_.units[static_cast<std::size_t>(unit)];
          StageGradient& g = gradients.emplace_back();
          g.unit = unit;
          g.bytes = gradient_bytes(u);
          for (auto i = static_cast<std::size_t>(u.first_layer); i < static_cast<std::size_t>(u.end_layer); ++i) {
            const Layer& l = model_.layers[i];
            g.backward_s += (in_.times[i].backward_s + (in_.recomputed[i] ? in_.times[i].forward_s : 0)) * share(l);
            if (l.experts == 0)
              g.layer_parameters.emplace_back(static_cast<int>(i),
                                              l.parameter_count() / (splits_parameters(l) ? layout_.tensor : 1));
          }
        }
      scheduling::IterationPlan& plan = work_.stages[s].exchanges;
      if (megatron()) {
        plan = megatron_plan(s, gradients);
      } else if (in_.data_planner) {
        plan = in_.data_planner(static_cast<int>(s), gradients);
        DTSIM_CHECK(plan.credit_bytes == 0, "a layout's data stream runs its buckets in order");
        DTSIM_CHECK(plan.work.empty() || plan.work.size() == plan.buckets.size(), "one work per bucket");
      } else {
        for (std::size_t k = gradients.size(); k-- > 0;)
          plan.buckets.push_back({{static_cast<int>(k)}, gradients[k].bytes, static_cast<int>(k), 0.0});
      }
      if (in_.data_meeting == ExchangeFragment::Kind::push_pull) {
        work_.stages[s].server_sum_s = in_.server_sums(static_cast<int>(s), plan);
        DTSIM_CHECK(work_.stages[s].server_sum_s.size() == plan.buckets.size(), "a push-pull fragment sums every bucket");
      }
      for (scheduling::Bucket& b : plan.buckets) b.ready_layer = gradients[static_cast<std::size_t>(b.ready_layer)].unit;
    }
  }

  bool megatron() const { return layout_.framework.framework == Framework::megatron; }

  /// Megatron-LM: one bucket's parameter all-gather, the bucket's (padded) elements and the units it holds.
  struct GatherBucket {
    std::int64_t elements = 0;
    int chunk = 0;
    std::vector<int> units;
  };

  /// Megatron-LM's gradient buckets of stage `s` (backward order, tensors and ready_layer indexing `gradients`): per
  /// model chunk, its tensors (routed experts aside) laid out by parallel::megatron_buckets in the gradient dtype;
  /// a bucket is ready when the backward of its first tensor's unit ends. Records each bucket's parameter all-gather.
  scheduling::IterationPlan megatron_plan(std::size_t s, const std::vector<StageGradient>& gradients) {
    scheduling::IterationPlan plan;
    const bool distributed = layout_.sharding == Sharding::zero1;
    std::vector<GatherBucket>& gathers = param_buckets_.emplace_back();
    int g = 0;  // index into gradients
    const auto& chunks = work_.stages[s].chunks;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      std::vector<std::int64_t> tensors;
      std::vector<int> owner;  // per tensor: its unit's index in gradients
      for (int unit : chunks[c]) {
        const Unit& u = work_.units[static_cast<std::size_t>(unit)];
        for (auto i = static_cast<std::size_t>(u.first_layer); i < static_cast<std::size_t>(u.end_layer); ++i) {
          const Layer& l = model_.layers[i];
          if (l.experts > 0) continue;
          for (const models::Tensor& t : l.tensors) {
            tensors.push_back(t.numel() / (splits_parameters(l) ? layout_.tensor : 1));
            owner.push_back(g);
          }
        }
        ++g;
      }
      const std::int64_t size = megatron_bucket_size(layout_.framework, layout_.replicas(), s == 0 && c == 0);
      const std::size_t first_gather = gathers.size();
      for (const MegatronBucket& b : megatron_buckets(tensors, size, layout_.replicas(), distributed)) {
        scheduling::Bucket& bucket = plan.buckets.emplace_back();
        GatherBucket gather{b.elements, static_cast<int>(c), {}};
        for (int k = owner[static_cast<std::size_t>(b.first_tensor)]; k <= owner[static_cast<std::size_t>(b.last_tensor)]; ++k) {
          bucket.tensors.push_back(k);
          gather.units.push_back(gradients[static_cast<std::size_t>(k)].unit);
        }
        bucket.bytes = static_cast<std::int64_t>(static_cast<double>(b.elements) * gradient_);
        bucket.ready_layer = owner[static_cast<std::size_t>(b.first_tensor)];
        gathers.insert(gathers.begin() + static_cast<std::ptrdiff_t>(first_gather), std::move(gather));  // forward order
      }
    }
    return plan;
  }

  /// Megatron-LM's overlap_param_gather: the all-gathers of chunk `chunk`'s buckets in the first forward of an
  /// iteration. A unit's forward pre-hook waits for the gathers of its buckets (finish_param_sync), dispatching the
  /// first if none is (the first layer's hook), then the next bucket's, which the NCCL stream runs after this one.
  class ParamGatherChain {
   public:
    ParamGatherChain(Builder& b, taskgraph::Program& program, int stage, int chunk, std::vector<int> stepped,
                     std::string pass)
        : b_(b), program_(program), stepped_(std::move(stepped)), pass_(std::move(pass)) {
      for (const GatherBucket& g : b.param_buckets_[static_cast<std::size_t>(stage)])
        if (g.chunk == chunk) buckets_.push_back(&g);
      tasks_.assign(buckets_.size(), -1);
    }
    /// What the forward of `unit` waits for, its pre-hook dispatching gathers after `before` (what the forward
    /// waits for besides).
    std::vector<int> before_forward(int unit, const std::vector<int>& before) {
      std::vector<int> waits;
      for (std::size_t j = 0; j < buckets_.size(); ++j) {
        const std::vector<int>& units = buckets_[j]->units;
        if (std::find(units.begin(), units.end(), unit) == units.end()) continue;
        if (tasks_[j] < 0) issue(j, before);
        if (j + 1 < buckets_.size() && tasks_[j + 1] < 0) {
          std::vector<int> after = before;
          after.push_back(tasks_[j]);
          issue(j + 1, after);
        }
        waits.push_back(tasks_[j]);
      }
      return waits;
    }

   private:
    void issue(std::size_t j, std::vector<int> deps) {
      deps.insert(deps.end(), stepped_.begin(), stepped_.end());
      tasks_[j] = b_.collective(program_, Op::allgather, Stream::gather,
                                static_cast<std::int64_t>(static_cast<double>(buckets_[j]->elements) * b_.element_),
                                "data", {deps.begin(), deps.end()}, pass_ + " gather bucket " + std::to_string(j),
                                "gather");
    }
    Builder& b_;
    taskgraph::Program& program_;
    std::vector<int> stepped_;
    std::string pass_;
    std::vector<const GatherBucket*> buckets_;
    std::vector<int> tasks_;
  };

  /// The buckets of stage `s` issued once unit `unit`'s last backward ends, in launch order.
  std::vector<int> ready_at(int s, int unit) const {
    std::vector<int> buckets;
    const auto& plan = work_.stages[static_cast<std::size_t>(s)].exchanges;
    for (std::size_t b = 0; b < plan.buckets.size(); ++b)
      if (plan.buckets[b].ready_layer == unit) buckets.push_back(static_cast<int>(b));
    return buckets;
  }

  /// The last task of `program` on its compute stream (-1: none).
  static int last_compute(const taskgraph::Program& program) {
    for (std::size_t i = program.tasks.size(); i-- > 0;)
      if (program.tasks[i].stream == Stream::compute) return static_cast<int>(i);
    return -1;
  }

  /// Bucket `b` of stage `s` on the data stream once task `after` (its ready unit's last backward) ends and, with a
  /// fusion cycle, `not_before_s` after what the backward pass started after (`pass_start`): compress, each
  /// exchange among the stage's data-parallel ranks (after its local work), decompress. Returns its last task.
  std::vector<int> exchange_bucket(taskgraph::Program& program, int s, int b, int after, const std::vector<int>& pass_start,
                                   const std::string& pass) {
    const scheduling::IterationPlan& plan = work_.stages[static_cast<std::size_t>(s)].exchanges;
    const scheduling::Bucket& bucket = plan.buckets[static_cast<std::size_t>(b)];
    std::vector<Dep> deps = {Dep(after)};
    if (bucket.not_before_s > 0)
      for (int t : pass_start) deps.emplace_back(t, bucket.not_before_s);
    const std::string name = pass + " " + unit_name(work_.units[static_cast<std::size_t>(bucket.ready_layer)]);
    if (layout_.replicas() == 1 || bucket.bytes == 0) return {};
    auto local = [&](double duration_s, const char* what, const char* category = "compress") {
      Task t;
      t.stream = Stream::data;
      t.name = name + " " + what;
      t.category = category;
      t.duration_s = duration_s;
      t.deps = std::move(deps);
      deps = {Dep(program.add(std::move(t)))};
    };
    // The framework's negotiation and copies in before the bucket's collectives, its copies out after them.
    if (bucket.framework_before_s > 0) local(bucket.framework_before_s, "framework before", "framework");
    if (in_.data_meeting != ExchangeFragment::Kind::collective)
      return meet_elsewhere(program, s, b, name, std::move(deps));
    if (plan.work.empty()) {
      const std::vector<int> reduced = reduce_gradients(program, bucket.bytes, deps, name, true);
      if (bucket.framework_after_s <= 0 || reduced.empty()) return reduced;
      deps.clear();
      for (int r : reduced) deps.emplace_back(r);
      local(bucket.framework_after_s, "framework after", "framework");
      return {deps.front().task};
    }
    const scheduling::BucketWork& w = plan.work[static_cast<std::size_t>(b)];
    if (w.compress_s > 0) local(w.compress_s, "compress");
    for (const scheduling::Exchange& e : w.exchanges) {
      if (e.before_s > 0) local(e.before_s, "between exchanges");
      using Kind = scheduling::Exchange::Kind;
      // An all-gather's task carries every rank's block (Op::allgather); gTop-k's one payload per message.
      const Op op = e.kind == Kind::allreduce ? Op::allreduce : e.kind == Kind::allgather ? Op::allgather : Op::gtopk;
      const std::int64_t bytes = e.kind == Kind::allgather ? e.bytes * layout_.replicas() : e.bytes;
      deps = {Dep(collective(program, op, Stream::data, bytes, "data", std::move(deps), name + " dp", "dp"))};
    }
    if (w.decompress_s > 0) local(w.decompress_s, "decompress");
    if (bucket.framework_after_s > 0) local(bucket.framework_after_s, "framework after", "framework");
    return {deps.front().task};
  }

  /// Bucket `b` of stage `s` at the parameter servers or with the neighbouring replicas (WorkloadInput::data_meeting),
  /// after `deps`: compress; the push (or neighbour exchange) on the data stream, then decompression and the
  /// framework's copies out; with servers, their sum on the server stream and the pull on the gather stream.
  /// Returns what the step waits for: the data stream's last task and the pull.
  std::vector<int> meet_elsewhere(taskgraph::Program& program, int s, int b, const std::string& name, std::vector<Dep> deps) {
    DTSIM_CHECK(layout_.sharding == Sharding::none, "servers and neighbours meet unsharded gradients");
    const StagePlan& stage = work_.stages[static_cast<std::size_t>(s)];
    const scheduling::Bucket& bucket = stage.exchanges.buckets[static_cast<std::size_t>(b)];
    const scheduling::BucketWork* w = stage.exchanges.work.empty() ? nullptr : &stage.exchanges.work[static_cast<std::size_t>(b)];
    auto local = [&](double duration_s, const std::string& what, const char* category, Stream stream = Stream::data) {
      Task t;
      t.stream = stream;
      t.name = name + " " + what;
      t.category = category;
      t.duration_s = duration_s;
      t.item = b;
      t.deps = std::move(deps);
      deps = {Dep(program.add(std::move(t)))};
      return deps.front().task;
    };
    if (w && w->compress_s > 0) local(w->compress_s, "compress", "compress");
    const bool servers = in_.data_meeting == ExchangeFragment::Kind::push_pull;
    std::int64_t bytes = w ? 0 : bucket.bytes;
    if (w)
      for (const scheduling::Exchange& e : w->exchanges) bytes += e.bytes;
    const int exchanged = collective(program, servers ? Op::push : Op::neighbours, Stream::data, bytes, "data",
                                     std::move(deps), name + (servers ? " push" : " gossip"), "dp");
    program.tasks[static_cast<std::size_t>(exchanged)].item = b;
    std::vector<int> ends;
    if (servers) {
      deps = {Dep(exchanged)};
      const double sum_s = stage.server_sum_s[static_cast<std::size_t>(b)];
      if (sum_s > 0) local(sum_s, "sum", "sum", Stream::server);
      const int pull = collective(program, Op::pull, Stream::gather, bytes, "data", std::move(deps), name + " pull", "dp");
      program.tasks[static_cast<std::size_t>(pull)].item = b;
      ends.push_back(pull);
    }
    deps = {Dep(exchanged)};
    if (w && w->decompress_s > 0) local(w->decompress_s, "decompress", "compress");
    if (bucket.framework_after_s > 0) local(bucket.framework_after_s, "framework after", "framework");
    ends.push_back(deps.front().task);
    return ends;
  }

  void build_stage(int s) {
    taskgraph::Program& program = work_.graph.programs[static_cast<std::size_t>(s)];
    StagePlan& stage = work_.stages[static_cast<std::size_t>(s)];
    const int stages = layout_.pipeline, chunks = layout_.virtual_stages, last_chunk = stages * chunks - 1;
    const auto schedule = pipeline_schedule(layout_.schedule);
    const std::vector<Pass> passes = schedule(s, stages, in_.micro_batches, chunks);
    const bool gathers = layout_.sharding == Sharding::zero3 || layout_.sharding == Sharding::hybrid;
    const bool reshards_after_step = layout_.sharding == Sharding::zero1 || layout_.sharding == Sharding::zero2;
    // The last backward of each chunk in the schedule: gradients are reduced then (gradient accumulation).
    std::vector<int> last_backward(static_cast<std::size_t>(chunks), -1);
    for (const Pass& p : passes)
      if (!p.forward) last_backward[static_cast<std::size_t>(p.chunk)] = p.micro_batch;
    std::map<int, std::vector<int>> gathered;  // unit -> the all-gathers of its updated parameters (zero1/2)
    std::vector<int> averaged;    // the last iteration's model average, which this one's forward waits for
    std::vector<int> stepped;     // the last iteration's step: sharded parameters are gathered after it updates them
    int in_flight = -1;           // Overlap Local-SGD: the average the next averaging iteration's step waits for
    // Megatron-LM's overlap_param_gather: each chunk's bucket all-gathers in its first forward of every iteration
    // (the previous step's parameters; the first iteration's stand for those of the step before it).
    const bool chained = megatron() && layout_.framework.overlap_param_gather && layout_.replicas() > 1;
    for (int it = 0; it < in_.iterations; ++it) {
      const DataExchange exchange = exchange_in(it);
      std::vector<int> reductions;
      std::vector<std::pair<int, std::vector<int>>> deferred;  // Megatron without overlap_grad_reduce: bucket, pass start
      std::vector<bool> chunk_gathered(static_cast<std::size_t>(chunks), false);
      for (const Pass& p : passes) {
        const int g = p.chunk * stages + s;
        const std::vector<int>& units = stage.chunks[static_cast<std::size_t>(p.chunk)];
        const std::string mb = std::to_string(p.micro_batch);
        std::vector<int> deps;
        if (p.forward) {
          if (g > 0) deps.push_back(receive(program, s, (s + stages - 1) % stages, {it, p.micro_batch, g, true}, "F" + mb));
          deps.insert(deps.end(), averaged.begin(), averaged.end());
          std::vector<int> updated = averaged;
          updated.insert(updated.end(), stepped.begin(), stepped.end());
          Prefetch ag(*this, program, gathers ? units : std::vector<int>{}, "F" + mb, false, updated);
          std::optional<ParamGatherChain> chain;
          if (chained && !chunk_gathered[static_cast<std::size_t>(p.chunk)])
            chain.emplace(*this, program, s, p.chunk, stepped, "F" + mb);
          chunk_gathered[static_cast<std::size_t>(p.chunk)] = true;
          int last = -1;
          for (std::size_t k = 0; k < units.size(); ++k) {
            const Unit& u = work_.units[static_cast<std::size_t>(units[k])];
            std::vector<int> first = deps;
            if (last >= 0) first = {last};
            if (gathers) first.insert(first.end(), ag.gather(k).begin(), ag.gather(k).end());
            if (chain) {
              const std::vector<int> waits = chain->before_forward(units[k], first);
              first.insert(first.end(), waits.begin(), waits.end());
            }
            if (auto a = gathered.find(units[k]); a != gathered.end())
              first.insert(first.end(), a->second.begin(), a->second.end());
            last = emit(program, forward_segments(u), first, "F" + mb + " " + unit_name(u), "forward");
            ag.computed(k, last);
          }
          if (g < last_chunk)
            send(program, (s + 1) % stages, {it, p.micro_batch, g + 1, true}, last,
                 activation_bytes(model_.layers[static_cast<std::size_t>(work_.units[static_cast<std::size_t>(units.back())].end_layer - 1)].output_elements),
                 "F" + mb);
        } else {
          if (g < last_chunk) deps.push_back(receive(program, s, (s + 1) % stages, {it, p.micro_batch, g, false}, "B" + mb));
          // What the pass's backward starts after: a fusion cycle counts from there.
          std::vector<int> pass_start = deps;
          if (const int c = last_compute(program); c >= 0) pass_start.push_back(c);
          Prefetch ag(*this, program, gathers ? std::vector<int>(units.rbegin(), units.rend()) : std::vector<int>{},
                      "B" + mb, true);
          const GatherOrder order = gather_order(layout_.framework, true);
          double pending = 0;  // DeepSpeed: gradient elements in the reduce bucket
          int last = -1;
          for (std::size_t k = 0; k < units.size(); ++k) {
            const int unit = units[units.size() - 1 - k];
            const Unit& u = work_.units[static_cast<std::size_t>(unit)];
            std::vector<int> first = deps;
            if (last >= 0) first = {last};
            if (gathers) first.insert(first.end(), ag.gather(k).begin(), ag.gather(k).end());
            bool replay = false;
            const std::vector<Segment> backward = backward_segments(u, replay);
            if (replay) {
              last = emit(program, forward_segments(u), first, "R" + mb + " " + unit_name(u), "recompute");
              first = {last};
            }
            last = emit(program, backward, first, "B" + mb + " " + unit_name(u), "backward");
            // One NCCL stream (FSDP): the next gather reaches it before or after this unit's reduce-scatter.
            const bool gather_first = !order.shared_stream || order.gather_before_reduce;
            if (gather_first) ag.computed(k, last);
            if (gathers) {
              pending += u.parameters;
              const bool bucketed = layout_.framework.framework == Framework::deepspeed;
              if (!bucketed || pending >= static_cast<double>(layout_.framework.reduce_bucket_size) ||
                  k + 1 == units.size()) {
                for (int r : reduce_sharded(program, pending, last, "B" + mb + " " + unit_name(u),
                                            exchange == DataExchange::gradients, p.micro_batch > 0))
                  reductions.push_back(r);
                pending = 0;
              }
            } else if (p.micro_batch == last_backward[static_cast<std::size_t>(p.chunk)] &&
                       exchange == DataExchange::gradients) {
              for (int b : ready_at(s, unit)) {
                if (megatron() && !layout_.framework.overlap_grad_reduce) {
                  deferred.emplace_back(b, pass_start);
                  continue;
                }
                for (int r : exchange_bucket(program, s, b, last, pass_start, "B" + mb)) reductions.push_back(r);
              }
            }
            if (p.micro_batch == last_backward[static_cast<std::size_t>(p.chunk)] &&
                exchange == DataExchange::gradients && u.expert_parameters > 0 && expert_replicas() > 1)
              reductions.push_back(collective(program,
                                              layout_.sharding == Sharding::none ? Op::allreduce : Op::reduce_scatter,
                                              Stream::data, static_cast<std::int64_t>(u.expert_parameters * gradient_),
                                              "expert_data", {last}, "B" + mb + " " + unit_name(u) + " experts dp", "dp"));
            if (!gather_first) ag.computed(k, last);
          }
          if (g > 0)
            send(program, (s + stages - 1) % stages, {it, p.micro_batch, g - 1, false}, last,
                 activation_bytes(model_.layers[static_cast<std::size_t>(work_.units[static_cast<std::size_t>(units.front())].first_layer)].input_elements),
                 "B" + mb);
        }
      }
      // Megatron-LM without overlap_grad_reduce: every bucket (one per chunk) reduced once the stage's backward passes
      // are done (finalize_model_grads: finish_grad_sync runs the synchronous collectives).
      for (const auto& [b, pass_start] : deferred)
        for (int r : exchange_bucket(program, s, b, last_compute(program), pass_start, "B")) reductions.push_back(r);
      // Gradient clipping's norm (Megatron-LM and DeepSpeed clip at 1.0 by default): every stage's partial
      // norm is summed at stage 0 and sent back, so that no stage steps before every stage's gradients are
      // reduced (the flush between iterations).
      if (stages > 1) reductions = gradient_norm(program, s, it, reductions);
      // The optimizer step on this rank's shard, once every gradient is reduced.
      Task step;
      step.name = "update";
      step.category = "update";
      for (const auto& chunk : stage.chunks)
        for (int unit : chunk) {
          const Unit& u = work_.units[static_cast<std::size_t>(unit)];
          for (auto i = static_cast<std::size_t>(u.first_layer); i < static_cast<std::size_t>(u.end_layer); ++i) {
            const Layer& l = model_.layers[i];
            // ZeRO shards the expert states over the expert_data group (Megatron-LM's distributed optimizer).
            const int shards = l.experts == 0 ? shard_size() : layout_.sharding == Sharding::none ? 1 : expert_replicas();
            step.duration_s += in_.times[i].update_s / parameter_ways(l) / shards;
          }
        }
      step.deps.assign(reductions.begin(), reductions.end());
      if (exchange == DataExchange::models && in_flight >= 0) step.deps.emplace_back(std::exchange(in_flight, -1));
      const int update = program.add(std::move(step));
      int end = update;
      stepped = {update};
      averaged.clear();
      if (exchange == DataExchange::models)
        if (const std::optional<int> average = average_models(program, stage, update)) {
          if (in_.average_in_flight) {
            in_flight = *average;
          } else {
            end = *average;
            averaged = {*average};
          }
        }
      // What is still in flight when the run ends belongs to the last iteration, which ends with it.
      if (it + 1 == in_.iterations && in_flight >= 0) {
        DTSIM_CHECK(exchange == DataExchange::models, "a run of Overlap Local-SGD ends on a model average");
        end = in_flight;
      }
      gathered.clear();
      if (reshards_after_step && megatron() && layout_.replicas() > 1) {
        // The distributed optimizer's all-gather of each bucket's updated parameters after the step
        // (step_with_ready_grads); without overlap_param_gather every forward waits for all of them.
        if (!chained) {
          std::vector<int> all;
          for (const GatherBucket& g : param_buckets_[static_cast<std::size_t>(s)])
            end = all.emplace_back(collective(program, Op::allgather, Stream::gather,
                                              static_cast<std::int64_t>(static_cast<double>(g.elements) * element_),
                                              "data", {update}, "gather bucket", "gather"));
          for (const auto& chunk : stage.chunks)
            for (int unit : chunk) gathered[unit] = all;
        }
      } else if (reshards_after_step && layout_.replicas() > 1) {
        for (const auto& chunk : stage.chunks)
          for (int unit : chunk) {
            const Unit& u = work_.units[static_cast<std::size_t>(unit)];
            if (u.parameters == 0) continue;
            end = collective(program, Op::allgather, Stream::gather, parameter_bytes(u), "data", {update},
                             "gather " + unit_name(u), "gather");
            gathered[unit] = {end};
          }
      }
      if (reshards_after_step && expert_replicas() > 1) {
        for (const auto& chunk : stage.chunks)
          for (int unit : chunk) {
            const Unit& u = work_.units[static_cast<std::size_t>(unit)];
            if (u.expert_parameters == 0) continue;
            const int gather = collective(program, Op::allgather, Stream::gather,
                                          static_cast<std::int64_t>(u.expert_parameters * element_), "expert_data",
                                          {update}, "gather " + unit_name(u) + " experts", "gather");
            end = gather;
            gathered[unit].push_back(gather);
          }
      }
      stage.iteration_end.push_back(end);
    }
  }

  /// Sharded parameters: the all-gathers of a pass's units before their computation (parallel::pass_gathers: one
  /// per unit at most two ahead, FSDP's limit_all_gathers and prefetching; DeepSpeed's per sub-module fetches and
  /// prefetch bucket), each preceded by the framework's cast of the shard (FSDP's mixed precision).
  class Prefetch {
   public:
    /// `after`: what the first gathers wait for (the step and the model average that changed the shards).
    Prefetch(Builder& b, taskgraph::Program& program, std::vector<int> units, std::string pass, bool backward,
             const std::vector<int>& after = {})
        : b_(b), program_(program), units_(std::move(units)), pass_(std::move(pass)),
          gathers_(b.pass_gathers(units_, backward)), tasks_(units_.size()) {
      issue(-1, {after.begin(), after.end()});
    }
    /// What unit k's computation waits for.
    const std::vector<int>& gather(std::size_t k) const { return tasks_.at(k); }
    /// Unit k's computation ended with task `task`: the gathers waiting for it are issued.
    void computed(std::size_t k, int task) { issue(static_cast<int>(k), {task}); }

   private:
    void issue(int after, const std::vector<Dep>& deps) {
      const char* group = b_.layout_.sharding == Sharding::hybrid ? "shard" : "data";
      for (const PassGather& g : gathers_) {
        if (g.after != after) continue;
        const Unit& u = b_.work_.units[static_cast<std::size_t>(units_[static_cast<std::size_t>(g.unit)])];
        const std::string name = pass_ + " gather " + b_.unit_name(u);
        std::vector<Dep> before = deps;
        if (b_.layout_.framework.framework == Framework::fsdp) {
          const FsdpCopies::Kernels cast = fsdp_copies(static_cast<double>(g.elements), b_.shard_size(), b_.element_,
                                                       b_.gradient_, false).before_gather;
          if (cast.kernels > 0) before = {Dep(b_.copy(program_, Stream::gather, cast, before, name + " cast shard"))};
        }
        tasks_[static_cast<std::size_t>(g.unit)].push_back(
            b_.collective(program_, Op::allgather, Stream::gather,
                          static_cast<std::int64_t>(static_cast<double>(g.elements) * b_.element_), group,
                          std::move(before), name, "gather"));
      }
    }
    Builder& b_;
    taskgraph::Program& program_;
    std::vector<int> units_;
    std::string pass_;
    std::vector<PassGather> gathers_;
    std::vector<std::vector<int>> tasks_;
  };

  /// The all-gathers of a pass over `units` (pass order) under the layout's framework.
  std::vector<PassGather> pass_gathers(const std::vector<int>& units, bool backward) const {
    const FrameworkOptions& f = layout_.framework;
    std::vector<std::vector<std::int64_t>> fetches;
    for (int unit : units) {
      const Unit& u = work_.units[static_cast<std::size_t>(unit)];
      std::vector<std::int64_t>& of = fetches.emplace_back();
      if (f.framework != Framework::deepspeed) {
        of.push_back(static_cast<std::int64_t>(u.parameters));
        continue;
      }
      for (int i = u.first_layer; i < u.end_layer; ++i) {
        const Layer& l = model_.layers[static_cast<std::size_t>(i)];
        std::vector<std::int64_t> tensors;
        for (const models::Tensor& t : l.tensors) tensors.push_back(t.numel() / (splits_parameters(l) ? layout_.tensor : 1));
        of.push_back(fetched_elements(tensors, f.param_persistence_threshold));
      }
      if (backward) std::reverse(of.begin(), of.end());
    }
    return parallel::pass_gathers(f, fetches, backward);
  }

  /// The framework's element-wise kernels `k` (casts and copies) on `stream` after `deps`, timed by the GPU's copy
  /// costs.
  int copy(taskgraph::Program& program, Stream stream, const FsdpCopies::Kernels& k, std::vector<Dep> deps,
           const std::string& name) {
    DTSIM_CHECK(in_.copy.Bps > 0, "a framework's copies need the GPU's copy bandwidth");
    Task t;
    t.stream = stream;
    t.name = name;
    t.category = "copy";
    t.duration_s = in_.copy.seconds(k.bytes, k.kernels);
    t.deps = std::move(deps);
    return program.add(std::move(t));
  }

  /// Sharded parameters' gradients under a framework: `elements` of gradients reduce-scattered after task `after`
  /// (the framework's casts and copies before and after, on the data stream; the reduce-scatter on the gathers' stream
  /// when the framework has one NCCL stream). `accumulate`: a micro-batch after the first.
  std::vector<int> reduce_sharded(taskgraph::Program& program, double elements, int after, const std::string& name,
                                  bool across_replicas, bool accumulate) {
    const FrameworkOptions& f = layout_.framework;
    const auto bytes = static_cast<std::int64_t>(elements * gradient_);
    if (f.framework == Framework::generic) return reduce_gradients(program, bytes, {after}, name, across_replicas);
    if (layout_.replicas() == 1 || bytes == 0) return {};
    const FsdpCopies c = (f.framework == Framework::fsdp ? fsdp_copies : deepspeed_copies)(
        elements, shard_size(), element_, gradient_, accumulate);
    std::vector<Dep> deps = {Dep(after)};
    if (c.before_reduce.kernels > 0)
      deps = {Dep(copy(program, Stream::data, c.before_reduce, deps, name + " cast gradients"))};
    const Stream stream = gather_order(f, true).shared_stream ? Stream::gather : Stream::data;
    int last = collective(program, Op::reduce_scatter, stream, bytes, "data", deps, name + " dp", "dp");
    if (c.after_reduce.kernels > 0)
      last = copy(program, Stream::data, c.after_reduce, {Dep(last)}, name + " gradient shard");
    return {last};
  }

  std::string unit_name(const Unit& u) const {
    const Layer& first = model_.layers[static_cast<std::size_t>(u.first_layer)];
    return first.block >= 0 ? "layer " + std::to_string(first.block) : first.name;
  }

  using Key = std::tuple<int, int, int, bool>;  // iteration, micro-batch, receiving model chunk, forward

  /// The gradient norm's exchange along the pipeline (micro-batch -1 in the keys: to stage 0 forward, back
  /// backward); returns what the optimizer step waits for.
  std::vector<int> gradient_norm(taskgraph::Program& program, int s, int it, std::vector<int> reduced) {
    constexpr std::int64_t kNormBytes = 4;  // one fp32 partial sum of squares
    if (s > 0) {
      send(program, 0, {it, -1, s, true}, -1, kNormBytes, "norm", reduced);
      return {receive(program, s, 0, {it, -1, s, false}, "norm")};
    }
    int last = -1;
    for (int from = 1; from < layout_.pipeline; ++from) last = receive(program, 0, from, {it, -1, from, true}, "norm");
    reduced.push_back(last);
    for (int to = 1; to < layout_.pipeline; ++to) send(program, to, {it, -1, to, false}, -1, kNormBytes, "norm", reduced);
    return reduced;
  }

  int receive(taskgraph::Program& program, int self, int from, Key key, const std::string& pass) {
    Task t;
    t.op = Op::recv;
    t.name = pass + (std::get<3>(key) ? " recv activations" : " recv gradients");
    t.category = "pp";
    t.peer = from;
    const int at = program.add(std::move(t));
    receives_[key] = {self, at};
    return at;
  }

  void send(taskgraph::Program& program, int to, Key key, int after, std::int64_t bytes,
            const std::string& pass, std::vector<int> also = {}) {
    Task t;
    t.op = Op::send;
    t.stream = Stream::pipeline;
    t.name = pass + (std::get<3>(key) ? " send activations" : " send gradients");
    t.category = "pp";
    t.peer = to;
    t.bytes = bytes;
    t.deps.assign(also.begin(), also.end());
    if (after >= 0) t.deps.push_back(after);
    sends_[key] = program.add(std::move(t));
  }

  const Layout& layout_;
  const WorkloadInput& in_;
  const models::Model& model_;
  double element_ = 4, gradient_ = 4;
  int blocks_ = 0;
  std::vector<int> chunk_of_block_;  ///< per transformer layer: its model chunk
  Workload work_;
  std::vector<std::vector<GatherBucket>> param_buckets_;  ///< per stage, chunk by chunk, forward order
  std::map<Key, int> sends_;
  std::map<Key, std::pair<int, int>> receives_;
};

/// Why layout.layers_per_stage does not split the model's `blocks` transformer layers (empty when it does).
std::string stages_refusal(const Layout& layout, const models::Model& model, int blocks) {
  const std::vector<int>& per = layout.layers_per_stage;
  if (per.empty()) return "";
  const int chunks = layout.pipeline * layout.virtual_stages;
  const std::string list = "parallel.layers_per_stage";
  if (static_cast<int>(per.size()) != chunks)
    return list + " has " + std::to_string(per.size()) + " entries; it lists the transformer layers of each of the " +
           "pipeline x virtual_stages = " + std::to_string(chunks) + " model chunks, in model order";
  int sum = 0;
  for (int n : per) {
    if (n < 0) return list + " has " + std::to_string(n) + " layers for a chunk; each chunk holds 0 or more";
    sum += n;
  }
  if (sum != blocks)
    return list + " sums to " + std::to_string(sum) + " layers; model '" + model.name + "' has " +
           std::to_string(blocks) + " transformer layers";
  const bool embedding = !model.layers.empty() && model.layers.front().block < 0;
  const bool loss = !model.layers.empty() && model.layers.back().block < 0;
  for (int g = 0; g < chunks; ++g) {
    if (per[static_cast<std::size_t>(g)] > 0) continue;
    const bool own = (g == 0 && embedding) || (g == chunks - 1 && loss);
    if (!own)
      return list + " gives model chunk " + std::to_string(g) + " no layers; only the first and the last chunk may " +
             "hold none, carrying the embedding or the loss alone (model '" + model.name + "' has " +
             (embedding || loss ? std::string(embedding ? "an embedding" : "") + (embedding && loss ? " and " : "") +
                                      (loss ? "layers after its last transformer layer" : "")
                                : "neither") + ")";
  }
  return "";
}

}  // namespace

std::vector<int> layers_per_chunk(const Layout& layout, int blocks) {
  if (!layout.layers_per_stage.empty()) return layout.layers_per_stage;
  const int chunks = layout.pipeline * layout.virtual_stages;
  std::vector<int> per(static_cast<std::size_t>(chunks), blocks / chunks);
  per.back() += blocks % chunks;  // only without pipelining (layout_refusal): one chunk of every layer
  return per;
}

std::string layout_refusal(const Layout& layout, const models::Model& model, int micro_batches) {
  int blocks = 0;
  for (std::size_t i = 0; i < model.layers.size(); ++i)
    if (model.layers[i].block >= 0 && (i == 0 || model.layers[i - 1].block != model.layers[i].block)) ++blocks;
  if ((layout.tensor > 1 || layout.pipeline > 1) && blocks == 0)
    return "tensor and pipeline parallelism split transformer layers; model '" + model.name + "' has none";
  // Megatron-LM gives each tensor-parallel rank whole attention heads.
  const auto scores = std::find_if(model.layers.begin(), model.layers.end(), [](const models::Layer& l) { return l.heads > 0; });
  if (layout.tensor > 1 && scores != model.layers.end()) {
    const int heads = scores->heads;
    if (heads % layout.tensor != 0)
      return "model '" + model.name + "' has " + std::to_string(heads) + " attention heads, not a multiple of tensor = " +
             std::to_string(layout.tensor) + " (Megatron-LM gives each tensor-parallel GPU whole heads)";
  }
  // The frameworks' models and the shardings they run (the loader says so with the key; a plan's what-if meets it here).
  const Framework f = layout.framework.framework;
  if (f == Framework::megatron ? layout.sharding != Sharding::none && layout.sharding != Sharding::zero1
                               : f != Framework::generic && layout.sharding != Sharding::zero3)
    return "framework = \"" + std::string(framework_name(f)) + "\" does not run sharding = \"" +
           std::string(sharding_name(layout.sharding)) + "\" (" +
           (f == Framework::megatron ? "Megatron-LM: \"none\" or \"zero1\", its distributed optimizer"
                                     : "the sharded-parameter frameworks: \"zero3\"") + ")";
  if (std::string why = context_refusal(layout, model); !why.empty()) return why;
  if (std::string why = expert_refusal(layout, model); !why.empty()) return why;
  const int chunks = layout.pipeline * layout.virtual_stages;
  if (const std::string why = stages_refusal(layout, model, blocks); !why.empty()) return why;
  if (layout.layers_per_stage.empty() && chunks > 1 && blocks % chunks != 0)
    return "model '" + model.name + "' has " + std::to_string(blocks) + " transformer layers, not a multiple of " +
           "pipeline x virtual_stages = " + std::to_string(chunks) +
           " (equal stages; parallel.layers_per_stage lists unequal ones)";
  if (layout.pipeline > 1 && (layout.sharding == Sharding::zero3 || layout.sharding == Sharding::hybrid))
    return "sharding = \"" + std::string(sharding_name(layout.sharding)) +
           "\" shards parameters, which DeepSpeed and FSDP do not combine with pipeline parallelism; use zero1 or zero2";
  return pipeline_schedule_refusal(layout.schedule, layout.pipeline, micro_batches, layout.virtual_stages);
}

Workload build_workload(const Layout& layout, const WorkloadInput& input) { return Builder(layout, input).build(); }

std::vector<std::int64_t> workload_tasks(const Layout& layout, const WorkloadInput& input) {
  std::map<DataExchange, std::int64_t> iterations_of;  // per kind of iteration
  for (int it = 0; it < input.iterations; ++it)
    ++iterations_of[input.exchanges.empty() ? DataExchange::gradients : input.exchanges[static_cast<std::size_t>(it)]];
  WorkloadInput small = input;
  small.iterations = 1;
  const int few = layout.pipeline;  // a multiple of the stages, as the interleaved schedule needs
  std::vector<std::int64_t> tasks(static_cast<std::size_t>(layout.pipeline), 0);
  for (const auto& [exchange, iterations] : iterations_of) {
    small.exchanges = {exchange};
    small.micro_batches = few;
    const Workload once = build_workload(layout, small);
    small.micro_batches = 2 * few;
    const Workload twice = build_workload(layout, small);
    for (std::size_t s = 0; s < tasks.size(); ++s) {
      const auto at_few = static_cast<std::int64_t>(once.graph.programs[s].tasks.size());
      const auto per_micro_batch = (static_cast<std::int64_t>(twice.graph.programs[s].tasks.size()) - at_few) / few;
      tasks[s] += iterations * (at_few + (input.micro_batches - few) * per_micro_batch);
    }
  }
  return tasks;
}

}  // namespace dtsim::parallel
