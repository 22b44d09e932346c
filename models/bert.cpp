/// BERT exactly as Hugging Face transformers BertModel (Devlin et al., "BERT: Pre-training of Deep
/// Bidirectional Transformers for Language Understanding", NAACL 2019): embeddings, encoder and pooler,
/// no pre-training heads. Configurations of bert-base-uncased and bert-large-uncased (vocabulary 30522,
/// 512 positions, 2 token types). Samples are 128 tokens, the sequence length of BERT's pre-training
/// phase 1, unless model.sequence_length says otherwise. Attention is the eager implementation (scores and
/// probabilities are materialised).
#include <string>

#include "models/op_costs.hpp"
#include "models/sequence_builder.hpp"
#include "models/transformer.hpp"
#include "models/zoo_builders.hpp"

namespace dtsim::models {
namespace {

constexpr std::int64_t vocabulary = 30522;
constexpr std::int64_t max_positions = 512;
constexpr std::int64_t token_types = 2;

void encoder_layer(SequenceBuilder& b, const std::string& p, const TransformerShape& c) {
  const std::int64_t t = b.tokens();
  b.linear(p + "attention.self.query", c.hidden, c.hidden, t).split = TensorSplit::column;
  b.linear(p + "attention.self.key", c.hidden, c.hidden, t, true, false).split = TensorSplit::column;  // the query's input, kept once
  b.linear(p + "attention.self.value", c.hidden, c.hidden, t, true, false).split = TensorSplit::column;
  b.attention_scores(p + "attention.self.scores", c.hidden, c.heads);
  b.attention_softmax(p + "attention.self.softmax", c.heads);
  b.attention_dropout(p + "attention.self.dropout", c.heads);
  b.attention_context(p + "attention.self.context", c.hidden, c.heads);
  b.linear(p + "attention.output.dense", c.hidden, c.hidden, t).split = TensorSplit::row;
  b.elementwise(p + "attention.output.dropout", t * c.hidden, pointwise_flops_per_element, 1, Keeps::mask);
  b.layer_norm(p + "attention.output.LayerNorm", c.hidden, true);
  b.linear(p + "intermediate.dense", c.hidden, 4 * c.hidden, t).split = TensorSplit::column;
  b.elementwise(p + "intermediate.intermediate_act_fn", t * 4 * c.hidden, gelu_flops_per_element, 1,
                Keeps::operand).split = TensorSplit::sharded;
  b.linear(p + "output.dense", 4 * c.hidden, c.hidden, t).split = TensorSplit::row;
  b.elementwise(p + "output.dropout", t * c.hidden, pointwise_flops_per_element, 1, Keeps::mask);
  b.layer_norm(p + "output.LayerNorm", c.hidden, true);
}

Model bert(const std::string& name, const std::string& reference, const TransformerShape& c,
           std::int64_t tokens) {
  SequenceBuilder b(
      name, "Hugging Face BertModel " + reference + " (Devlin et al. 2019), " + std::to_string(tokens) + " tokens",
      tokens);
  const std::int64_t t = b.tokens();
  b.embedding("embeddings.word_embeddings", vocabulary, c.hidden);
  b.embedding("embeddings.position_embeddings", max_positions, c.hidden).split = TensorSplit::replicated;
  b.embedding("embeddings.token_type_embeddings", token_types, c.hidden).split = TensorSplit::replicated;
  b.elementwise("embeddings.add", t * c.hidden, 2 * pointwise_flops_per_element, 3, Keeps::nothing);
  b.layer_norm("embeddings.LayerNorm", c.hidden, false);
  b.elementwise("embeddings.dropout", t * c.hidden, pointwise_flops_per_element, 1, Keeps::mask);
  for (std::int64_t i = 0; i < c.layers; ++i) {
    b.begin_block(static_cast<int>(i));
    encoder_layer(b, "encoder.layer." + std::to_string(i) + ".", c);
  }
  b.end_block();
  b.linear("pooler.dense", c.hidden, c.hidden, 1);
  b.elementwise("pooler.activation", c.hidden, pointwise_flops_per_element, 1, Keeps::operand);
  return std::move(b).finish();
}

}  // namespace

Model build_bert_base(std::int64_t tokens) {
  return bert("bert_base", "bert-base-uncased", {.layers = 12, .hidden = 768, .heads = 12}, tokens);
}
Model build_bert_large(std::int64_t tokens) {
  return bert("bert_large", "bert-large-uncased", {.layers = 24, .hidden = 1024, .heads = 16}, tokens);
}

}  // namespace dtsim::models
