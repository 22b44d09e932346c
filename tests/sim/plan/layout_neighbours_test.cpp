// The neighbouring layouts `dtsim explain` simulates for a layout run: one step along each knob, the workers and
// the global batch kept, the run's gradient dtype kept when the framework's default would change it, and each
// checked with the loader's refusals and the memory check that `dtsim run` applies.
#include "sim/plan/layout_neighbours.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"
#include "sim/run/memory_check.hpp"
#include "sim/scenario/flat_settings.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::plan {
namespace {

namespace fs = std::filesystem;
using Settings = std::vector<std::pair<std::string, std::string>>;

const std::string kScenarios = std::string(DTSIM_SOURCE_DIR) + "/scenarios/";

/// The what-if that sets exactly `settings` (fails the test when there is none).
const LayoutWhatIf& find(const std::vector<LayoutWhatIf>& what_ifs, const Settings& settings) {
  const auto it = std::find_if(what_ifs.begin(), what_ifs.end(), [&](const LayoutWhatIf& w) { return w.settings == settings; });
  static const LayoutWhatIf none{};
  EXPECT_NE(it, what_ifs.end()) << settings.front().first << "=" << settings.front().second;
  return it == what_ifs.end() ? none : *it;
}

/// The 1,024-GPU Llama 2 70B layout (tensor 8 x pipeline 4 x data 32, 32 samples a replica, micro-batches of 1,
/// no recomputation, FlashAttention, fp32 gradients under bf16): every knob's steps, in knob order.
TEST(LayoutNeighbours, StepsEachKnobKeepingTheWorkersAndTheGlobalBatch) {
  const scenario::Scenario s = scenario::load_scenario(kScenarios + "llama2_70b_1024_h100.toml");
  const std::vector<LayoutWhatIf> w = layout_what_ifs(s);
  const std::vector<Settings> expected = {
      {{"parallel.tensor", "16"}},  // beyond the node of 8: not run
      {{"parallel.tensor", "4"}, {"parallel.data", "64"}, {"batch_size", "16"}},
      {{"parallel.pipeline", "8"}, {"parallel.data", "16"}, {"batch_size", "64"}},
      {{"parallel.pipeline", "2"}, {"parallel.data", "64"}, {"batch_size", "16"}},
      {{"parallel.micro_batch", "2"}},  // micro-batches of 1 have no half: no step down
      {{"memory.activation_recomputation", "selective"}},
      {{"memory.activation_recomputation", "full"}},
      {{"parallel.sharding", "zero1"}},  // none has no step down
      {{"strategy.gradient_dtype", "bf16"}},
      {{"strategy.scheduler", "ddp"}},
      {{"strategy.scheduler", "mg_wfbp"}},
      {{"compression.compressor", "topk"}, {"compression.error_feedback", "residual"}},
  };
  ASSERT_EQ(w.size(), expected.size());
  for (std::size_t i = 0; i < w.size(); ++i) EXPECT_EQ(w[i].settings, expected[i]) << i;
  EXPECT_EQ(w[0].not_run, "tensor 16 would span nodes of 8 GPUs; Megatron-LM keeps a tensor group, whose all-reduces "
                          "run at every layer, inside a node (Narayanan et al. 2021, section 3)");
  for (std::size_t i = 1; i < w.size(); ++i) EXPECT_EQ(w[i].not_run, "") << i;
  EXPECT_EQ(w[1].why, "tensor groups half as wide: tensor 4 x pipeline 4 x data 64, 16 samples a replica");
  EXPECT_EQ(w[2].why, "twice the pipeline stages: tensor 8 x pipeline 8 x data 16, 64 samples a replica");
  EXPECT_EQ(w[4].why, "micro-batches of 2 samples, 16 a replica instead of 32");
}

/// FSDP (tensor 1, zero3) keeps its gradients in bf16 where Megatron-LM's tensor parallelism would keep fp32: the
/// tensor step pins the run's dtype, and so is one change. Its sharding steps are zero2 and hybrid, and none of
/// its neighbours change the dtype's default otherwise.
TEST(LayoutNeighbours, KeepsTheRunsGradientDtypeWhereTheLayoutsDefaultDiffers) {
  const scenario::Scenario s = scenario::load_scenario(
      kScenarios + "llama2_7b_tp8_vs_fsdp.toml", {"parallel.tensor=1", "parallel.sharding=\"zero3\"", "batch_size=8"});
  ASSERT_EQ(s.gradient_dtype, models::Precision::bf16);
  const std::vector<LayoutWhatIf> w = layout_what_ifs(s);
  find(w, {{"parallel.tensor", "2"}, {"parallel.data", "32"}, {"batch_size", "16"}, {"strategy.gradient_dtype", "bf16"}});
  find(w, {{"parallel.sharding", "zero2"}});
  find(w, {{"parallel.sharding", "hybrid"}});
  find(w, {{"parallel.micro_batch", "2"}});
  find(w, {{"strategy.gradient_dtype", "fp32"}});
  EXPECT_EQ(std::count_if(w.begin(), w.end(), [](const LayoutWhatIf& x) { return x.settings[0].first == "parallel.tensor"; }),
            1);  // tensor 1 has no half
}

/// A change that --set cannot make (it would leave a key that no longer applies) is not run, with the reason.
TEST(LayoutNeighbours, ACaseThatSetCannotMakeIsNotRun) {
  const scenario::Scenario s = scenario::load_scenario(kScenarios + "llama2_7b_tp8_vs_fsdp.toml",
                                                       {"parallel.tensor=2", "parallel.sequence_parallel=true"});
  const std::vector<LayoutWhatIf> what_ifs = layout_what_ifs(s);
  const LayoutWhatIf& w = find(what_ifs, {{"parallel.tensor", "1"}, {"parallel.data", "64"}, {"batch_size", "32"}});
  EXPECT_EQ(w.not_run, "parallel.sequence_parallel = true needs tensor > 1; without it in the scenario, this can be run");
}

/// Unequal stages list the layers of each stage: another pipeline depth would need another list.
TEST(LayoutNeighbours, ListedStagesKeepThePipelineDepth) {
  const scenario::Scenario s = scenario::load_scenario(kScenarios + "llama3_405b_unequal_stages.toml");
  int pipelines = 0;
  for (const LayoutWhatIf& w : layout_what_ifs(s))
    for (const auto& [key, value] : w.settings)
      if (key == "parallel.pipeline") {
        EXPECT_EQ(w.not_run, "parallel.layers_per_stage lists the layers of 16 stages; without it in the scenario, "
                             "this can be run") << value;
        ++pipelines;
      }
  EXPECT_EQ(pipelines, 2);
}

/// The base the neighbours are applied to leaves out the keys a neighbour could make inapplicable, at their
/// defaults: the same scenario (the same digest, so the same points), on which tensor or pipeline 1 loads.
TEST(LayoutNeighbours, TheBaseLeavesOutInapplicableDefaultsAndIsTheSameScenario) {
  const scenario::Scenario s = scenario::load_scenario(kScenarios + "llama2_70b_1024_h100.toml");
  EXPECT_EQ(inapplicable_defaults(s),
            (std::vector<std::string>{"parallel.sequence_parallel", "parallel.schedule", "parallel.virtual_stages"}));
  const fs::path base = fs::temp_directory_path() / ("dtsim_layout_base_" + std::to_string(::getpid()) + ".toml");
  {
    std::ofstream out(base);
    out << scenario::without_settings(s.provenance.resolved_toml, inapplicable_defaults(s), "resolved");
  }
  const std::string resolved = (fs::temp_directory_path() / ("dtsim_layout_resolved_" + std::to_string(::getpid()) + ".toml")).string();
  {
    std::ofstream out(resolved);
    out << s.provenance.resolved_toml;
  }
  EXPECT_EQ(scenario::load_scenario(base.string()).provenance.digest, scenario::load_scenario(resolved).provenance.digest);
  EXPECT_NO_THROW(scenario::load_scenario(base.string(), {"parallel.pipeline=1", "parallel.data=128", "parallel.tensor=8"}));
  EXPECT_THROW(scenario::load_scenario(resolved, {"parallel.pipeline=1", "parallel.data=128"}), core::InputError);
  fs::remove(base);
  fs::remove(resolved);
}

/// Each neighbour gets the checks `dtsim run` applies before simulating: the loader's refusal (here: selective
/// recomputation with FlashAttention) in its words, and the memory check's, as what the fullest GPU needs.
TEST(LayoutNeighbours, AreCheckedAsDtsimRunChecksThem) {
  const std::string file = kScenarios + "llama2_70b_1024_h100.toml";
  EXPECT_EQ(check_what_if(file, {}).refused, "");
  EXPECT_EQ(check_what_if(file, {}).does_not_fit, "");
  const WhatIfCheck selective = check_what_if(file, {{"memory.activation_recomputation", "selective"}});
  EXPECT_NE(selective.refused.find("with fused attention (model.attention = \"flash\")"), std::string::npos)
      << selective.refused;
  const Settings two_stages{{"parallel.pipeline", "2"}, {"parallel.data", "64"}, {"batch_size", "16"}};
  const WhatIfCheck unfit = check_what_if(file, two_stages);
  EXPECT_EQ(unfit.refused, "");
  ASSERT_EQ(unfit.does_not_fit.rfind("does not fit: needs ", 0), 0u) << unfit.does_not_fit;
  EXPECT_NE(unfit.does_not_fit.find(" of the h100's 80.00 GiB per GPU (pipeline stage 0)"), std::string::npos);
  // The same need as the memory check's refusal of the same scenario.
  const std::string needs = unfit.does_not_fit.substr(20, unfit.does_not_fit.find(" of the") - 20);
  try {
    run::check_memory(scenario::load_scenario(file, {"parallel.pipeline=2", "parallel.data=64", "batch_size=16"}));
    ADD_FAILURE() << "the memory check let it run";
  } catch (const core::InputError& e) {
    EXPECT_NE(e.problem().find("needs " + needs + " per GPU"), std::string::npos) << e.problem();
  }
  // ZeRO-3 with pipelining: the loader's refusal.
  EXPECT_NE(check_what_if(file, {{"parallel.sharding", "zero3"}}).refused.find("do not combine with pipeline parallelism"),
            std::string::npos);
}

}  // namespace
}  // namespace dtsim::plan
