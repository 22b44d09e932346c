#pragma once
/// The [model.shape] table: a decoder-only transformer given by its shape (models/transformer.hpp), from scratch or
/// as changes to a zoo entry's.
#include <cstdint>
#include <optional>
#include <string>

#include "models/model.hpp"
#include "sim/scenario/section.hpp"

namespace dtsim::scenario {

/// The model `name` with the shape of [model.shape] `shape`: a zoo decoder's shape with the keys given replaced, or,
/// when `name` is no zoo model, a shape from Megatron-LM's GPT defaults whose layers, hidden, heads and vocabulary
/// are required, on samples of `tokens` tokens (required then; `tokens_where` locates them). Throws
/// core::InputError at the offending key.
models::Model load_shape(Section& shape, const std::string& name, std::optional<std::int64_t> tokens,
                         const std::string& name_where, const std::string& tokens_where);

}  // namespace dtsim::scenario
