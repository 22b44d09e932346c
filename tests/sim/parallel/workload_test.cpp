// The task graph of 3D layouts against closed forms: the pipeline bubble of GPipe, 1F1B and interleaved 1F1B,
// Megatron-LM's tensor-parallel collectives per transformer layer, and the memory of a stage.
#include "sim/parallel/workload.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "models/zoo.hpp"
#include "sim/memory/activations.hpp"
#include "sim/memory/model_states.hpp"
#include "sim/parallel/stage_memory.hpp"
#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::parallel {
namespace {

using taskgraph::Op;

/// `blocks` transformer layers of one parameter-free layer each.
models::Model blocks(int n) {
  models::Model m;
  m.name = "blocks";
  for (int b = 0; b < n; ++b) {
    models::Layer l;
    l.name = "layer" + std::to_string(b);
    l.block = b;
    l.output_elements = l.input_elements = 1000;
    m.layers.push_back(l);
  }
  return m;
}

/// Makespan of `iterations` with every layer taking `f` forward and `b` backward, communication free.
double makespan(const Layout& layout, int layers, int micro_batches, double f, double b) {
  const models::Model model = blocks(layers);
  WorkloadInput in;
  in.model = &model;
  in.times.assign(model.layers.size(), models::LayerTime{f, b, 0});
  in.recomputed.assign(model.layers.size(), false);
  in.micro_batches = micro_batches;
  const Workload w = build_workload(layout, in);
  return taskgraph::list_schedule(w.graph, [](int, const taskgraph::Task& t) {
           return t.op == Op::compute ? t.duration_s : 0.0;
         }).makespan_s();
}

Layout pipeline(int stages, std::string schedule, int chunks = 1) {
  Layout l;
  l.micro_batch = 1;
  l.pipeline = stages;
  l.schedule = std::move(schedule);
  l.virtual_stages = chunks;
  return l;
}

TEST(PipelineBubble, OneFOneBAndGPipeTakeMPlusPMinusOneSlots) {
  // 8 layers on 4 stages: a stage's forward 2 ms and backward 4 ms per micro-batch; the bubble is
  // (p - 1) / (m + p - 1) of the iteration (Narayanan et al. 2021, section 2.2.1).
  for (const char* schedule : {"1f1b", "gpipe"}) {
    const double t = makespan(pipeline(4, schedule), 8, 8, 1e-3, 2e-3);
    EXPECT_NEAR(t, (8 + 4 - 1) * 6e-3, 1e-15) << schedule;
    EXPECT_NEAR(1 - 8 * 6e-3 / t, 3.0 / 11.0, 1e-12) << schedule;
  }
  EXPECT_NEAR(makespan(pipeline(1, "1f1b"), 8, 8, 1e-3, 2e-3), 8 * 24e-3, 1e-15);
}

TEST(PipelineBubble, InterleavingDividesItByTheChunks) {
  // 2 chunks per stage: the bubble is (p - 1) / v of a micro-batch's forward and backward.
  const double t = makespan(pipeline(4, "interleaved", 2), 8, 8, 1e-3, 2e-3);
  EXPECT_NEAR(t, (8 + 3.0 / 2) * 6e-3, 1e-15);
}

Layout unequal(std::string schedule, std::vector<int> per_stage) {
  Layout l = pipeline(static_cast<int>(per_stage.size()), std::move(schedule));
  l.layers_per_stage = std::move(per_stage);
  return l;
}

// Unequal stages (parallel.layers_per_stage): stage s runs f_s forward and b_s backward per micro-batch, c_s = f_s + b_s.
// GPipe is a flow shop of m identical jobs, forward then backward: sum_s f_s + (m - 1) max_s f_s, then the same of b.
// Under 1F1B a single slowest stage k sets the steady state: micro-batch 0 reaches it after sum_{s<k} f_s; it runs
// m c_k, idle only while its first backward makes the round trip through the later stages beyond its p - k - 1
// warm-up forwards (max(0, sum_{s>k} c_s - (p - k - 1) f_k)); then the last backward returns in sum_{s<k} b_s.
double one_f_one_b_closed_form(const std::vector<int>& layers, double f, double b, int m) {
  const auto k = static_cast<std::size_t>(std::max_element(layers.begin(), layers.end()) - layers.begin());
  const auto p = layers.size();
  double before = 0, after = 0;
  for (std::size_t s = 0; s < p; ++s) (s < k ? before : after) += s == k ? 0 : layers[s] * (f + b);
  const double fk = layers[k] * f, ck = layers[k] * (f + b);
  return before + m * ck + std::max(0.0, after - static_cast<double>(p - k - 1) * fk);
}

TEST(PipelineBubble, UnequalStagesFollowTheSlowestStage) {
  const double f = 1e-3, b = 2e-3;
  const int m = 8;
  // 8 layers as [1, 3, 2, 2]: f_s = 1, 3, 2, 2 ms, b_s = 2 f_s.
  EXPECT_NEAR(makespan(unequal("gpipe", {1, 3, 2, 2}), 8, m, f, b), 8 * f + (m - 1) * 3 * f + 8 * b + (m - 1) * 3 * b,
              1e-15);
  EXPECT_NEAR(makespan(unequal("gpipe", {3, 1, 1, 3}), 8, m, f, b), 8 * f + (m - 1) * 3 * f + 8 * b + (m - 1) * 3 * b,
              1e-15);
  for (const std::vector<int>& layers : {std::vector<int>{1, 3, 2, 2}, {3, 2, 2, 1}, {2, 2, 1, 3}, {1, 2, 3, 2}}) {
    EXPECT_NEAR(makespan(unequal("1f1b", layers), 8, m, f, b), one_f_one_b_closed_form(layers, f, b, m), 1e-15)
        << layers[0] << layers[1] << layers[2] << layers[3];
  }
  // The slowest stage last: the familiar sum_s c_s + (m - 1) max_s c_s.
  EXPECT_NEAR(one_f_one_b_closed_form({2, 2, 1, 3}, f, b, m), 8 * (f + b) + (m - 1) * 3 * (f + b), 1e-15);
  // Equal stages listed are the default split; with virtual stages the list is per model chunk.
  EXPECT_EQ(makespan(unequal("1f1b", {2, 2, 2, 2}), 8, m, f, b), makespan(pipeline(4, "1f1b"), 8, m, f, b));
  Layout interleaved = pipeline(4, "interleaved", 2);
  interleaved.layers_per_stage.assign(8, 1);
  EXPECT_EQ(makespan(interleaved, 8, m, f, b), makespan(pipeline(4, "interleaved", 2), 8, m, f, b));
  // A chunk in the middle of the model may not be empty; an extra layer on chunk 1 (stage 1's first) slows every
  // micro-batch down.
  interleaved.layers_per_stage = {1, 2, 1, 1, 1, 0, 1, 1};
  EXPECT_EQ(layout_refusal(interleaved, blocks(8), 8).rfind("parallel.layers_per_stage gives model chunk 5 no layers", 0),
            0u);
  interleaved.layers_per_stage = {1, 2, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(layout_refusal(interleaved, blocks(9), 8), "");
  EXPECT_GT(makespan(interleaved, 9, m, f, b), makespan(pipeline(4, "interleaved", 2), 8, m, f, b));
}

TEST(PipelineBubble, Llama3405BsStagesCostOneSlotOfTheirSlowest) {
  // Dubey et al. 2024, section 3.3.2: 126 layers on 16 stages, one fewer on the first and the last. The middle
  // stages' 8 layers set the steady state: every further micro-batch adds 8 layers' forward and backward.
  std::vector<int> per(16, 8);
  per.front() = per.back() = 7;
  const double f = 1e-3, b = 2e-3;
  EXPECT_NEAR(makespan(unequal("1f1b", per), 126, 48, f, b) - makespan(unequal("1f1b", per), 126, 32, f, b),
              16 * 8 * (f + b), 1e-12);
  EXPECT_EQ(layout_refusal(unequal("1f1b", per), blocks(126), 32), "");
  // Without the list, 126 layers do not split over 16 stages.
  EXPECT_EQ(layout_refusal(pipeline(16, "1f1b"), blocks(126), 32),
            "model 'blocks' has 126 transformer layers, not a multiple of pipeline x virtual_stages = 16 (equal "
            "stages; parallel.layers_per_stage lists unequal ones)");
}

TEST(PipelineBubble, UnequalStagesRefusalsSayWhy) {
  const models::Model model = blocks(8);
  EXPECT_EQ(layout_refusal(unequal("1f1b", {4, 4, 0}), model, 8),
            "parallel.layers_per_stage gives model chunk 2 no layers; only the first and the last chunk may hold none, "
            "carrying the embedding or the loss alone (model 'blocks' has neither)");
  EXPECT_EQ(layout_refusal(unequal("1f1b", {4, 3}), model, 8),
            "parallel.layers_per_stage sums to 7 layers; model 'blocks' has 8 transformer layers");
  Layout l = unequal("interleaved", {2, 2, 2, 2});
  l.virtual_stages = 2;
  EXPECT_EQ(layout_refusal(l, model, 8).rfind("parallel.layers_per_stage has 4 entries; it lists the transformer "
                                              "layers of each of the pipeline x virtual_stages = 8 model chunks", 0),
            0u);
  // A stage of its own for the embedding (GPT-3 125M: 12 layers, the first stage only its embeddings).
  EXPECT_EQ(layout_refusal(unequal("1f1b", {0, 6, 6}), models::make_model("gpt3_125m"), 8), "");
}

/// Tasks of `op` on the tensor stream of stage 0, summed bytes and count.
std::pair<std::int64_t, int> tensor_collectives(const Workload& w, Op op) {
  std::pair<std::int64_t, int> sum{0, 0};
  for (const taskgraph::Task& t : w.graph.programs[0].tasks)
    if (t.op == op && t.group == "tensor") {
      sum.first += t.bytes;
      ++sum.second;
    }
  return sum;
}

/// GPT-3 125M's workload at precision `p`, its gradients reduced in `gradient` (default: p).
Workload gpt(const Layout& layout, models::Precision p, const models::Model& model,
             std::optional<models::Precision> gradient = std::nullopt) {
  WorkloadInput in;
  in.model = &model;
  in.times.assign(model.layers.size(), models::LayerTime{1e-4, 2e-4, 1e-5});
  in.recomputed.assign(model.layers.size(), false);
  in.precision = p;
  in.gradient_dtype = gradient.value_or(p);
  in.micro_batches = 1;
  return build_workload(layout, in);
}

TEST(TensorParallel, TwoAllReducesPerLayerForwardAndTwoBackward) {
  // GPT-3 125M (12 layers, hidden 768, 2048 tokens), tensor 2, fp16, micro-batch 2: each all-reduce carries
  // b s h 2 bytes; 4 per layer, plus the vocabulary-parallel embedding's (forward) and the head's (backward).
  const models::Model model = models::make_model("gpt3_125m");
  Layout l;
  l.tensor = 2;
  l.micro_batch = 2;
  const Workload w = gpt(l, models::Precision::fp16, model);
  const std::int64_t activation = 2 * 2048 * 768 * 2;
  EXPECT_EQ(tensor_collectives(w, Op::allreduce), std::make_pair(std::int64_t{4 * 12 + 2} * activation, 4 * 12 + 2));
  // Sequence parallelism: an all-gather and a reduce-scatter for each all-reduce, forward and backward, the same
  // bytes on the wire (a ring all-reduce moves 2 (t-1)/t of its bytes, the other two (t-1)/t each).
  l.sequence_parallel = true;
  const Workload sp = gpt(l, models::Precision::fp16, model);
  EXPECT_EQ(tensor_collectives(sp, Op::allreduce).second, 0);
  EXPECT_EQ(tensor_collectives(sp, Op::allgather), std::make_pair(std::int64_t{4 * 12 + 2} * activation, 4 * 12 + 2));
  EXPECT_EQ(tensor_collectives(sp, Op::reduce_scatter), std::make_pair(std::int64_t{4 * 12 + 2} * activation, 4 * 12 + 2));
}

/// Tasks of `op` on the data group of stage 0, summed bytes.
std::int64_t data_bytes(const Workload& w, Op op) {
  std::int64_t sum = 0;
  for (const taskgraph::Task& t : w.graph.programs[0].tasks)
    if (t.op == op && t.group == "data") sum += t.bytes;
  return sum;
}

TEST(GradientDtype, ReduceScattersCarryTheGradientDtypeAndGathersTheParameters) {
  // ZeRO-3 at fp32: the reduce-scatters of the gradients halve in bf16, the gathers of the parameters (FSDP's
  // param_dtype: the training precision's) do not.
  const models::Model model = models::make_model("gpt3_125m");
  Layout l;
  l.data = 4;
  l.sharding = Sharding::zero3;
  const Workload fp32 = gpt(l, models::Precision::fp32, model);
  const Workload bf16 = gpt(l, models::Precision::fp32, model, models::Precision::bf16);
  ASSERT_GT(data_bytes(fp32, Op::reduce_scatter), 0);
  EXPECT_EQ(data_bytes(fp32, Op::reduce_scatter), 2 * data_bytes(bf16, Op::reduce_scatter));
  EXPECT_EQ(data_bytes(fp32, Op::allgather), data_bytes(bf16, Op::allgather));
  // Plain data parallelism all-reduces whole gradients: 4 and 2 bytes a parameter.
  Layout dp;
  dp.data = 4;
  EXPECT_EQ(data_bytes(gpt(dp, models::Precision::fp16, model, models::Precision::fp32), Op::allreduce),
            4 * static_cast<std::int64_t>(model.parameter_count()));
  EXPECT_EQ(data_bytes(gpt(dp, models::Precision::fp16, model), Op::allreduce),
            2 * static_cast<std::int64_t>(model.parameter_count()));
}

TEST(StageMemory, ModelStatesOfAStageByHand) {
  // GPT-3 125M on tensor 2 x pipeline 2 x data 4, fp16 Adam, ZeRO-1. Per GPU of stage 0: half the vocabulary
  // of the token embedding, all 2048 positions, and 6 layers of (12 h^2 + 9 h) / 2 split parameters plus 4 h of
  // norms (replicated); 2 + 2 bytes of weight and gradient each and 12 of optimizer state over 4 replicas.
  const models::Model model = models::make_model("gpt3_125m");
  Layout l;
  l.tensor = 2;
  l.pipeline = 2;
  l.data = 4;
  l.sharding = Sharding::zero1;
  const Workload w = gpt(l, models::Precision::fp16, model);
  const double h = 768;
  const double p0 = 50257 * h / 2 + 2048 * h + 6 * ((12 * h * h + 9 * h) / 2 + 4 * h);
  EXPECT_DOUBLE_EQ(w.stages[0].parameters, p0);
  const memory::MemoryBreakdown b =
      stage_memory(l, w, 0, model, models::gpu_profile("a100"), models::Precision::fp16, models::Precision::fp16,
                   models::optimizer("adam"), memory::Recomputation::none, 1, 1);
  EXPECT_DOUBLE_EQ(b.items[0].bytes, 2 * p0);
  EXPECT_DOUBLE_EQ(b.items[1].bytes, 2 * p0);
  EXPECT_DOUBLE_EQ(b.items[2].bytes, 12 * p0 / 4);
}

TEST(StageMemory, OneFOneBHoldsStagesMicroBatchesGPipeAll) {
  const models::Model model = models::make_model("gpt3_125m");
  Layout l;
  l.pipeline = 2;
  l.micro_batch = 1;
  auto activations = [&](const char* schedule) {
    l.schedule = schedule;
    WorkloadInput in;
    in.model = &model;
    in.times.assign(model.layers.size(), models::LayerTime{});
    in.recomputed.assign(model.layers.size(), false);
    in.micro_batches = 8;
    const Workload w = build_workload(l, in);
    const auto b = stage_memory(l, w, 0, model, models::gpu_profile("a100"), models::Precision::fp32,
                                models::Precision::fp32, models::optimizer("sgd"), memory::Recomputation::none, 8, 1);
    return b.items[3].bytes;
  };
  const double one_f_one_b = activations("1f1b"), gpipe = activations("gpipe");
  EXPECT_DOUBLE_EQ(gpipe / one_f_one_b, 4.0);  // 8 micro-batches in flight against 2
  // Stage 0 holds the embeddings and 6 layers: 2 micro-batches of what they keep.
  double per_sample = 0;
  for (const models::Layer& layer : model.layers) {
    if (layer.block == 6) break;
    per_sample += memory::kept_bytes(layer, 4, false);
  }
  EXPECT_DOUBLE_EQ(one_f_one_b, 2 * per_sample);
}

TEST(StageMemory, UnequalStagesHoldTheirOwnLayers) {
  // GPT-3 125M as [0, 6, 6]: stage 0 holds the token and position embeddings alone, stage 1 six layers.
  const models::Model model = models::make_model("gpt3_125m");
  const Layout l = unequal("1f1b", {0, 6, 6});
  const Workload w = gpt(l, models::Precision::fp16, model);
  const double h = 768;
  EXPECT_DOUBLE_EQ(w.stages[0].parameters, (50257 + 2048) * h);
  EXPECT_DOUBLE_EQ(w.stages[1].parameters, 6 * (12 * h * h + 13 * h));
}

}  // namespace
}  // namespace dtsim::parallel

