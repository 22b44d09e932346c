#pragma once
/// Builders of the zoo's models, one source file per family, and the decoder transformers as data (decoder_zoo.cpp);
/// zoo.cpp registers them by name.
#include <cstdint>
#include <span>
#include <string_view>

#include "models/model.hpp"
#include "models/transformer.hpp"

namespace dtsim::models {

/// torchvision resnet18 (BasicBlock x [2, 2, 2, 2]).
Model build_resnet18();
/// torchvision resnet50 (Bottleneck v1.5 x [3, 4, 6, 3]).
Model build_resnet50();
/// torchvision resnet101 (Bottleneck v1.5 x [3, 4, 23, 3]).
Model build_resnet101();
/// torchvision resnet152 (Bottleneck v1.5 x [3, 8, 36, 3]).
Model build_resnet152();
/// torchvision vgg16 (configuration D, no batch norm).
Model build_vgg16();
/// torchvision vgg19 (configuration E, no batch norm).
Model build_vgg19();
/// torchvision alexnet.
Model build_alexnet();
/// torchvision inception_v3 with AuxLogits, 299x299 inputs.
Model build_inception_v3();
/// Hugging Face BertModel, bert-base-uncased configuration, samples of `tokens` tokens.
Model build_bert_base(std::int64_t tokens);
/// Hugging Face BertModel, bert-large-uncased configuration.
Model build_bert_large(std::int64_t tokens);
/// CIFAR-10 ResNet-20 of He et al. 2016 with option-A (zero-padding) shortcuts.
Model build_resnet20();
/// The Keras MNIST MLP 784-512-512-10.
Model build_mlp();

/// A decoder-only transformer of the zoo: its published shape, the reference its source names, its default sequence
/// and the kernels its reference implementation runs (zoo.hpp's default_kernels).
struct DecoderEntry {
  std::string_view name;
  std::string_view reference;
  TransformerShape shape;
  std::int64_t tokens;
  std::string_view kernels = "eager";
};
/// The decoder registry (decoder_zoo.cpp), in the order model_names() lists it.
std::span<const DecoderEntry> decoder_zoo();

}  // namespace dtsim::models
