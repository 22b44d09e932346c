#include "models/fused_kernels.hpp"

#include "sim/core/error.hpp"

namespace dtsim::models {

Model with_fused_kernels(Model model) {
  std::vector<Layer> layers;
  bool any = false;
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    Layer& l = model.layers[i];
    if (l.kernel == Kernel::softmax) {
      l.passes = 1;
      any = true;
    }
    const bool pair = l.kernel == Kernel::dropout && i + 1 < model.layers.size() &&
                      model.layers[i + 1].kernel == Kernel::residual_add && model.layers[i + 1].block == l.block;
    if (!pair) {
      layers.push_back(std::move(l));
      continue;
    }
    // Dropout reads x and writes y (and its mask); the add reads y and the residual and writes the sum. Fused: x and
    // the residual in, the sum out.
    const Layer& add = model.layers[i + 1];
    Layer fused = std::move(l);
    fused.name = fused.name.substr(0, fused.name.rfind('.') + 1) + "bias_dropout_add";
    fused.forward_flops += add.forward_flops;
    fused.input_elements = add.input_elements;
    fused.output_elements = add.output_elements;
    fused.saved.elements += add.saved.elements;
    fused.saved.bytes += add.saved.bytes;
    fused.kernel = Kernel::other;
    layers.push_back(std::move(fused));
    any = true;
    ++i;
  }
  if (!any)
    throw core::InputError("kernels = \"fused\" on model '" + model.name + "', which has no kernels Megatron-LM fuses",
                           "\"eager\" (fused applies to the transformers of the zoo)");
  model.layers = std::move(layers);
  model.source += ", Megatron-LM fused kernels";
  return model;
}

}  // namespace dtsim::models
