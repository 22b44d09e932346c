#pragma once
/// The model zoo: layer tables built in code with exact per-tensor shapes and forward FLOPs.
#include <string>
#include <string_view>
#include <vector>

#include "models/model.hpp"

namespace dtsim::models {

/// Registry keys of the built-in models, e.g. "resnet50", "bert_base", "gpt2_small".
std::vector<std::string> model_names();
/// Builds the built-in model called `name`; throws core::InputError listing the known names.
Model make_model(std::string_view name);

}  // namespace dtsim::models
