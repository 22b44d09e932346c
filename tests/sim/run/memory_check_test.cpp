// The memory model applied to whole scenarios: the example refused with its way out, the breakdown of
// each architecture and scheduler against hand-computed bytes, recomputation's and the optimizer's cost in
// time, and the model FLOPs utilisation.
#include "sim/run/memory_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::run {
namespace {

/// The default scenario with `overrides`, at the analytic level unless they name another.
scenario::Scenario with(std::vector<std::string> overrides) {
  if (std::none_of(overrides.begin(), overrides.end(),
                   [](const std::string& o) { return o.starts_with("strategy.fidelity"); }))
    overrides.push_back("strategy.fidelity=analytic");
  return scenario::load_default_scenario(overrides);
}

double item(const memory::MemoryBreakdown& b, const std::string& name) {
  for (const memory::MemoryItem& i : b.items)
    if (i.name == name) return i.bytes;
  ADD_FAILURE() << "no item " << name;
  return -1;
}

std::string refusal(const scenario::Scenario& s) {
  try {
    run_simulation(s);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "not refused";
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in:\n" << text;
}

TEST(MemoryCheck, Gpt2MediumAtBatch512InFp32OnA16GBV100IsRefusedWithTheWaysOut) {
  const std::string e = refusal(with({"model.name=gpt2_medium", "batch_size=512"}));
  expect_contains(e,
                  "built-in default (scenarios/default.toml): gpt2_medium at batch 512 needs 2.47 TiB per GPU "
                  "(every worker), more than the v100's 16.00 GiB; make it fit with one of:\n"
                  "    batch_size = 2 or less\n"
                  "    memory.activation_recomputation = \"full\" (159.47 GiB, still too much)\n"
                  "    gpu.precision = \"fp16\", mixed precision (1.34 TiB, still too much)\n"
                  "    a GPU with at least 2.47 TiB");
  expect_contains(e, "    memory.check = \"warn\" to run it anyway\n  the breakdown:\n");
  expect_contains(e, "\n    activations               2.46 TiB  batch 512, recomputation none\n");
}

TEST(MemoryCheck, WarnRunsAndReportsThatItDoesNotFit) {
  const RunResult r =
      run_simulation(with({"model.name=gpt2_medium", "batch_size=512", "memory.check=warn", "workers=4"}));
  EXPECT_FALSE(r.memory.fits());
  EXPECT_GT(r.mean_iteration_s, 0);
}

TEST(MemoryCheck, ModelsThatNeedShardingSaySo) {
  const std::string e = refusal(with(
      {"model.name=llama2_70b", "platform=dgx_h100", "batch_size=1", "gpu.precision=bf16", "memory.optimizer=adam"}));
  // 68,976,648,192 parameters x 18 bytes (mixed-precision Adam, fp32 gradients under DDP with AMP).
  expect_contains(e,
                  "\n  the model states alone (1.13 TiB) exceed the GPU: under pure data parallelism every GPU "
                  "holds a whole replica, so this model needs sharding ([parallel] sharding = \"zero3\") or tensor "
                  "and pipeline parallelism ([parallel] tensor, pipeline)");
}

TEST(MemoryCheck, ResNet50StatesAndWorkspaceAreHandComputed) {
  const scenario::Scenario s = with({});
  const memory::MemoryBreakdown b = check_memory(s);
  constexpr double parameters = 25'557'032;
  EXPECT_EQ(item(b, "weights"), 4 * parameters);
  EXPECT_EQ(item(b, "gradients"), 4 * parameters);
  EXPECT_EQ(item(b, "optimizer state"), 4 * parameters);  // momentum
  EXPECT_EQ(item(b, "communication buffers"), 0);         // wfbp: in place
  EXPECT_EQ(item(b, "workspace"), 2 * 4096 * 1024 + 8 * 16 * 1024);
  EXPECT_TRUE(b.fits());
  EXPECT_EQ(b.capacity_bytes, 16.0 * (1 << 30));
}

TEST(MemoryCheck, GpuMemoryIsTheCapacityAndNumericsModeKeepsItsOwnOptimizersState) {
  EXPECT_EQ(check_memory(with({"gpu.memory=32GiB"})).capacity_bytes, 32.0 * (1 << 30));
  const scenario::Scenario s = scenario::load_scenario(DTSIM_SOURCE_DIR "/scenarios/time_to_accuracy.toml",
                                                       {"numerics.optimizer=adam"});
  EXPECT_EQ(s.memory.optimizer, "adam");
  EXPECT_EQ(item(check_memory(s), "optimizer state"), 8.0 * static_cast<double>(s.model.parameter_count()));
}

TEST(MemoryCheck, MixedPrecisionAdamKeepsSixteenBytesPerParameterWithFp16Gradients) {
  const memory::MemoryBreakdown b =
      check_memory(with({"gpu.precision=fp16", "memory.optimizer=adamw", "strategy.gradient_dtype=fp16"}));
  EXPECT_EQ(item(b, "weights") + item(b, "gradients") + item(b, "optimizer state"), 16 * 25'557'032.0);
}

TEST(MemoryCheck, SchedulersBuffers) {
  constexpr double gradient_bytes = 4 * 25'557'032.0;
  EXPECT_EQ(item(check_memory(with({"strategy.scheduler=ddp"})), "communication buffers"), gradient_bytes);
  EXPECT_EQ(item(check_memory(with({"strategy.scheduler=none"})), "communication buffers"), gradient_bytes);
  EXPECT_EQ(item(check_memory(with({"strategy.scheduler=fusion"})), "communication buffers"), 128.0 * (1 << 20));
  EXPECT_EQ(
      item(check_memory(with({"strategy.scheduler=priority", "strategy.fidelity=message"})), "communication buffers"),
      0);
  // MG-WFBP: exactly the buckets it merged.
  const scenario::Scenario s = with({"strategy.scheduler=mg_wfbp"});
  double merged = 0;
  for (const scheduling::Bucket& bucket : make_iteration_plan(s).buckets)
    if (bucket.tensors.size() > 1) merged += static_cast<double>(bucket.bytes);
  EXPECT_GT(merged, 0);
  EXPECT_EQ(item(check_memory(s), "communication buffers"), merged);
}

TEST(MemoryCheck, ParameterServerWorkersHoldThePulledAggregateAndColocatedServersTheirSums) {
  constexpr double gradient_bytes = 4 * 25'557'032.0;
  const memory::MemoryBreakdown dedicated =
      check_memory(with({"workers=8", "strategy.architecture=ps", "strategy.fidelity=flow", "strategy.ps.servers=2"}));
  EXPECT_EQ(item(dedicated, "communication buffers"), gradient_bytes);
  EXPECT_EQ(dedicated.where, "every worker");
  const memory::MemoryBreakdown colocated =
      check_memory(with({"workers=8", "strategy.architecture=ps", "strategy.fidelity=flow", "strategy.ps.servers=2",
                         "strategy.ps.placement=colocated"}));
  // Two servers split every bucket evenly: the fuller holds at least half of the gradient.
  EXPECT_GE(item(colocated, "communication buffers"), 1.5 * gradient_bytes);
  EXPECT_LT(item(colocated, "communication buffers"), 1.5 * gradient_bytes + 161 * 4);
  EXPECT_EQ(colocated.where.rfind("worker ", 0), 0u);
}

TEST(MemoryCheck, GossipReceivesEveryNeighboursModel) {
  constexpr double gradient_bytes = 4 * 25'557'032.0;
  EXPECT_EQ(item(check_memory(with({"workers=8", "strategy.architecture=gossip", "strategy.fidelity=flow"})),
                 "communication buffers"),
            2 * gradient_bytes);  // ring: two neighbours
  EXPECT_EQ(item(check_memory(with(
                     {"workers=8", "strategy.architecture=gossip", "strategy.fidelity=flow", "strategy.sync=asp"})),
                 "communication buffers"),
            gradient_bytes);  // SGP: one peer
}

TEST(MemoryCheck, CompressionKeepsTheErrorFeedbackResidual) {
  const memory::MemoryBreakdown b = check_memory(
      with({"compression.compressor=fp16", "compression.error_feedback=residual", "compression.kernel_time=20GBps"}));
  // fp16 all-reduces half the bytes: the largest bucket's payload sent and received, plus one fp32 residual.
  const scheduling::IterationPlan plan =
      make_iteration_plan(with({"compression.compressor=fp16", "compression.kernel_time=20GBps"}));
  double largest = 0;
  for (const scheduling::BucketWork& w : plan.work)
    largest = std::max(largest, 2.0 * static_cast<double>(w.exchanges[0].bytes));
  EXPECT_EQ(item(b, "compression buffers"), largest + 4 * 25'557'032.0);
}

TEST(MemoryCheck, RecomputationRunsTheForwardAgainInBackward) {
  const scenario::Scenario none = with({"model.name=gpt2_small", "batch_size=4", "gpu.precision=fp16"});
  const scenario::Scenario full =
      with({"model.name=gpt2_small", "batch_size=4", "gpu.precision=fp16", "memory.activation_recomputation=full"});
  const scenario::Scenario selective = with(
      {"model.name=gpt2_small", "batch_size=4", "gpu.precision=fp16", "memory.activation_recomputation=selective"});
  const auto a = make_iteration_plan(none), b = make_iteration_plan(full), c = make_iteration_plan(selective);
  for (std::size_t l = 0; l < a.layers.size(); ++l) {
    const models::Layer& layer = none.model.layers[l];
    EXPECT_EQ(b.layers[l].backward_s, a.layers[l].backward_s + (layer.block >= 0 ? a.layers[l].forward_s : 0));
    EXPECT_EQ(c.layers[l].backward_s, a.layers[l].backward_s + (layer.attention_core ? a.layers[l].forward_s : 0));
    EXPECT_EQ(b.layers[l].forward_s, a.layers[l].forward_s);
  }
  EXPECT_LT(item(check_memory(full), "activations"), item(check_memory(selective), "activations"));
  EXPECT_LT(item(check_memory(selective), "activations"), item(check_memory(none), "activations"));
}

TEST(MemoryCheck, TheOptimizersStepMovesItsBytes) {
  // Kernels replayed from a CUDA graph (no CPU dispatch): a layer's step is its parameters x the optimizer's bytes
  // (sgd 12, momentum 20, adam 28; 6 more for the master-weight copy in fp16/bf16) at memory_efficiency, plus its
  // share by tensors of the multi-tensor launches' gaps (at most 64, 48 and 36 tensors per launch for 2, 3 and 4
  // lists, and 320 x 65536 elements).
  const scenario::Scenario s = with({"gpu.launch=cuda_graphs"});
  const double tensors = static_cast<double>(s.model.tensor_count());
  const double elements = static_cast<double>(s.model.parameter_count());
  const bool mixed = s.precision == models::Precision::fp16 || s.precision == models::Precision::bf16;
  auto launches = [&](double per_launch) {
    return std::max(std::ceil(tensors / per_launch), std::ceil(elements / (320.0 * 65536)));
  };
  const double rate = s.gpu.memory_Bps * s.gpu.memory_efficiency;
  const double gap = models::launch_costs(models::LaunchMode::cuda_graphs).gap_s;
  struct Case {
    const char* name;
    double bytes;
    double per_launch;
  };
  for (const Case& c : {Case{"sgd", 12, 64}, Case{"momentum", 20, 48}, Case{"adam", 28, 36}}) {
    const auto plan = make_iteration_plan(with({"gpu.launch=cuda_graphs", std::string("memory.optimizer=") + c.name}));
    const double kernels = launches(c.per_launch) + (mixed ? launches(64) : 0);
    for (std::size_t l = 0; l < plan.layers.size(); ++l) {
      const models::Layer& layer = s.model.layers[l];
      const double expected = static_cast<double>(layer.parameter_count()) * (c.bytes + (mixed ? 6 : 0)) / rate +
                              kernels * static_cast<double>(layer.tensors.size()) / tensors * gap;
      EXPECT_NEAR(plan.layers[l].update_s, expected, 1e-12 * expected + 1e-18) << c.name << " " << layer.name;
    }
  }
}

TEST(Mfu, IsModelFlopsPerSecondOverPeakOfTheWorkers) {
  for (const char* workers : {"workers=1", "workers=16"}) {
    const scenario::Scenario s = with({workers, "model.name=gpt3_125m", "batch_size=2", "gpu.precision=fp16"});
    const RunResult r = run_simulation(s);
    const double flops = 3 * s.model.forward_flops();
    EXPECT_EQ(r.model_flops_per_sample, flops);
    EXPECT_EQ(r.peak_flops_per_gpu, 125e12);
    EXPECT_DOUBLE_EQ(r.mfu, flops * s.workers * 2 / r.mean_iteration_s / (s.workers * 125e12)) << workers;
  }
}

}  // namespace
}  // namespace dtsim::run
