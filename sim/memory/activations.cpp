#include "sim/memory/activations.hpp"

#include <algorithm>
#include <map>

#include "sim/core/error.hpp"
#include "sim/memory/model_states.hpp"

namespace dtsim::memory {
namespace {

void require(const models::Model& model, Recomputation r) {
  const bool scores_kept = std::any_of(model.layers.begin(), model.layers.end(), [](const models::Layer& l) {
    return l.saved.attention_elements > 0 || l.saved.attention_bytes > 0;
  });
  const bool fused = std::any_of(model.layers.begin(), model.layers.end(),
                                 [](const models::Layer& l) { return l.attention_core; });
  if (r == Recomputation::selective && fused && !scores_kept)
    throw core::InputError("activation_recomputation = \"selective\" with fused attention (model.attention = \"flash\"), "
                           "which keeps no score matrices to drop",
                           "\"none\" or \"full\" (or model.attention = \"eager\")");
  const bool has = std::any_of(model.layers.begin(), model.layers.end(), [&](const models::Layer& l) {
    return r == Recomputation::selective ? l.attention_core : l.block >= 0;
  });
  if (!has)
    throw core::InputError(
        "activation_recomputation = \"" + std::string(recomputation_name(r)) + "\" on model '" + model.name +
            "', which has no " + (r == Recomputation::selective ? "attention" : "transformer layers"),
        "\"none\" (selective and full recomputation apply to the transformers of the zoo)");
}

}  // namespace

double kept_bytes(const models::Layer& l, double element, bool drop_attention) {
  const models::SavedActivations& s = l.saved;
  const auto elements = static_cast<double>(s.elements - (drop_attention ? s.attention_elements : 0));
  const auto bytes = static_cast<double>(s.bytes - (drop_attention ? s.attention_bytes : 0));
  return element * elements + bytes;
}

double activation_bytes(const models::Model& model, int batch, models::Precision p, Recomputation r) {
  if (r != Recomputation::none) require(model, r);
  const double element = element_bytes(p);
  double per_sample = 0;
  std::map<int, double> block_bytes;  // full: each block's activations, rebuilt one at a time
  for (const models::Layer& l : model.layers) {
    if (r == Recomputation::full && l.block >= 0) {
      const auto [it, first] = block_bytes.try_emplace(l.block, 0.0);
      if (first) per_sample += element * static_cast<double>(l.input_elements);  // the checkpointed input
      it->second += kept_bytes(l, element, false);
    } else {
      per_sample += kept_bytes(l, element, r == Recomputation::selective && l.attention_core);
    }
  }
  double rebuilt = 0;
  for (const auto& [block, bytes] : block_bytes) rebuilt = std::max(rebuilt, bytes);
  return batch * (per_sample + rebuilt);
}

std::vector<bool> recomputed_layers(const models::Model& model, Recomputation r) {
  if (r != Recomputation::none) require(model, r);
  std::vector<bool> again;
  for (const models::Layer& l : model.layers)
    again.push_back((r == Recomputation::selective && l.attention_core) || (r == Recomputation::full && l.block >= 0));
  return again;
}

bool knows_activations(const models::Model& model) {
  return std::any_of(model.layers.begin(), model.layers.end(),
                     [](const models::Layer& l) { return l.saved.elements > 0 || l.saved.bytes > 0; });
}

}  // namespace dtsim::memory
