#include "models/zoo.hpp"

#include "models/zoo_builders.hpp"
#include "sim/core/error.hpp"

namespace dtsim::models {
namespace {

struct ZooEntry {
  std::string_view name;
  Model (*build)();
};

// The registry: the key is the name scenario files use.
constexpr ZooEntry zoo[] = {
    {"resnet18", build_resnet18},     {"resnet50", build_resnet50},
    {"resnet101", build_resnet101},   {"resnet152", build_resnet152},
    {"vgg16", build_vgg16},           {"vgg19", build_vgg19},
    {"alexnet", build_alexnet},       {"inception_v3", build_inception_v3},
    {"bert_base", build_bert_base},   {"bert_large", build_bert_large},
    {"gpt2_small", build_gpt2_small}, {"gpt2_medium", build_gpt2_medium},
    {"resnet20", build_resnet20},     {"mlp", build_mlp},
};

}  // namespace

std::vector<std::string> model_names() {
  std::vector<std::string> names;
  for (const ZooEntry& e : zoo) names.emplace_back(e.name);
  return names;
}

Model make_model(std::string_view name) {
  for (const ZooEntry& e : zoo) {
    if (e.name == name) return e.build();
  }
  throw core::unknown_name("model", name, model_names());
}

}  // namespace dtsim::models