namespace dtsim::parallel {
namespace {

/// `blocks(n)` with one parameter per layer, so that data-parallel ranks reduce gradients.
models::Model blocks_with_parameters(int n) {
  models::Model m = blocks(n);
  for (models::Layer& l : m.layers) l.tensors.push_back({"w", {1}});
  return m;
}

TEST(WorkloadTasks, CountsTheBuiltGraphsTasksWithoutBuildingIt) {
  // The count read off two small builds is the built graph's, for every schedule, chunks and iterations, and
  // for iterations that reduce gradients, average models or exchange nothing (local SGD, Overlap Local-SGD).
  const models::Model model = blocks_with_parameters(8);
  using X = DataExchange;
  for (const auto& [schedule, chunks] : {std::pair<const char*, int>{"1f1b", 1}, {"gpipe", 1}, {"interleaved", 2}})
    for (const auto& [exchanges, in_flight] :
         {std::pair<std::vector<X>, bool>{{}, false}, {{X::gradients, X::none, X::models}, false},
          {{X::models, X::none, X::models}, true}}) {
      Layout l = pipeline(2, schedule, chunks);
      l.data = 2;
      WorkloadInput in;
      in.model = &model;
      in.times.assign(model.layers.size(), models::LayerTime{1e-3, 2e-3, 0});
      in.recomputed.assign(model.layers.size(), false);
      in.micro_batches = 6;
      in.iterations = 3;
      in.exchanges = exchanges;
      in.average_in_flight = in_flight;
      const Workload w = build_workload(l, in);
      const std::vector<std::int64_t> counted = workload_tasks(l, in);
      ASSERT_EQ(counted.size(), w.graph.programs.size()) << schedule;
      for (std::size_t s = 0; s < counted.size(); ++s)
        EXPECT_EQ(counted[s], static_cast<std::int64_t>(w.graph.programs[s].tasks.size())) << schedule << " stage " << s;
    }
}

TEST(DataExchanges, LocalStepsReduceNothingAndAveragesFollowTheStep) {
  // Pipeline 2 x data 2, one parameter per layer: a gradient iteration all-reduces each of stage 0's 4 layers once;
  // a local one nothing; a model iteration one all-reduce of the stage's 4 parameters (x 2 with the momentum
  // buffers, 4 bytes each) that waits for the step, and which the next iteration's first forward waits for.
  // In flight (Overlap Local-SGD), the next model iteration's step waits for it instead, and the last one ends
  // the run.
  const models::Model model = blocks_with_parameters(8);
  using X = DataExchange;
  Layout l = pipeline(2, "1f1b");
  l.data = 2;
  WorkloadInput in;
  in.model = &model;
  in.times.assign(model.layers.size(), models::LayerTime{1e-3, 2e-3, 1e-4});
  in.recomputed.assign(model.layers.size(), false);
  in.micro_batches = 2;
  in.iterations = 4;
  in.exchanges = {X::gradients, X::none, X::models, X::models};
  in.averaged_copies = 2;
  for (const bool in_flight : {false, true}) {
    in.average_in_flight = in_flight;
    const Workload w = build_workload(l, in);
    const auto& tasks = w.graph.programs[0].tasks;
    const std::vector<int>& end = w.stages[0].iteration_end;
    std::vector<std::vector<int>> data(4);  // per iteration: its data-parallel collectives
    int it = 0;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      if (tasks[i].group == "data") data[static_cast<std::size_t>(it)].push_back(static_cast<int>(i));
      if (static_cast<int>(i) == end[static_cast<std::size_t>(it)]) ++it;
    }
    ASSERT_EQ(data[0].size(), 4u);
    for (int t : data[0]) EXPECT_EQ(tasks[static_cast<std::size_t>(t)].bytes, 4);
    EXPECT_TRUE(data[1].empty());
    // The averages, wherever they fall: one per model iteration, after its step.
    std::vector<int> averages, updates;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      if (tasks[i].name.starts_with("average")) averages.push_back(static_cast<int>(i));
      if (tasks[i].category == "update") updates.push_back(static_cast<int>(i));
    }
    ASSERT_EQ(averages.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k) {
      const taskgraph::Task& a = tasks[static_cast<std::size_t>(averages[k])];
      EXPECT_EQ(a.op, Op::allreduce);
      EXPECT_EQ(a.bytes, 2 * 4 * 4);
      ASSERT_EQ(a.deps.size(), 1u);
      EXPECT_EQ(a.deps[0].task, updates[2 + k]);
    }
    auto waits_for = [&](int task, int on) {
      for (const taskgraph::Dep& d : tasks[static_cast<std::size_t>(task)].deps)
        if (d.task == on) return true;
      return false;
    };
    int first_forward_of_3 = end[2] + 1;
    while (tasks[static_cast<std::size_t>(first_forward_of_3)].category != "forward") ++first_forward_of_3;
    EXPECT_EQ(waits_for(first_forward_of_3, averages[0]), !in_flight);
    EXPECT_EQ(waits_for(updates[3], averages[0]), in_flight);
    EXPECT_EQ(end[2], in_flight ? updates[2] : averages[0]);
    EXPECT_EQ(end[3], averages[1]);
  }
}

}  // namespace
}  // namespace dtsim::parallel
