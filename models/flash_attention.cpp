#include "models/flash_attention.hpp"

#include "sim/core/error.hpp"

namespace dtsim::models {

Model with_flash_attention(Model model, Kernel version) {
  DTSIM_CHECK(version == Kernel::flash_attention2 || version == Kernel::flash_attention3, "not a FlashAttention kernel");
  std::vector<Layer> layers;
  bool any = false;
  for (std::size_t i = 0; i < model.layers.size();) {
    if (!model.layers[i].attention_core) {
      layers.push_back(std::move(model.layers[i++]));
      continue;
    }
    // The run of attention-core modules of one layer: Q K^T first (heads x tokens x tokens scores from Q and K,
    // tokens x dim each), attention over V last (tokens x dim out).
    std::size_t end = i;
    Layer fused;
    const Layer& scores = model.layers[i];
    const std::string& name = scores.name;
    fused.name = name.substr(0, name.rfind('.') + 1) + "flash_attention";
    fused.block = scores.block;
    fused.attention_core = true;
    fused.split = TensorSplit::sharded;
    fused.heads = scores.heads;
    for (; end < model.layers.size() && model.layers[end].attention_core; ++end)
      fused.forward_flops += model.layers[end].forward_flops;
    fused.kv_heads = model.layers[end - 1].kv_heads;
    const std::int64_t qk = scores.input_elements;           // Q and K, tokens x dim each
    const std::int64_t out = model.layers[end - 1].output_elements;  // tokens x dim
    const std::int64_t heads = scores.heads;
    fused.input_elements = qk + out;   // Q, K and V (V has the output's size)
    fused.output_elements = out;
    fused.saved.elements = qk + out;  // Q, K and V; the output it keeps is the next module's kept input
    fused.saved.bytes = 4 * heads * model.tokens;           // the log-sum-exp, fp32
    fused.backward_ratio = 2.5;
    fused.kernel = version;
    layers.push_back(std::move(fused));
    any = true;
    i = end;
  }
  if (!any)
    throw core::InputError("attention = \"flash\" on model '" + model.name + "', which has no attention",
                           "\"eager\" (flash applies to the transformers of the zoo)");
  model.layers = std::move(layers);
  model.source += version == Kernel::flash_attention3 ? ", FlashAttention-3" : ", FlashAttention-2";
  return model;
}

}  // namespace dtsim::models
