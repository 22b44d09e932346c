#include "sim/parallel/expert_parallel.hpp"

#include <algorithm>

namespace dtsim::parallel {

std::string expert_refusal(const Layout& layout, const models::Model& model) {
  const auto routed = std::find_if(model.layers.begin(), model.layers.end(), [](const models::Layer& l) { return l.experts > 0; });
  const int stage_ranks = layout.tensor * layout.context * layout.data;
  const int folded = layout.expert * layout.expert_tensor;
  if (stage_ranks % folded != 0)
    return "expert_tensor x expert = " + std::to_string(folded) + " does not divide tensor x context x data = " +
           std::to_string(stage_ranks) + " (Megatron-LM splits each pipeline stage's ranks into expert_tensor x expert x "
           "expert_data)";
  if (routed == model.layers.end()) {
    if (folded > 1)
      return "expert and expert_tensor parallelism split routed experts; model '" + model.name + "' has none";
    return "";
  }
  if (routed->experts % layout.expert != 0)
    return "model '" + model.name + "' has " + std::to_string(routed->experts) + " routed experts, not a multiple of "
           "expert = " + std::to_string(layout.expert) + " (each expert-parallel rank holds whole experts)";
  if (layout.tensor > 1 && !layout.sequence_parallel)
    return "tensor = " + std::to_string(layout.tensor) + " on a mixture of experts needs sequence_parallel = true "
           "(Megatron-LM routes each tensor-parallel rank's own share of the tokens)";
  if (layout.sharding == Sharding::zero3 || layout.sharding == Sharding::hybrid)
    return "sharding = \"" + std::string(sharding_name(layout.sharding)) + "\" with routed experts: Megatron-LM's "
           "distributed optimizer shards the expert states over expert_data as zero1 does; use zero1 or zero2";
  return "";
}

bool has_shared_experts(const models::Model& model) {
  for (std::size_t i = 0; i + 1 < model.layers.size(); ++i)
    if (model.layers[i].kernel == models::Kernel::moe_permute && model.layers[i + 1].experts == 0) return true;
  return false;
}

double rank_load(const models::Layer& routed, int expert) {
  const double e = routed.experts, n = e / expert, l = routed.expert_imbalance;
  if (routed.experts <= 1) return l;
  return (l + (n - 1) * (e - l) / (e - 1)) / n;
}

}  // namespace dtsim::parallel
