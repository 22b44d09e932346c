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
  std::string_view kernels = "eager";  ///< what its reference implementation runs
};

// The registries: the key is the name scenario files use.
constexpr ZooEntry zoo[] = {
    {"resnet18", build_resnet18},   {"resnet50", build_resnet50},         {"resnet101", build_resnet101},
    {"resnet152", build_resnet152}, {"vgg16", build_vgg16},               {"vgg19", build_vgg19},
    {"alexnet", build_alexnet},     {"inception_v3", build_inception_v3}, {"resnet20", build_resnet20},
    {"mlp", build_mlp},
};

constexpr SequenceEntry sequence_zoo[] = {
    {"bert_base", build_bert_base, 128, 512},        {"bert_large", build_bert_large, 128, 512},
    {"gpt2_small", build_gpt2_small, 1024, 1024},    {"gpt2_medium", build_gpt2_medium, 1024, 1024},
    {"gpt3_125m", build_gpt3_125m, 2048, 2048, "fused"},      {"gpt3_350m", build_gpt3_350m, 2048, 2048, "fused"},
    {"gpt3_760m", build_gpt3_760m, 2048, 2048, "fused"},      {"gpt3_1_3b", build_gpt3_1_3b, 2048, 2048, "fused"},
    {"gpt3_2_7b", build_gpt3_2_7b, 2048, 2048, "fused"},      {"gpt3_6_7b", build_gpt3_6_7b, 2048, 2048, "fused"},
    {"gpt3_13b", build_gpt3_13b, 2048, 2048, "fused"},        {"gpt3_175b", build_gpt3_175b, 2048, 2048, "fused"},
    {"llama2_7b", build_llama2_7b, 4096, 4096},      {"llama2_13b", build_llama2_13b, 4096, 4096},
    {"llama2_70b", build_llama2_70b, 4096, 4096},    {"llama3_8b", build_llama3_8b, 8192, 8192},
    {"llama3_70b", build_llama3_70b, 8192, 8192},    {"llama3_405b", build_llama3_405b, 8192, 131072},
};

}  // namespace

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const ZooEntry& e : zoo) names.emplace_back(e.name);
  for (const SequenceEntry& e : sequence_zoo) names.emplace_back(e.name);
  return names;
}

Model make_model(std::string_view name, std::optional<std::int64_t> tokens) {
  for (const SequenceEntry& e : sequence_zoo) {
    if (e.name != name) continue;
    if (tokens && (*tokens < 1 || *tokens > e.positions))
      throw core::InputError("sequence length " + std::to_string(*tokens) + " for model '" + std::string(name) + "'",
                             "1 to " + std::to_string(e.positions) + ", the positions it was trained with");
    return e.build(tokens.value_or(e.tokens));
  }
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
  for (const SequenceEntry& e : sequence_zoo)
    if (e.name == name) return e.kernels;
  return "eager";
}

std::vector<std::string> sequence_model_names() {
  std::vector<std::string> names;
  for (const SequenceEntry& e : sequence_zoo) names.emplace_back(e.name);
  return names;
}

}  // namespace dtsim::models
