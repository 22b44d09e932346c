// Context parallelism against closed forms: the key/value traffic of ring attention and of the all-gather variant
// per transformer layer, the ring's overlap with the attention blocks, the replicas' group (data x context) over
// which gradients are summed, and activations divided over the group.
#include "sim/parallel/context_parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "models/zoo.hpp"
#include "sim/parallel/stage_memory.hpp"
#include "sim/parallel/workload.hpp"
#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::parallel {
namespace {

using taskgraph::Op;

Workload build(const Layout& layout, const models::Model& model, models::Precision p = models::Precision::bf16) {
  WorkloadInput in;
  in.model = &model;
  in.times.assign(model.layers.size(), models::LayerTime{1e-4, 2e-4, 1e-5});
  in.recomputed.assign(model.layers.size(), false);
  in.precision = in.gradient_dtype = p;
  in.micro_batches = 1;
  return build_workload(layout, in);
}

/// Bytes of `op` tasks on the context group of stage 0 whose name starts with `pass` ("F" or "B"), and their count.
std::pair<std::int64_t, int> context_tasks(const Workload& w, Op op, char pass) {
  std::pair<std::int64_t, int> sum{0, 0};
  for (const taskgraph::Task& t : w.graph.programs[0].tasks)
    if (t.op == op && t.group == "context" && t.name.front() == pass) {
      EXPECT_EQ(t.stream, taskgraph::Stream::context) << t.name;
      sum.first += t.bytes;
      ++sum.second;
    }
  return sum;
}

TEST(ContextParallel, RingExchangesEveryKeyAndValueForwardAndTwiceBackward) {
  // Llama 2 70B (80 layers, hidden 8192, 64 heads, 8 key/value heads: keys and values are 2 x 1024 per token),
  // 4,096 tokens, bf16, micro-batch 2, tensor 8 x context 4: each layer's forward ring carries the group's whole
  // keys and values, 2 s (kv_heads x head dim) b 2 B / tensor (an all-gather's task holds every rank's block);
  // backward carries them and their gradients, twice that.
  const models::Model model = models::make_model("llama2_70b");
  Layout l;
  l.tensor = 8;
  l.context = 4;
  l.micro_batch = 2;
  const Workload w = build(l, model);
  const std::int64_t kv = 2LL * 4096 * (8 * 128) * 2 * 2 / 8;
  EXPECT_EQ(context_tasks(w, Op::allgather, 'F'), std::make_pair(80 * kv, 80));
  EXPECT_EQ(context_tasks(w, Op::allgather, 'B'), std::make_pair(80 * 2 * kv, 80));
  EXPECT_EQ(context_tasks(w, Op::reduce_scatter, 'B').second, 0);
  // Each rank's share of a ring: (context - 1) / context of the task's bytes, the keys and values of the other ranks.
  // The all-gather variant (Llama 3): gathered forward and again backward, their gradients reduce-scattered.
  l.context_comm = "all_gather";
  const Workload gathered = build(l, model);
  EXPECT_EQ(context_tasks(gathered, Op::allgather, 'F'), std::make_pair(80 * kv, 80));
  EXPECT_EQ(context_tasks(gathered, Op::allgather, 'B'), std::make_pair(80 * kv, 80));
  EXPECT_EQ(context_tasks(gathered, Op::reduce_scatter, 'B'), std::make_pair(80 * kv, 80));
  // The tensor-parallel all-reduces carry a rank's tokens: 1/context of the sequence.
  std::int64_t tp = 0;
  for (const taskgraph::Task& t : w.graph.programs[0].tasks)
    if (t.op == Op::allreduce && t.group == "tensor" && t.name.rfind("F0 layer 0", 0) == 0) tp += t.bytes;
  EXPECT_EQ(tp, 2 * (4096 / 4) * 8192 * 2 * 2);
}

/// `n` transformer layers: a module before the attention core, and the core (one head, 1000 outputs a sample).
models::Model attention_blocks(int n) {
  models::Model m;
  m.name = "attention blocks";
  m.tokens = 8;
  for (int b = 0; b < n; ++b) {
    models::Layer before;
    before.name = "qkv" + std::to_string(b);
    before.block = b;
    before.output_elements = before.input_elements = 1000;
    m.layers.push_back(before);
    models::Layer core = before;
    core.name = "core" + std::to_string(b);
    core.attention_core = true;
    core.heads = 1;
    m.layers.push_back(core);
  }
  return m;
}

/// Makespan of one iteration of `model` under `layout`: modules before the core take `f` forward and 2 f backward
/// on a whole GPU, cores `a` and 2 a; a context collective takes `per_byte` a byte; nothing else costs time.
double makespan(const Layout& layout, const models::Model& model, double f, double a, double per_byte) {
  WorkloadInput in;
  in.model = &model;
  for (const models::Layer& l : model.layers)
    in.times.push_back(l.attention_core ? models::LayerTime{a, 2 * a, 0} : models::LayerTime{f, 2 * f, 0});
  in.recomputed.assign(model.layers.size(), false);
  in.precision = in.gradient_dtype = models::Precision::fp32;
  const Workload w = build_workload(layout, in);
  return taskgraph::list_schedule(w.graph, [&](int, const taskgraph::Task& t) {
           return t.op == Op::compute ? t.duration_s : t.group == "context" ? per_byte * t.bytes : 0.0;
         }).makespan_s();
}

TEST(ContextParallel, RingHidesTheExchangeBehindAllButTheLastBlock) {
  // Context 4, 3 layers: a rank computes 1/4 of every module. The ring's forward takes
  // max(exchange, 3/4 of the core) + 1/4 of the core (the last block follows the last arrival), backward the same
  // with twice the bytes; the all-gather variant adds its exchanges in full.
  const models::Model model = attention_blocks(3);
  Layout l;
  l.context = 4;
  l.micro_batch = 1;
  const double f = 4e-3, a = 8e-3;
  const double kv_bytes = 2.0 * 1000 * 4;  // the group's keys and values: 2 x outputs x fp32
  for (const double per_byte : {1e-8, 1e-6}) {  // an exchange hidden by the blocks, and one that is not
    const double x = per_byte * kv_bytes, core = a / 4, before = f / 4;
    const double forward = before + std::max(x, core * 3 / 4) + core / 4;
    const double backward = std::max(2 * x, 2 * core * 3 / 4) + 2 * core / 4 + 2 * before;
    EXPECT_NEAR(makespan(l, model, f, a, per_byte), 3 * (forward + backward), 1e-15) << per_byte;
    Layout gathered = l;
    gathered.context_comm = "all_gather";
    EXPECT_NEAR(makespan(gathered, model, f, a, per_byte), 3 * (before + x + core + x + 2 * core + x + 2 * before),
                1e-15)
        << per_byte;
  }
}

TEST(ContextParallel, GradientsAreSummedOverDataTimesContext) {
  // tensor 2 x context 2 x pipeline 1 x data 2: ranks tensor-innermost, then context, then data.
  Layout l;
  l.tensor = 2;
  l.context = 2;
  l.data = 2;
  EXPECT_EQ(l.ranks(), 8);
  EXPECT_EQ(l.replicas(), 4);
  const Placement p(l, 8);
  EXPECT_EQ(p.members(1, "context"), (std::vector<int>{1, 3}));
  EXPECT_EQ(p.members(3, "data"), (std::vector<int>{1, 3, 5, 7}));
  EXPECT_TRUE(p.leads(1, "data"));
  EXPECT_FALSE(p.leads(3, "data"));
  EXPECT_EQ(extents_name(l), "tensor 2 x context 2 x pipeline 1 x data 2");
  EXPECT_EQ(extents_name(Layout{}), "tensor 1 x pipeline 1 x data 1");
  // ZeRO-2 over the replicas: one reduce-scatter of each unit's gradients over the 4 of them.
  const models::Model model = models::make_model("gpt3_125m");
  l.sharding = Sharding::zero2;
  l.micro_batch = 1;
  const Workload w = build(l, model);
  int reduce_scatters = 0;
  for (const taskgraph::Task& t : w.graph.programs[0].tasks)
    if (t.op == Op::reduce_scatter && t.group == "data") ++reduce_scatters;
  EXPECT_EQ(reduce_scatters, static_cast<int>(w.units.size()));
}

TEST(ContextParallel, ActivationsDivideOverTheGroup) {
  const models::Model model = models::make_model("gpt3_125m");
  Layout l;
  l.micro_batch = 2;
  auto activations = [&](const Layout& layout) {
    const Workload w = build(layout, model);
    const memory::MemoryBreakdown b =
        stage_memory(layout, w, 0, model, models::gpu_profile("a100"), models::Precision::bf16,
                     models::Precision::bf16, models::optimizer("adam"), memory::Recomputation::none, 1, 1);
    const auto at = std::find_if(b.items.begin(), b.items.end(), [](const auto& i) { return i.name == "activations"; });
    return at->bytes;
  };
  Layout cp = l;
  cp.context = 4;
  EXPECT_DOUBLE_EQ(activations(cp), activations(l) / 4);
}

TEST(ContextParallel, RefusesWhatMegatronRefuses) {
  const models::Model model = models::make_model("gpt3_125m");  // 2,048 tokens
  Layout l;
  l.context = 3;
  EXPECT_NE(context_refusal(l, model).find("not a multiple of 2 x context = 6"), std::string::npos);
  l.context = 4;
  EXPECT_EQ(context_refusal(l, model), "");
  EXPECT_NE(context_refusal(l, models::make_model("resnet50")).find("has none"), std::string::npos);
  EXPECT_EQ(context_comm_names(), (std::vector<std::string>{"p2p", "all_gather"}));
}

}  // namespace
}  // namespace dtsim::parallel
