// One tensor's gradient exchange: dropped (backup) workers, and the server's compressed pull.
#include <gtest/gtest.h>

#include "compressors/registry.hpp"
#include "numerics/gradient_exchange.hpp"

namespace dtsim::numerics {
namespace {

using Grads = std::vector<std::vector<float>>;

Pushes pushes_of(const Grads& grads, const std::vector<std::unique_ptr<compressors::Compressor>>& compressors) {
  Pushes p;
  for (const auto& g : grads) p.gradients.emplace_back(g);
  for (const auto& c : compressors) p.compressors.push_back(c.get());
  return p;
}

std::vector<std::unique_ptr<compressors::Compressor>> make(const std::string& name, std::size_t count,
                                                           const compressors::Options& options = {}) {
  std::vector<std::unique_ptr<compressors::Compressor>> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(compressors::make_compressor(name, options));
  return out;
}

TEST(GradientExchange, DroppedWorkersAreLeftOutOfTheAverage) {
  const Grads grads = {{1.0f, 2.0f}, {3.0f, 4.0f}, {100.0f, -100.0f}};
  Pushes p = pushes_of(grads, {});
  std::vector<float> out(2);
  exchange_gradients(p, nullptr, out);
  EXPECT_FLOAT_EQ(out[0], 104.0f / 3.0f);
  p.kept = {true, true, false};
  const TensorExchange report = exchange_gradients(p, nullptr, out);
  EXPECT_EQ(out, (std::vector<float>{2.0f, 3.0f}));
  EXPECT_EQ(report.wire_bytes.size(), 3u);  // the dropped worker pushed all the same
}

// signsgd on a parameter server with pull = "compressed": the server's compressed aggregate is the
// element-wise majority vote of the workers' signs (Bernstein et al. 2018, signSGD with majority vote).
TEST(GradientExchange, SignSgdCompressedPullIsTheMajorityVote) {
  const Grads grads = {{1.0f, -2.0f, 3.0f, -0.5f, 0.0f}, {-1.0f, -1.0f, 1.0f, 0.25f, -1.0f},
                       {2.0f, 5.0f, -1.0f, -4.0f, -2.0f}};
  const auto workers = make("signsgd", grads.size());
  const auto server = compressors::make_compressor("signsgd", {});
  std::vector<float> out(5);
  const TensorExchange report = exchange_gradients(pushes_of(grads, workers), server.get(), out);
  EXPECT_EQ(report.how, compressors::Aggregation::kMajorityVote);
  for (std::size_t i = 0; i < out.size(); ++i) {
    int votes = 0;
    for (const auto& g : grads) votes += g[i] >= 0.0f ? 1 : -1;
    EXPECT_EQ(out[i], votes >= 0 ? 1.0f : -1.0f) << i;
  }
  EXPECT_EQ(out, (std::vector<float>{1.0f, -1.0f, 1.0f, -1.0f, -1.0f}));
}

TEST(GradientExchange, TopKCompressedPullKeepsTheLargestOfTheAverage) {
  const Grads grads = {{4.0f, 0.0f, 0.0f, 1.0f}, {0.0f, 3.0f, 0.0f, 1.0f}};
  const compressors::Options half = {{"ratio", 0.5}};
  std::vector<float> dense_pull(4), compressed_pull(4);
  exchange_gradients(pushes_of(grads, make("topk", 2, half)), nullptr, dense_pull);
  const auto server = compressors::make_compressor("topk", half);
  exchange_gradients(pushes_of(grads, make("topk", 2, half)), server.get(), compressed_pull);
  EXPECT_EQ(dense_pull, (std::vector<float>{2.0f, 1.5f, 0.0f, 1.0f}));
  EXPECT_EQ(compressed_pull, (std::vector<float>{2.0f, 1.5f, 0.0f, 0.0f}));
}

}  // namespace
}  // namespace dtsim::numerics
