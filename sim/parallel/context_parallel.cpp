#include "sim/parallel/context_parallel.hpp"

#include <algorithm>

namespace dtsim::parallel {

std::vector<std::string> context_comm_names() { return {"p2p", "all_gather"}; }

std::string context_refusal(const Layout& layout, const models::Model& model) {
  if (layout.context == 1) return "";
  const bool transformer =
      std::any_of(model.layers.begin(), model.layers.end(), [](const models::Layer& l) { return l.block >= 0; });
  if (!transformer || model.tokens == 0)
    return "context parallelism splits the tokens of transformer layers; model '" + model.name + "' has none";
  // Megatron-LM: seq_length % (2 x context_parallel_size) == 0 (load-balanced causal chunks), and the sequence
  // parallel split of a rank's tokens over the tensor group.
  const std::int64_t chunks = 2LL * layout.context * (layout.sequence_parallel ? layout.tensor : 1);
  if (model.tokens % chunks != 0)
    return "model '" + model.name + "' has " + std::to_string(model.tokens) + " tokens a sample, not a multiple of 2 x context" +
           (layout.sequence_parallel ? " x tensor" : "") + " = " + std::to_string(chunks) +
           " (Megatron-LM splits each sequence into 2 x context load-balanced chunks)";
  return "";
}

std::int64_t kv_elements(const models::Layer& core) {
  const std::int64_t heads = std::max(core.heads, 1);
  const std::int64_t kv_heads = core.kv_heads > 0 ? core.kv_heads : heads;
  return 2 * core.output_elements / heads * kv_heads;
}

}  // namespace dtsim::parallel
