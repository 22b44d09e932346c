#pragma once
/// The model zoo: layer tables built in code with exact per-tensor shapes and forward FLOPs.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/model.hpp"
#include "models/transformer.hpp"

namespace dtsim::models {

/// Registry keys of the built-in models, e.g. "resnet50", "bert_base", "gpt3_6_7b", "llama3_8b".
std::vector<std::string> model_names();
/// The transformers, whose samples have a sequence length.
std::vector<std::string> sequence_model_names();
/// Builds the built-in model called `name`, a transformer on samples of `tokens` tokens (its default when
/// absent); throws core::InputError listing the known names, or when `tokens` is out of range or given to a
/// model without a sequence.
Model make_model(std::string_view name, std::optional<std::int64_t> tokens = std::nullopt);
/// A decoder-only transformer as data: its shape, default sequence length and the reference its source names.
struct ZooTransformer {
  TransformerShape shape;
  std::int64_t tokens = 0;
  std::string reference;
};
/// The zoo's decoder-only transformer called `name` (nothing when there is none): the shape a scenario's
/// [model.shape] starts from.
std::optional<ZooTransformer> zoo_transformer(std::string_view name);
/// The transformer `t` (shape_refusal empty) named `name` on samples of `tokens` tokens (t.tokens when absent);
/// throws core::InputError when `tokens` is not 1 .. t.shape.max_positions.
Model build_sequence_model(std::string name, const ZooTransformer& t, std::optional<std::int64_t> tokens);
/// The kernels the model's reference implementation runs: "fused" for GPT-3, Megatron-LM's series, MT-NLG and BLOOM (Megatron-LM, fused_kernels.hpp),
/// "eager" for the others (Hugging Face and torchvision modules).
std::string_view default_kernels(std::string_view name);

}  // namespace dtsim::models
