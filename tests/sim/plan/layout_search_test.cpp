// dtsim plan's automatic layout search (search.layout) and its global batch: the enumeration counted by hand, the
// search against brute force (every layout simulated) on a grid of small cases, the lower bounds under every
// simulated iteration, the shipped frontier-scale plan enumerated, and the plan file's errors.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/plan/bounds.hpp"
#include "sim/plan/candidate.hpp"
#include "sim/plan/layout_space.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/plan_spec.hpp"
#include "tests/read_file.hpp"
#include "tests/shell_command.hpp"

namespace dtsim::plan {
namespace {

namespace fs = std::filesystem;

/// A scratch folder removed at the end of the test.
struct Scratch {
  fs::path dir = fs::temp_directory_path() /
                 ("dtsim_layout_search_" + std::to_string(getpid()) + "_" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
};

/// A plan of `model` on `nodes` DGX A100 nodes at `global_batch` sequences a step, searching `layout` (TOML text);
/// `all` adds a throughput target every candidate meets, which turns off the pruning of dominated candidates, so that
/// every layout that fits is simulated (brute force); `set` adds lines to [set].
std::string plan_text(const std::string& model, int nodes, int global_batch, const std::string& layout, bool all,
                      const std::string& set = "") {
  return "recheck = 0\n[set]\n\"model.name\" = \"" + model + "\"\n" + set +
         "\"gpu.precision\" = \"bf16\"\n\"strategy.collective\" = \"nccl\"\niterations = 1\n[job]\ntokens = "
         "1000000000\nglobal_batch = " +
         std::to_string(global_batch) + "\n[target]\nminimise = \"time\"\n" + (all ? "throughput = 1e-9\n" : "") +
         "[search]\nplatforms = [\"dgx_a100\"]\nnodes = [" + std::to_string(nodes) + "]\nlayout = " + layout + "\n";
}

nlohmann::json run_plan(const Scratch& s, const std::string& name, const std::string& text) {
  std::ofstream(s.dir / (name + ".toml")) << text;
  const testing::Outcome o = testing::dtsim("plan " + (s.dir / (name + ".toml")).string() + " --out " +
                                            (s.dir / name).string() + " -j 2");
  EXPECT_EQ(o.code, 0) << o.output;
  return nlohmann::json::parse(dtsim::testing::read(s.dir / name / "plan.json"));
}

/// The plan loaded and its candidates enumerated as `dtsim plan` does (the base with its [set] on the first platform).
std::vector<Candidate> candidates_of(const std::string& file) {
  const scenario::PlanSpec plan = scenario::load_plan(file);
  std::vector<platform::PlatformSpec> templates;
  for (const std::string& ref : plan.platforms) templates.push_back(scenario::load_platform_reference(ref));
  std::vector<std::string> overrides = plan.base_settings;
  overrides.push_back("platform=\"" + plan.platforms.front() + "\"");
  const scenario::Scenario base =
      plan.base.empty() ? scenario::load_default_scenario(overrides) : scenario::load_scenario(plan.base, overrides);
  return enumerate_candidates(plan, templates, &base);
}

// GPT-3 1.3B (24 layers, 24 heads) on one node of 8 GPUs, 8 sequences a step, tensor and pipeline searched (the
// micro-batch not: a replica's batch at once, so no interleaving, which needs micro-batches in multiples of the
// stages): tensor 1, 2, 4, 8 (each divides the heads; sequence parallelism on and off above 1) x pipeline dividing
// the 8 / tensor GPUs left, data what remains (it divides 8 at every layout): tensor 1: pipeline 1, 2, 4, 8 (4);
// tensor 2: pipeline 1, 2, 4, twice (6); tensor 4: pipeline 1, 2, twice (4); tensor 8: pipeline 1, twice (2): 16.
TEST(LayoutSearch, EnumerationCountedByHand) {
  Scratch s;
  std::ofstream(s.dir / "p.toml") << plan_text("gpt3_1_3b", 1, 8, "[\"tensor\", \"pipeline\"]", false);
  const std::vector<Candidate> c = candidates_of((s.dir / "p.toml").string());
  ASSERT_EQ(c.size(), 16u);
  std::set<std::string> labels;
  for (const Candidate& x : c) {
    EXPECT_TRUE(x.invalid.empty()) << x.label;
    labels.insert(x.label);
    EXPECT_EQ(8 % x.data, 0);
  }
  EXPECT_EQ(labels.size(), 16u);
  EXPECT_TRUE(labels.count("dgx_a100 x 1 node, tensor 2 x pipeline 4 x data 1, sequence parallel, 1 micro-batch of 8"));
  // With micro-batches searched too, a layout of b = 8 / data sequences a replica has one candidate per divisor of b,
  // and interleaving (virtual stages v dividing 24 / pipeline, v > 1) where the micro-batches are a multiple of the
  // stages. tensor 1: pipeline 1 (b 1: 1), 2 (b 2: mb 1, 2; 2 micro-batches of 1 x v 2, 3, 4, 6, 12: 5), 4 (b 4: 3;
  // 4 of 1 x v 2, 3, 6: 3), 8 (b 8: 4; 8 of 1 x v 3: 1): 1 + 7 + 6 + 5 = 19; tensor 2, twice: pipeline 1 (b 2: 2),
  // 2 (b 4: 3; 4 of 1 and 2 of 2 x 5 v: 10), 4 (b 8: 4; 8 of 1 and 4 of 2 x 3 v: 6): 25, 50; tensor 4, twice:
  // pipeline 1 (b 4: 3), 2 (b 8: 4; 8 of 1, 4 of 2 and 2 of 4 x 5 v: 15): 22, 44; tensor 8, twice: pipeline 1 (b 8:
  // 4): 8. 19 + 50 + 44 + 8 = 121.
  std::ofstream(s.dir / "q.toml") << plan_text("gpt3_1_3b", 1, 8, "[\"tensor\", \"pipeline\", \"micro_batch\"]", false);
  EXPECT_EQ(candidates_of((s.dir / "q.toml").string()).size(), 121u);
}

// The dimensions [set] fixes are not searched; each candidate's batch_size is the global batch over its replicas.
TEST(LayoutSearch, SetFixesDimensionsAndTheGlobalBatchSplits) {
  Scratch s;
  std::string text = plan_text("gpt3_1_3b", 2, 32, "\"auto\"", false);
  text.replace(text.find("iterations = 1"), 0, "\"parallel.tensor\" = 4\n\"parallel.sharding\" = \"zero1\"\n");
  std::ofstream(s.dir / "p.toml") << text;
  const std::vector<Candidate> c = candidates_of((s.dir / "p.toml").string());
  ASSERT_FALSE(c.empty());
  for (const Candidate& x : c) {
    int batch = 0;
    for (const auto& [key, value] : x.settings) {
      EXPECT_NE(key, "parallel.tensor");
      EXPECT_NE(key, "parallel.sharding");
      if (key == "batch_size") batch = std::stoi(value);
    }
    EXPECT_EQ(batch * x.data, 32) << x.label;
    EXPECT_NE(x.label.find("tensor 4 x "), std::string::npos) << x.label;
  }
}

/// A small mixture of experts for [set]: Mixtral 8x7B's layers (8 routed experts, top-2) cut to 4 layers of width
/// 1,024 with 8 heads and sequences of 1,024 tokens, `experts` routed experts and `shared` shared experts, the busiest
/// expert at 1.5 times the mean (so that how the experts split over the ranks shows in the compute).
std::string small_moe(int experts, int shared) {
  return "\"model.sequence_length\" = 1024\n\"model.shape.layers\" = 4\n\"model.shape.hidden\" = 1024\n"
         "\"model.shape.heads\" = 8\n\"model.shape.kv_heads\" = 8\n\"model.shape.ffn_hidden\" = 2048\n"
         "\"model.shape.expert_ffn_hidden\" = 2048\n\"model.shape.experts\" = " + std::to_string(experts) +
         "\n\"model.shape.shared_experts\" = " + std::to_string(shared) + "\n\"model.shape.router_imbalance\" = 1.5\n";
}

std::vector<Candidate> candidates_of_text(const Scratch& s, const std::string& text) {
  std::ofstream(s.dir / "p.toml") << text;
  return candidates_of((s.dir / "p.toml").string());
}

// Expert parallelism is folded into each stage's tensor x context x data ranks (8 here: one node, tensor, context and
// pipeline at 1, data 8): expert_tensor divides the node's 8 GPUs, expert the 8 / expert_tensor ranks left and the
// experts. 8 experts: expert_tensor 1 x expert 1, 2, 4, 8 (4); 2 x 1, 2, 4 (3); 4 x 1, 2 (2); 8 x 1 (1): 10. With a
// shared expert, its overlap with the dispatch on and off wherever expert > 1: 1 + 3 x 2, 1 + 2 x 2, 1 + 2, 1: 16. 6
// experts (the loader refuses an expert extent that does not divide them): expert 1 or 2 at expert_tensor 1, 2 and
// 4, expert 1 at 8: 7. A dense model has no expert layouts: its candidates are those without the expert dimensions,
// and do not set them.
TEST(LayoutSearch, ExpertDimensionsCountedByHand) {
  Scratch s;
  const std::string experts = "[\"expert_tensor\", \"expert\"]";
  const std::vector<Candidate> c = candidates_of_text(s, plan_text("mixtral_8x7b", 1, 8, experts, false, small_moe(8, 0)));
  ASSERT_EQ(c.size(), 10u);
  std::set<std::string> labels;
  for (const Candidate& x : c) {
    EXPECT_TRUE(x.invalid.empty()) << x.label << ": " << x.invalid;
    EXPECT_EQ(x.data, 8) << x.label;
    labels.insert(x.label);
  }
  EXPECT_EQ(labels.size(), 10u);
  EXPECT_TRUE(labels.count("dgx_a100 x 1 node, tensor 1 x pipeline 1 x data 8 x expert_tensor 2 x expert 4, 1 micro-batch of 1"));
  EXPECT_TRUE(labels.count("dgx_a100 x 1 node, tensor 1 x pipeline 1 x data 8, 1 micro-batch of 1"));
  const std::vector<Candidate> shared = candidates_of_text(s, plan_text("mixtral_8x7b", 1, 8, experts, false, small_moe(8, 1)));
  EXPECT_EQ(shared.size(), 16u);
  int overlapped = 0;
  for (const Candidate& x : shared) overlapped += x.label.find(", shared experts overlapped") != std::string::npos;
  EXPECT_EQ(overlapped, 6);
  EXPECT_EQ(candidates_of_text(s, plan_text("mixtral_8x7b", 1, 8, experts, false, small_moe(6, 0))).size(), 7u);
  const std::vector<Candidate> dense =
      candidates_of_text(s, plan_text("gpt3_1_3b", 1, 8, "[\"tensor\", \"pipeline\", \"expert_tensor\", \"expert\"]", false));
  EXPECT_EQ(dense.size(), 16u);  // EnumerationCountedByHand's
  for (const Candidate& x : dense) {
    EXPECT_EQ(x.label.find("expert"), std::string::npos) << x.label;
    for (const auto& [key, value] : x.settings) EXPECT_EQ(key.find("expert"), std::string::npos) << x.label;
  }
  int writes_expert = 0;  // a mixture of experts' candidates say their expert extents, 1 included
  for (const Candidate& x : c)
    for (const auto& [key, value] : x.settings) writes_expert += key == "parallel.expert";
  EXPECT_EQ(writes_expert, 10);
}

// With layout = "auto", a key of [set] fixes its dimension (parallel.expert fixes expert, and its overlap with the
// shared experts); the other folded dimension is still searched, within what the fixed one leaves; naming a fixed
// dimension in a list is refused.
TEST(LayoutSearch, SetFixesTheExpertDimensions) {
  Scratch s;
  const std::string fixed = small_moe(8, 1) + "\"parallel.expert\" = 4\n\"parallel.context\" = 1\n"
                            "\"parallel.pipeline\" = 1\n\"parallel.sharding\" = \"none\"\n"
                            "\"memory.activation_recomputation\" = \"none\"\n\"parallel.micro_batch\" = 1\n";
  const std::vector<Candidate> c = candidates_of_text(s, plan_text("mixtral_8x7b", 1, 8, "\"auto\"", false, fixed));
  // tensor 1, 2, 4, 8 (sequence parallel: Megatron-LM's requirement with experts), data 8 / tensor; the stage's 8
  // ranks: expert_tensor 1 or 2 under expert 4.
  EXPECT_EQ(c.size(), 8u);
  std::set<std::string> expert_tensors;
  for (const Candidate& x : c) {
    EXPECT_TRUE(x.invalid.empty()) << x.label << ": " << x.invalid;
    for (const auto& [key, value] : x.settings) {
      EXPECT_NE(key, "parallel.expert");
      EXPECT_NE(key, "parallel.moe_shared_expert_overlap");
      if (key == "parallel.expert_tensor") expert_tensors.insert(value);
    }
    EXPECT_NE(x.label.find(" x expert 4"), std::string::npos) << x.label;
  }
  EXPECT_EQ(expert_tensors, (std::set<std::string>{"1", "2"}));
  std::ofstream(s.dir / "bad.toml") << plan_text("mixtral_8x7b", 1, 8, "[\"tensor\", \"expert\"]", false, fixed);
  const testing::Outcome o = testing::dtsim("plan " + (s.dir / "bad.toml").string() + " --out " + (s.dir / "out").string());
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find("search.layout searches 'expert', which [set] parallel.expert fixes"), std::string::npos)
      << o.output;
}

/// The index of the fastest simulated candidate (brute force: every layout of one cluster trains the same steps,
/// so the fastest iteration is the fastest to train).
int fastest(const nlohmann::json& plan) {
  int best = -1;
  double best_s = std::numeric_limits<double>::infinity();
  for (const auto& x : plan["candidates"])
    if (x["pruned"] == "" && x["analytic"]["mean_iteration_s"].get<double>() < best_s) {
      best_s = x["analytic"]["mean_iteration_s"].get<double>();
      best = x["index"].get<int>();
    }
  return best;
}

// On a grid of small cases, dense and mixtures of experts, every layout simulated (brute force) against the search that
// prunes by memory and by lower bounds: the search recommends the fastest layout, and no simulated iteration is below
// its lower bound.
TEST(LayoutSearch, FindsTheBruteForceBestOnAGrid) {
  struct Case {
    std::string model;
    int nodes, global_batch;
    std::string layout;
    std::string set;
    std::size_t layouts = 0;  ///< counted by hand (0: not)
  };
  // The mixtures of experts (8 experts): tensor 1, 2, 4, 8 (sequence parallel) x expert 1, 2, 4, 8 with the shared
  // expert's overlap on and off above 1 (4 x 7 = 28 layouts); context 1, 2, 4, 8 (p2p, all-gather above 1) x expert
  // (7 x 4 = 28); pipeline x expert_tensor x expert on two nodes, the expert groups across them (pipeline 1: 4 + 4 +
  // 3 + 2; 2: 4 + 3 + 2 + 1; 4: 3 + 2 + 1; 29).
  const Case grid[] = {
      {"gpt3_125m", 1, 8, "[\"tensor\", \"pipeline\", \"micro_batch\"]", ""},
      {"gpt3_1_3b", 1, 4, "[\"tensor\", \"pipeline\", \"recomputation\"]", ""},
      {"gpt3_350m", 2, 16, "[\"pipeline\", \"recomputation\", \"sharding\"]", ""},
      {"mixtral_8x7b", 1, 8, "[\"tensor\", \"expert\"]", small_moe(8, 1), 28},
      {"mixtral_8x7b", 1, 8, "[\"context\", \"expert\"]", small_moe(8, 0), 28},
      {"mixtral_8x7b", 2, 16, "[\"pipeline\", \"expert_tensor\", \"expert\"]", small_moe(8, 0), 29},
  };
  for (const Case& k : grid) {
    SCOPED_TRACE(k.model + " " + k.layout);
    Scratch s;
    const nlohmann::json all = run_plan(s, "all", plan_text(k.model, k.nodes, k.global_batch, k.layout, true, k.set));
    const nlohmann::json pruned =
        run_plan(s, "pruned", plan_text(k.model, k.nodes, k.global_batch, k.layout, false, k.set));
    if (k.layouts > 0) {
      EXPECT_EQ(all["candidates"].size(), k.layouts);
    }
    const int best = fastest(all);
    ASSERT_GE(best, 0);
    const int recommended = pruned["recommended"].get<int>();
    ASSERT_GE(recommended, 0);
    EXPECT_EQ(pruned["candidates"][recommended]["analytic"]["mean_iteration_s"].get<double>(),
              all["candidates"][best]["analytic"]["mean_iteration_s"].get<double>())
        << all["candidates"][best]["label"] << " vs " << pruned["candidates"][recommended]["label"];
    int simulated = 0, dominated = 0;
    for (const auto& x : all["candidates"]) {
      if (x["pruned"] != "") continue;
      ++simulated;
      EXPECT_GE(x["analytic"]["mean_iteration_s"].get<double>(), x["bounds"]["compute_s"].get<double>()) << x["label"];
    }
    for (const auto& x : pruned["candidates"]) dominated += x["pruned"] == "dominated";
    EXPECT_GE(simulated, 4);
    EXPECT_GT(dominated + static_cast<int>(pruned["candidates"].size()) - simulated, 0);
  }
}

// plans/llama3_70b_15t_90d.toml loads, and its clusters' layouts are enumerated and bounded (the whole plan takes
// minutes of simulation, so plan_test's ShippedPlan tests leave it out).
TEST(LayoutSearch, FrontierPlanEnumerates) {
  const std::string file = std::string(DTSIM_SOURCE_DIR) + "/plans/llama3_70b_15t_90d.toml";
  const scenario::PlanSpec plan = scenario::load_plan(file);
  EXPECT_EQ(plan.layout, std::vector<std::string>{"auto"});
  const std::vector<Candidate> c = candidates_of(file);
  EXPECT_GT(c.size(), 10000u);  // 11,007 layouts on 256, 384 and 512 nodes
  for (const Candidate& x : c) EXPECT_TRUE(x.invalid.empty()) << x.label << ": " << x.invalid;
}

// bench/plan/layout_search_10k.toml, the bench of a 10,000-candidate search (bench/RESULTS.md), has about that many.
TEST(LayoutSearch, BenchPlanHasTenThousandCandidates) {
  const std::vector<Candidate> c = candidates_of(std::string(DTSIM_SOURCE_DIR) + "/bench/plan/layout_search_10k.toml");
  EXPECT_EQ(c.size(), 10062u);
}

std::string refused(const Scratch& s, const std::string& text) {
  std::ofstream(s.dir / "bad.toml") << text;
  const testing::Outcome o = testing::dtsim("plan " + (s.dir / "bad.toml").string() + " --out " + (s.dir / "out").string());
  EXPECT_EQ(o.code, 2) << o.output;
  return o.output;
}

TEST(LayoutSearch, BadPlansAreRefusedWhereTheyAreWritten) {
  Scratch s;
  const std::string file = (s.dir / "bad.toml").string();
  const std::string good = plan_text("gpt3_125m", 1, 8, "\"auto\"", false);
  const auto edit = [](std::string text, const std::string& from, const std::string& to) {
    return text.replace(text.find(from), from.size(), to);
  };
  const auto with = [&](const std::string& from, const std::string& to) { return edit(good, from, to); };
  const auto says = [&](const std::string& text, const std::string& message) {
    const std::string out = refused(s, text);
    EXPECT_NE(out.find("dtsim: error: " + file + ":" + message), std::string::npos) << out;
  };
  says(with("layout = \"auto\"", "layout = \"automatic\""), "15:10: 'search.layout' is neither \"auto\" nor a list");
  says(with("layout = \"auto\"", "layout = [\"tensor\", \"experts\"]"),
       "15:21: search.layout names 'experts', not a layout dimension; \"auto\", or a list of tensor, context, pipeline, "
       "expert_tensor, expert, micro_batch, recomputation, sharding");
  says(with("global_batch = 8", ""), "15:10: search.layout changes the data-parallel replicas, and [job] fixes no global "
                                     "batch for them to split");
  says(with("global_batch = 8", "global_batch = 8\nglobal_batch_tokens = 16384"),
       "10:23: [job] gives both global_batch and global_batch_tokens");
  says(with("global_batch = 8", "global_batch_tokens = 5000"),
       "9:23: global_batch_tokens = 5000 is not a whole number of model 'gpt3_125m''s sequences of 2048 tokens; a "
       "multiple of 2048: global_batch_tokens = 4096 or 6144");
  says(with("iterations = 1", "iterations = 1\nbatch_size = 4"), "7:14: [set] batch_size fixes the batch of a replica");
  says(edit(with("iterations = 1", "iterations = 1\n\"parallel.tensor\" = 2"), "\"auto\"", "[\"tensor\"]"),
       "16:11: search.layout searches 'tensor', which [set] parallel.tensor fixes");
  // 7 sequences a step with the layout fixed at plain data parallelism: 8 replicas, none divides it.
  says(edit(with("iterations = 1", "iterations = 1\n\"parallel.pipeline\" = 1\n\"parallel.context\" = 1\n\"parallel.tensor\" = 1"),
            "global_batch = 8", "global_batch = 7"),
       "12:16: global_batch = 7 (7 samples a step) splits over the data-parallel replicas of no candidate: dgx_a100 x 1 "
       "node (8 replicas); a global batch their replicas divide, e.g. 8 samples a step (multiples of 8)");
}

}  // namespace
}  // namespace dtsim::plan
