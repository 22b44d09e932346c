#include "models/zoo.hpp"

#include "models/zoo_builders.hpp"
#include "sim/core/error.hpp"

namespace dtsim::models {
namespace {

struct ZooEntry {
  std::string_view name;
  Model (*build)();
};

struct SequenceEntry {
  std::string_view name;
  Model (*build)(std::int64_t tokens);
  std::int64_t tokens;     ///< default sequence length
  std::int64_t positions;  ///< the longest sequence the model takes
};

// The registries: the key is the name scenario files use.
constexpr ZooEntry zoo[] = {
    {"resnet18", build_resnet18},   {"resnet50", build_resnet50},         {"resnet101", build_resnet101},
    {"resnet152", build_resnet152}, {"vgg16", build_vgg16},               {"vgg19", build_vgg19},
    {"alexnet", build_alexnet},     {"inception_v3", build_inception_v3}, {"resnet20", build_resnet20},
    {"mlp", build_mlp},
};

constexpr SequenceEntry sequence_zoo[] = {
    {"bert_base", build_bert_base, 128, 512},
    {"bert_large", build_bert_large, 128, 512},
};

const DecoderEntry* find_decoder(std::string_view name) {
  for (const DecoderEntry& e : decoder_zoo())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const ZooEntry& e : zoo) names.emplace_back(e.name);
  for (const std::string& name : sequence_model_names()) names.push_back(name);
  return names;
}

Model build_sequence_model(std::string name, const ZooTransformer& t, std::optional<std::int64_t> tokens) {
  if (tokens && (*tokens < 1 || *tokens > t.shape.max_positions))
    throw core::InputError("sequence length " + std::to_string(*tokens) + " for model '" + name + "'",
                           "1 to " + std::to_string(t.shape.max_positions) + ", the positions it was trained with");
  return build_transformer(std::move(name), t.reference, t.shape, tokens.value_or(t.tokens));
}

std::optional<ZooTransformer> zoo_transformer(std::string_view name) {
  const DecoderEntry* e = find_decoder(name);
  if (!e) return std::nullopt;
  return ZooTransformer{e->shape, e->tokens, std::string(e->reference)};
}

Model make_model(std::string_view name, std::optional<std::int64_t> tokens) {
  for (const SequenceEntry& e : sequence_zoo) {
    if (e.name != name) continue;
    if (tokens && (*tokens < 1 || *tokens > e.positions))
      throw core::InputError("sequence length " + std::to_string(*tokens) + " for model '" + std::string(name) + "'",
                             "1 to " + std::to_string(e.positions) + ", the positions it was trained with");
    return e.build(tokens.value_or(e.tokens));
  }
  if (const auto t = zoo_transformer(name)) return build_sequence_model(std::string(name), *t, tokens);
  for (const ZooEntry& e : zoo) {
    if (e.name != name) continue;
    if (tokens)
      throw core::InputError("model '" + std::string(name) + "' takes no sequence length",
                             "leave model.sequence_length out; it applies to the transformers: " +
                                 core::join_names(sequence_model_names()));
    return e.build();
  }
  throw core::unknown_name("model", name, model_names());
}

std::string_view default_kernels(std::string_view name) {
  const DecoderEntry* e = find_decoder(name);
  return e ? e->kernels : "eager";
}

std::vector<std::string> sequence_model_names() {
  std::vector<std::string> names;
  for (const SequenceEntry& e : sequence_zoo) names.emplace_back(e.name);
  for (const DecoderEntry& e : decoder_zoo()) names.emplace_back(e.name);
  return names;
}

}  // namespace dtsim::models
