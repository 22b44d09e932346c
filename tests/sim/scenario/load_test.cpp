#include "sim/scenario/load.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "compressors/device/device.hpp"
#include "compressors/registry.hpp"
#include "models/zoo.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scenario/keys.hpp"

namespace dtsim::scenario {
namespace {

namespace fs = std::filesystem;
const fs::path kHere = fs::path(DTSIM_SOURCE_DIR) / "tests/sim/scenario";

/// Runs `body` with the working directory set to `dir`, so messages carry short relative paths.
template <class Body>
void in_directory(const fs::path& dir, Body body) {
  const fs::path previous = fs::current_path();
  fs::current_path(dir);
  try {
    body();
  } catch (...) {
    fs::current_path(previous);
    throw;
  }
  fs::current_path(previous);
}

TEST(BadScenarios, EachFileFailsWithItsExactMessage) {
  int checked = 0;
  std::vector<std::string> decoders;
  for (const std::string& name : models::sequence_model_names())
    if (models::zoo_transformer(name)) decoders.push_back(name);
  in_directory(kHere / "bad", [&] {
    for (const auto& entry : fs::directory_iterator(".")) {
      if (entry.path().extension() != ".toml") continue;  // data files the scenarios refer to
      const std::string name = entry.path().filename().string();
      std::ifstream in(entry.path());
      std::string line, expected;
      while (std::getline(in, line))
        if (line.rfind("# expect: ", 0) == 0) expected = line.substr(10);
      ASSERT_FALSE(expected.empty()) << name << " has no '# expect: ' line";
      // A list that grows with every registered variant is written as its placeholder.
      const std::pair<std::string, std::string> lists[] = {
          {"{known_compressors}", compressors::known_compressors()},
          {"{sparse_compressors}", core::join_names(compressors::sparse_compressors())},
          {"{strategy_keys}", core::join_names(keys_of("strategy"))},
          {"{models}", core::join_names(models::model_names())},
          {"{sequence_models}", core::join_names(models::sequence_model_names())},
          {"{decoders}", core::join_names(decoders)}};
      for (const auto& [placeholder, names] : lists)
        if (const std::size_t at = expected.find(placeholder); at != std::string::npos)
          expected.replace(at, placeholder.size(), names);
      try {
        load_scenario(name);
        ADD_FAILURE() << name << " was accepted";
      } catch (const core::InputError& e) {
        EXPECT_EQ(e.what(), expected) << name;
      }
      ++checked;
    }
  });
  EXPECT_GE(checked, 16);
}

TEST(GoodScenarios, DefaultsAndPlatformFileRelativeToTheScenario) {
  const Scenario s = load_scenario((kHere / "good/minimal.toml").string());
  EXPECT_EQ(s.platform.name, "test-star");
  EXPECT_EQ(s.platform.hosts(), 8);
  EXPECT_DOUBLE_EQ(s.platform.intra.bandwidth_Bps, 1.25e9);
  EXPECT_DOUBLE_EQ(s.platform.intra.latency_s, 5e-6);
  EXPECT_EQ(s.model.parameter_count(), 11689512);
  EXPECT_EQ(s.workers, 4);
  EXPECT_EQ(s.batch_size, 16);
  EXPECT_EQ(s.iterations, 3);
  EXPECT_EQ(s.scheduler, "wfbp");
  EXPECT_EQ(s.collective, "ring");
  EXPECT_EQ(s.fidelity, Fidelity::flow);
  EXPECT_EQ(s.gpu.name, "v100");
  EXPECT_EQ(s.output.dir, "dtsim-out");
}

// [model.shape]: a zoo decoder written out as a new shape builds the zoo's layer table; keys given to a zoo name
// replace its entry's fields and keep the rest.
TEST(GoodScenarios, ShapesAreTheZoosForm) {
  const Scenario fresh = load_scenario((kHere / "good/shape_llama3_8b.toml").string());
  const models::Model zoo = models::make_model("llama3_8b");
  ASSERT_EQ(fresh.model.layers.size(), zoo.layers.size());
  for (std::size_t i = 0; i < zoo.layers.size(); ++i) {
    EXPECT_EQ(fresh.model.layers[i].name, zoo.layers[i].name);
    EXPECT_EQ(fresh.model.layers[i].parameter_count(), zoo.layers[i].parameter_count());
    EXPECT_EQ(fresh.model.layers[i].forward_flops, zoo.layers[i].forward_flops);
  }
  EXPECT_EQ(fresh.model.name, "my_llama");
  EXPECT_EQ(fresh.model.source.rfind("transformer shape in ", 0), 0u) << fresh.model.source;
  // Half of Llama 3 8B's layers: 218,112,000 parameters each (q and o 4096^2, k and v 4096 x 1024, three MLP
  // matrices 4096 x 14336, two norms) fewer.
  const Scenario half = load_scenario((kHere / "good/shape_changed.toml").string());
  EXPECT_EQ(half.model.parameter_count(), 8'030'261'248 - 16 * std::int64_t{218'112'000});
  EXPECT_EQ(half.model.tokens, 8192);
}

TEST(GoodScenarios, OverridesReachEveryKindOfKey) {
  const Scenario s = load_scenario((kHere / "good/minimal.toml").string(),
                                   {"workers=8", "strategy.scheduler=none", "strategy.fidelity=analytic",
                                    "platform.link.bandwidth=100Gbps", "gpu.precision=fp16", "output.timeline=false",
                                    "model.name=vgg16"});
  EXPECT_EQ(s.workers, 8);
  EXPECT_EQ(s.scheduler, "none");
  EXPECT_EQ(s.fidelity, Fidelity::analytic);
  EXPECT_DOUBLE_EQ(s.platform.intra.bandwidth_Bps, 12.5e9);
  EXPECT_EQ(s.precision, models::Precision::fp16);
  EXPECT_FALSE(s.output.timeline);
  EXPECT_EQ(s.model.name, "vgg16");
}

TEST(GoodScenarios, PlatformCallLatencyReachesTheCollectivesCosts) {
  // `call_latency` (what dtsim calibrate fits per call, kernel launch and NCCL's fixed work) is 0 unless given.
  const Scenario plain = load_default_scenario({"platform=dgx1_v100", "workers=8"});
  EXPECT_EQ(platform::link_costs(plain.platform).call_s, 0.0);
  const Scenario s = load_default_scenario({"platform=dgx1_v100", "workers=8", "platform.call_latency=16.5us"});
  EXPECT_DOUBLE_EQ(s.platform.call_latency_s, 16.5e-6);
  EXPECT_DOUBLE_EQ(platform::link_costs(s.platform).call_s, 16.5e-6);
  const Scenario star = load_default_scenario({"platform.call_latency=3us"});
  EXPECT_DOUBLE_EQ(platform::link_costs(star.platform).call_s, 3e-6);
}

TEST(GoodScenarios, OverlapLocalSgdLoadsAtEveryLevel) {
  // Its exchange stays in flight into the next period: the analytic level carries it over between iterations
  // (tests/sim/run/sync_run_test.cpp OverlapLocalSgd.* runs it); only the priority scheduler refuses it
  // (bad/overlap_priority.toml).
  const std::string path = (kHere / "good/minimal.toml").string();
  for (const char* level : {"analytic", "flow", "message"}) {
    const Scenario s = load_scenario(path, {"strategy.sync=overlap_local_sgd", std::string("strategy.fidelity=") + level});
    EXPECT_EQ(fidelity_name(s.fidelity), std::string(level));
    EXPECT_EQ(s.sync.exchanges_in_flight(), 1);
  }
}

TEST(GoodScenarios, LocalSgdTimingRunsCoverWholePeriods) {
  // The mean iteration of a timing run that stops inside a period leaves the model average out (or counts it
  // too often): the default iterations round up to whole periods, a given count that does not is refused.
  const std::string path = (kHere / "good/minimal.toml").string();
  const Scenario local = load_scenario(path, {"strategy.sync=local_sgd", "strategy.local_sgd.period=4"});
  EXPECT_EQ(local.iterations, 4);
  EXPECT_NE(local.provenance.resolved_toml.find("iterations = 4"), std::string::npos);
  EXPECT_EQ(load_scenario(path, {"strategy.sync=local_sgd", "strategy.local_sgd.period=2"}).iterations, 4);
  EXPECT_EQ(load_scenario(path, {"strategy.sync=local_sgd", "iterations=8"}).iterations, 8);
  const Scenario post = load_scenario(
      path, {"strategy.sync=post_local_sgd", "strategy.post_local_sgd.switch_after=5", "strategy.post_local_sgd.period=4"});
  EXPECT_EQ(post.iterations, 9);
  EXPECT_EQ(load_scenario(path, {"strategy.sync=bsp"}).iterations, 3);
  try {
    load_scenario(path, {"strategy.sync=local_sgd", "iterations=6"});
    ADD_FAILURE() << "iterations = 6 with period 4 accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("must cover whole periods"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("iterations = 8"), std::string::npos) << e.what();
  }
}

TEST(GoodScenarios, Fp8TakesTransformerEnginesRecipeWhereTheGpuHasFp8) {
  auto message = [](const std::vector<std::string>& sets) {
    try {
      load_default_scenario(sets);
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const Scenario hopper = load_default_scenario({"platform=dgx_h100", "workers=8", "gpu.precision=fp8"});
  EXPECT_EQ(hopper.precision, models::Precision::fp8);
  EXPECT_EQ(hopper.fp8_recipe, models::Fp8Recipe::delayed);  // TE's default before Blackwell
  EXPECT_EQ(hopper.gradient_dtype, models::Precision::fp32);  // as bf16 under plain data parallelism (AMP)
  const Scenario blackwell = load_default_scenario({"platform=dgx_b200", "workers=8", "gpu.precision=fp8"});
  EXPECT_EQ(blackwell.fp8_recipe, models::Fp8Recipe::mxfp8);  // TE's default on Blackwell
  EXPECT_EQ(load_default_scenario({"platform=dgx_h100", "workers=8", "gpu.precision=fp8", "gpu.fp8_recipe=current"})
                .fp8_recipe,
            models::Fp8Recipe::current);
  EXPECT_NE(message({"platform=dgx_a100", "workers=8", "gpu.precision=fp8"})
                .find("GPU 'a100' does not support precision fp8; supported: fp32, tf32, fp16, bf16"),
            std::string::npos);
  EXPECT_NE(message({"platform=dgx_h100", "workers=8", "gpu.precision=fp8", "gpu.fp8_recipe=mxfp8"})
                .find("MXFP8's block scales need fifth-generation tensor cores"),
            std::string::npos);
  EXPECT_NE(message({"platform=dgx_h100", "workers=8", "gpu.precision=bf16", "gpu.fp8_recipe=delayed"})
                .find("gpu.fp8_recipe with gpu.precision = \"bf16\"; set gpu.precision = \"fp8\", or leave "
                      "fp8_recipe out"),
            std::string::npos);
}

TEST(GoodScenarios, OverrideErrorsNameTheArgument) {
  const std::string path = (kHere / "good/minimal.toml").string();
  auto message = [&](const std::string& set) {
    try {
      load_scenario(path, {set});
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("workers"), "--set workers: expected key=value; write --set section.key=value, e.g. --set "
                                "strategy.scheduler=none");
  EXPECT_EQ(message("workers=100"),
            "--set workers=100: workers = 100 exceeds the 8 GPUs of platform 'test-star'; at most 8 on this platform, "
            "or a larger one: --set platform.hosts=100");
  EXPECT_EQ(message("strategy.fidelity=exact"),
            "--set strategy.fidelity=exact: unknown strategy.fidelity 'exact'; known: analytic, flow, message");
  EXPECT_EQ(message("workers.count=3"),
            "--set workers.count=3: 'workers' is not a table in the scenario; only keys inside tables can be set "
            "with a dotted key");
  EXPECT_EQ(message("platform.link.bandwidth=10"),
            "--set platform.link.bandwidth=10: 'platform.link.bandwidth' = 10 has no unit; write a string with its "
            "unit, e.g. \"10Gbps\"");
}

TEST(GoodScenarios, CompressionDeviceCudaRunsOnlyWhereAGpuIs) {
  const std::string path = (kHere / "good/minimal.toml").string();
  auto message = [&](const std::string& compressor, const std::string& device) {
    try {
      const Scenario s = load_scenario(path, {"compression.compressor=" + compressor, "compression.device=" + device});
      return "accepted: " + s.compression.device;
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_EQ(message("topk", "cpu"), "accepted: cpu");
  EXPECT_EQ(message("topk", "tpu"), "--set compression.device=tpu: unknown compression.device 'tpu'; did you mean 'cpu'? known: cpu, cuda");
  // Every compressor has device kernels (compressors/device/kernel_list.hpp): only the device decides.
  EXPECT_EQ(message("powersgd", "cuda"), message("topk", "cuda"));
  const std::string why = compressors::device::cuda_unavailable();
  if (why.empty()) {
    EXPECT_EQ(message("topk", "cuda"), "accepted: cuda");
  } else {
    EXPECT_EQ(message("topk", "cuda"), "--set compression.device=cuda: device \"cuda\" is not available: " + why +
                                           "; device = \"cpu\" (the default)");
  }
  // The device kernels run residual error feedback with its defaults: options for it are refused, not ignored.
  try {
    load_scenario(path, {"compression.compressor=topk", "compression.device=cuda", "compression.error_feedback=residual",
                         "compression.error_feedback_options.gamma=0.5"});
    ADD_FAILURE() << "error_feedback_options with device = cuda accepted";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("[compression.error_feedback_options] with device = \"cuda\""),
              std::string::npos)
        << e.what();
  }
}

TEST(GoodScenarios, KeysAndTablesThatSetAddsAreLocatedAtTheirSet) {
  auto message = [](const std::vector<std::string>& sets) {
    try {
      load_scenario((kHere / "good/minimal.toml").string(), sets);
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message({"strategy.scheduler=ddp", "strategy.ddp.bucket_cap_mb=25"}),
            "--set strategy.ddp.bucket_cap_mb=25: unknown key 'strategy.ddp.bucket_cap_mb'; did you mean 'bucket_cap' "
            "in [strategy.ddp] (PyTorch DDP's bucket_cap_mb, with its unit: \"25MiB\")? allowed in [strategy.ddp]: "
            "first_bucket, bucket_cap");
  EXPECT_EQ(message({"strategy.fusion.threshold=\"1MiB\""}),
            "--set strategy.fusion.threshold=\"1MiB\": [strategy.fusion] is set but scheduler = \"wfbp\"; remove the "
            "table or set scheduler = \"fusion\"");
}

TEST(GoodScenarios, BandwidthsAsDtsimPrintsThem) {
  const Scenario s = load_scenario((kHere / "good/minimal.toml").string(), {"platform.link.bandwidth=\"10Gb/s\""});
  EXPECT_DOUBLE_EQ(s.platform.intra.bandwidth_Bps, 1.25e9);
}

TEST(GoodScenarios, AnInlineTableMergesIntoTheTableItNames) {
  const std::string path = (kHere / "good/minimal.toml").string();
  const Scenario s = load_scenario(path, {"strategy.scheduler=none", "strategy={architecture=\"ps\", ps={servers=2}}"});
  EXPECT_EQ(s.architecture, "ps");
  EXPECT_EQ(s.ps.servers, 2);
  EXPECT_EQ(s.scheduler, "none");  // set before, kept by the merge
}

TEST(GoodScenarios, GpuFieldsOverrideTheNamedProfile) {
  const Scenario s = load_scenario((kHere / "good/minimal.toml").string(),
                                   {"gpu.profile=a100", "gpu.fp16=\"400TFLOPS\"", "gpu.memory_bandwidth=3TBps",
                                    "gpu.compute_efficiency=0.7", "gpu.precision=fp16"});
  EXPECT_EQ(s.gpu.name, "a100");
  EXPECT_DOUBLE_EQ(s.gpu.fp16_flops, 400e12);
  EXPECT_DOUBLE_EQ(s.gpu.fp32_flops, 19.5e12);
  EXPECT_DOUBLE_EQ(s.gpu.memory_Bps, 3e12);
  EXPECT_DOUBLE_EQ(s.gpu.compute_efficiency, 0.7);
  EXPECT_THROW(load_scenario((kHere / "good/minimal.toml").string(), {"gpu.fp16=400"}), core::InputError);
  EXPECT_THROW(load_scenario((kHere / "good/minimal.toml").string(), {"gpu.memory_efficiency=1.5"}),
               core::InputError);
}

TEST(GoodScenarios, GemmModelAndKernelsKeys) {
  const std::string path = (kHere / "good/minimal.toml").string();
  const Scenario d = load_scenario(path);
  EXPECT_EQ(d.gpu.gemm_model, models::GemmModel::waves);
  EXPECT_EQ(d.gpu.sm_count, 80);  // the v100 profile's
  const Scenario s =
      load_scenario(path, {"gpu.gemm_model=roofline", "gpu.sm_count=100", "gpu.gemm_efficiency=0.7"});
  EXPECT_EQ(s.gpu.gemm_model, models::GemmModel::roofline);
  EXPECT_EQ(s.gpu.sm_count, 100);
  EXPECT_DOUBLE_EQ(s.gpu.gemm_efficiency, 0.7);
  // GPT-3 is fused by default (Megatron-LM), GPT-2 eager (Hugging Face); either can be asked for.
  auto softmax_passes = [&](const std::vector<std::string>& sets) {
    for (const models::Layer& l : load_scenario(path, sets).model.layers)
      if (l.kernel == models::Kernel::softmax) return l.passes;
    return 0;
  };
  EXPECT_EQ(softmax_passes({"model.name=gpt3_125m"}), 1);
  EXPECT_EQ(softmax_passes({"model.name=gpt3_125m", "model.kernels=eager"}), 3);
  EXPECT_EQ(softmax_passes({"model.name=gpt2_small"}), 3);
  EXPECT_EQ(softmax_passes({"model.name=gpt2_small", "model.kernels=fused"}), 1);
  auto message = [&](const std::vector<std::string>& sets) {
    try {
      load_scenario(path, sets);
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({"model.kernels=\"fast\""}),
            "--set model.kernels=\"fast\": unknown model.kernels 'fast'; known: fused, eager");
  EXPECT_NE(message({"model.kernels=fused"}).find("kernels = \"fused\" on model 'resnet18', which has no kernels "
                                                  "Megatron-LM fuses"),
            std::string::npos)
      << message({"model.kernels=fused"});
  EXPECT_NE(message({"gpu.gemm_model=tiles"}).find("waves, roofline"), std::string::npos)
      << message({"gpu.gemm_model=tiles"});
  EXPECT_NE(message({"gpu.sm_count=0"}).find("sm_count"), std::string::npos) << message({"gpu.sm_count=0"});
  EXPECT_NE(message({"gpu.gemm_efficiency=1.5"}).find("gemm_efficiency"), std::string::npos);
}

TEST(GoodScenarios, OverlapSettingsDefaultToTheirSourcesAndOverride) {
  const Scenario d = load_scenario((kHere / "good/minimal.toml").string());
  EXPECT_EQ(d.gpu.overlap_slowdown, 1.189);
  EXPECT_FALSE(d.gpu.collective_launch_s);  // the default in force depends on the collective (run_simulation)
  const Scenario s = load_scenario((kHere / "good/minimal.toml").string(),
                                   {"gpu.overlap_slowdown=1.4", "gpu.collective_launch=5us"});
  EXPECT_EQ(s.gpu.overlap_slowdown, 1.4);
  EXPECT_DOUBLE_EQ(*s.gpu.collective_launch_s, 5e-6);
}

TEST(GoodScenarios, MeasuredLayerProfileReplacesTheRoofline) {
  const Scenario s = load_scenario((kHere / "good/profile.toml").string());
  ASSERT_TRUE(s.model.layers[0].measured.has_value());
  EXPECT_DOUBLE_EQ(s.model.layers[0].measured->forward_s, 0.30e-3);
  EXPECT_DOUBLE_EQ(s.model.layers[3].measured->backward_s, 0.40e-3);
  try {
    load_scenario((kHere / "good/profile.toml").string(), {"gpu.measured_iteration_time=5ms"});
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("both measured_layers and measured_iteration_time are given"),
              std::string::npos);
  }
}

TEST(GoodScenarios, InlineLayerTable) {
  const Scenario s = load_scenario((kHere / "good/layers.toml").string());
  ASSERT_EQ(s.model.layers.size(), 2u);
  EXPECT_EQ(s.model.name, "tiny");
  EXPECT_EQ(s.model.parameter_count(), 1010);
  EXPECT_DOUBLE_EQ(s.model.layers[0].forward_flops, 2000);
  ASSERT_TRUE(s.model.layers[1].measured.has_value());
  EXPECT_DOUBLE_EQ(s.model.layers[1].measured->backward_s, 2e-3);
  EXPECT_EQ(s.scheduler, "none");
}

TEST(GoodScenarios, BuiltInDefaultIsResNet50On16V100) {
  const Scenario s = load_default_scenario();
  EXPECT_EQ(s.model.name, "resnet50");
  EXPECT_EQ(s.workers, 16);
  EXPECT_EQ(s.platform.nodes, 4);
  EXPECT_EQ(s.platform.gpus_per_node, 4);
  EXPECT_EQ(s.platform.topology, platform::Topology::two_level);
  EXPECT_DOUBLE_EQ(s.platform.inter.bandwidth_Bps, 1.25e9);
  EXPECT_EQ(s.sync.scheme, "bsp");
  EXPECT_EQ(s.scheduler, "wfbp");
  EXPECT_EQ(s.collective, "ring");
}

TEST(GoodScenarios, EveryBuiltInPlatformLoads) {
  for (const std::string& name : builtin_platform_names())
    EXPECT_NO_THROW(load_default_scenario({"platform=" + name, "workers=1"})) << name;
}

TEST(GoodScenarios, MissingScenarioFile) {
  try {
    load_scenario("no/such/file.toml");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_STREQ(e.what(), "no/such/file.toml: cannot read scenario file 'no/such/file.toml'; give the path of a "
                           "readable file");
  }
}

}  // namespace
}  // namespace dtsim::scenario
