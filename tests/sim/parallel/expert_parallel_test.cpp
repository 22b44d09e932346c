// Expert parallelism against closed forms: the all-to-all volume per MoE layer (tokens x top_k x hidden x bytes x
// (ep - 1)/ep each way), Megatron-LM's expert groups folded into a stage's ranks, the busiest rank's load under a
// router imbalance, the iteration time with and without the shared experts overlapping the dispatch, expert
// parameters per rank, and the refusals.
#include "sim/parallel/expert_parallel.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "models/transformer.hpp"
#include "models/zoo.hpp"
#include "sim/parallel/workload.hpp"
#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::parallel {
namespace {

using taskgraph::Op;

WorkloadInput input(const models::Model& model, models::Precision p = models::Precision::bf16) {
  WorkloadInput in;
  in.model = &model;
  in.times.assign(model.layers.size(), models::LayerTime{1e-4, 2e-4, 1e-5});
  in.recomputed.assign(model.layers.size(), false);
  in.precision = in.gradient_dtype = p;
  return in;
}

/// Bytes and count of stage 0's tasks of `op` on `group` whose name starts with `pass`.
std::pair<std::int64_t, int> tasks(const Workload& w, Op op, const std::string& group, char pass) {
  std::pair<std::int64_t, int> sum{0, 0};
  for (const taskgraph::Task& t : w.graph.programs[0].tasks)
    if (t.op == op && t.group == group && t.name.front() == pass) sum.first += t.bytes, ++sum.second;
  return sum;
}

TEST(ExpertParallel, AllToAllVolumePerMoeLayerIsTokensTopKHiddenBytes) {
  // Mixtral 8x7B, 4,096 tokens, bf16, micro-batch 1, expert 8 x data 8: each of the 32 MoE layers dispatches and
  // combines forward and backward, each an all-to-all of a rank's tokens x top-2 x 4096 x 2 B, of which a rank sends
  // (ep - 1)/ep to the other ranks of its expert group.
  const models::Model model = models::make_model("mixtral_8x7b");
  Layout l;
  l.data = 8;
  l.expert = 8;
  l.micro_batch = 1;
  const Workload w = build_workload(l, input(model));
  const std::int64_t routed = 4096LL * 2 * 4096 * 2;
  EXPECT_EQ(tasks(w, Op::alltoall, "expert", 'F'), std::make_pair(32 * 2 * routed, 64));
  EXPECT_EQ(tasks(w, Op::alltoall, "expert", 'B'), std::make_pair(32 * 2 * routed, 64));
  for (const taskgraph::Task& t : w.graph.programs[0].tasks)
    if (t.op == Op::alltoall) {
      EXPECT_EQ(t.stream, taskgraph::Stream::expert);
    }
  // Tensor 2 with sequence parallelism: a rank routes half of the tokens; expert_tensor 2 all-gathers what its
  // expert group sent it over the expert tensor pair and reduce-scatters the outputs.
  l.tensor = 2;
  l.data = 4;
  l.expert = 4;
  l.expert_tensor = 2;
  l.sequence_parallel = true;
  const Workload tp = build_workload(l, input(model));
  EXPECT_EQ(tasks(tp, Op::alltoall, "expert", 'F'), std::make_pair(32 * 2 * routed / 2, 64));
  EXPECT_EQ(tasks(tp, Op::allgather, "expert_tensor", 'F'), std::make_pair(32 * routed, 32));
  EXPECT_EQ(tasks(tp, Op::reduce_scatter, "expert_tensor", 'F'), std::make_pair(32 * routed, 32));
  EXPECT_EQ(tasks(tp, Op::allgather, "expert_tensor", 'B'), std::make_pair(32 * routed, 32));
}

TEST(ExpertParallel, GroupsAreMegatronsFoldedIntoTheStagesRanks) {
  // Tensor 2 x pipeline 2 x data 8 (32 ranks, order tensor, context, pipeline, data: stage 0 holds ranks 0, 1, 4,
  // 5, 8, 9, ...); expert_tensor 2 x expert 4 x expert_data 2 over each stage's 16 ranks in rank order.
  Layout l;
  l.tensor = 2;
  l.pipeline = 2;
  l.data = 8;
  l.expert = 4;
  l.expert_tensor = 2;
  EXPECT_EQ(l.ranks(), 32);
  const Placement p(l, 8);
  EXPECT_EQ(p.members(0, "expert_tensor"), (std::vector<int>{0, 1}));
  EXPECT_EQ(p.members(0, "expert"), (std::vector<int>{0, 4, 8, 12}));
  EXPECT_EQ(p.members(5, "expert"), (std::vector<int>{1, 5, 9, 13}));
  EXPECT_EQ(p.members(0, "expert_data"), (std::vector<int>{0, 16}));
  EXPECT_EQ(p.members(2, "expert"), (std::vector<int>{2, 6, 10, 14}));  // stage 1
  EXPECT_TRUE(p.leads(1, "expert"));
  EXPECT_FALSE(p.leads(4, "expert"));
  EXPECT_EQ(extents_name(l), "tensor 2 x pipeline 2 x data 8 x expert_tensor 2 x expert 4");
}

TEST(ExpertParallel, BusiestRankLoadFromTheRouterImbalance) {
  models::Layer routed;
  routed.experts = 256;
  routed.expert_imbalance = 2;
  EXPECT_DOUBLE_EQ(rank_load(routed, 256), 2);  // one expert a rank: the busiest expert's load
  EXPECT_DOUBLE_EQ(rank_load(routed, 1), 1);    // every expert on every rank: the mean
  EXPECT_DOUBLE_EQ(rank_load(routed, 64), (2 + 3 * 254.0 / 255) / 4);
}

/// Makespan of one iteration: every module `f` forward and 2 f backward on a whole GPU, an expert all-to-all
/// `per_byte` a byte, nothing else costing time.
double makespan(const Layout& layout, const models::Model& model, double f, double per_byte) {
  WorkloadInput in = input(model, models::Precision::fp32);
  in.times.assign(model.layers.size(), models::LayerTime{f, 2 * f, 0});
  const Workload w = build_workload(layout, in);
  return taskgraph::list_schedule(w.graph, [&](int, const taskgraph::Task& t) {
           return t.op == Op::compute ? t.duration_s : t.group == "expert" ? per_byte * t.bytes : 0.0;
         }).makespan_s();
}

TEST(ExpertParallel, IterationIsTheComputeAndFourAllToAllsPerMoeLayer) {
  // Two MoE layers of 8 experts top-2 with a shared expert, 16 tokens, hidden 8, expert 4 x data 4, a router
  // imbalance of 2. A rank's work is every module's, the routed experts' at the busiest rank's load; each MoE layer
  // adds two all-to-alls forward and two backward of 16 x 2 x 8 x 4 B x load, on the critical path.
  models::TransformerShape s;
  s.layers = 2, s.hidden = 8, s.heads = s.kv_heads = 2, s.ffn_hidden = 16, s.vocabulary = 32, s.max_positions = 16;
  s.gated = true, s.bias = false, s.norm = models::NormKind::rmsnorm, s.position = models::PositionScheme::rotary;
  s.experts = 8, s.top_k = 2, s.shared_experts = 1, s.expert_ffn_hidden = 4, s.router_imbalance = 2;
  const models::Model model = models::build_transformer("tiny moe", "test", s, 16);
  Layout l;
  l.data = 4;
  l.expert = 4;
  l.micro_batch = 1;
  const double f = 1e-3, per_byte = 1e-6;
  models::Layer routed;
  for (const models::Layer& m : model.layers)
    if (m.experts > 0) routed = m;
  const double load = rank_load(routed, 4);
  EXPECT_DOUBLE_EQ(load, (2 + 6.0 / 7) / 2);
  double compute = 0, shared = 0;
  for (const models::Layer& m : model.layers) {
    compute += 3 * f * (m.experts > 0 ? load : 1);
    if (m.block == 0 && m.name.find("shared_experts") != std::string::npos) shared += f;
  }
  const double x = per_byte * std::floor(16 * 2 * 8 * 4 * load);  // whole bytes
  EXPECT_NEAR(makespan(l, model, f, per_byte), compute + 2 * 4 * x, 1e-12);
  // Megatron-LM's moe_shared_expert_overlap: the dispatch (forward) and its conjugate (backward) run beside the
  // shared expert's forward (4 f) and backward (8 f), hiding the shorter of each pair.
  l.moe_shared_expert_overlap = true;
  EXPECT_NEAR(makespan(l, model, f, per_byte),
              compute + 2 * 4 * x - 2 * (std::min(x, shared) + std::min(x, 2 * shared)), 1e-12);
}

TEST(ExpertParallel, ExpertParametersDivideOverExpertAndExpertTensor) {
  const models::Model model = models::make_model("mixtral_8x7b");
  Layout l;
  l.data = 64;
  l.expert = 8;
  l.micro_batch = 1;
  const Workload w = build_workload(l, input(model));
  double experts = 0;
  for (const Unit& u : w.units) experts += u.expert_parameters;
  EXPECT_DOUBLE_EQ(experts, 32.0 * 8 * 3 * 4096 * 14336 / 8);
  // Their gradients are summed over expert_data (here 64 / 8 = 8 ranks), each layer's after its last backward.
  EXPECT_EQ(tasks(w, Op::allreduce, "expert_data", 'B'),
            std::make_pair(static_cast<std::int64_t>(32.0 * 3 * 4096 * 14336 * 2), 32));
}

TEST(ExpertParallel, Refusals) {
  const models::Model mixtral = models::make_model("mixtral_8x7b");
  Layout l;
  l.data = 8;
  l.expert = 16;
  EXPECT_NE(expert_refusal(l, mixtral).find("does not divide"), std::string::npos);
  l.data = 16;
  EXPECT_NE(expert_refusal(l, mixtral).find("8 routed experts, not a multiple of expert = 16"), std::string::npos);
  l.expert = 8;
  l.tensor = 2;
  EXPECT_NE(expert_refusal(l, mixtral).find("sequence_parallel"), std::string::npos);
  l.sequence_parallel = true;
  EXPECT_EQ(expert_refusal(l, mixtral), "");
  l.sharding = Sharding::zero3;
  EXPECT_NE(expert_refusal(l, mixtral).find("zero1"), std::string::npos);
  Layout dense;
  dense.data = 8;
  dense.expert = 2;
  EXPECT_NE(expert_refusal(dense, models::make_model("llama3_8b")).find("has none"), std::string::npos);
}

}  // namespace
}  // namespace dtsim::parallel
