// The kernel model (compression.kernel_time = "model"): each compressor family's declared GPU work, priced on a GPU
// profile, against its closed form written out by hand; and the bucket work the simulation takes from it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "compressors/error_feedback.hpp"
#include "compressors/registry.hpp"
#include "compressors/wire.hpp"
#include "models/gpu_profile.hpp"
#include "sim/run/kernel_model.hpp"
#include "sim/run/run_simulation.hpp"
#include "tests/sim/run/scenario_fixture.hpp"

namespace dtsim::run {
namespace {

constexpr std::int64_t kN = 1 << 20;

/// A deterministic gradient with magnitudes spread over three decades.
std::vector<float> gradient() {
  std::vector<float> g(kN);
  for (std::int64_t i = 0; i < kN; ++i) g[static_cast<std::size_t>(i)] = static_cast<float>((i * 7919 % 2001) - 1000) * 1e-5f;
  return g;
}

class KernelModel : public ::testing::Test {
 protected:
  const models::GpuProfile gpu = models::gpu_profile("a100");
  const double bandwidth = 1555e9 * 0.8;   // the A100 profile's HBM2 bandwidth at its memory efficiency
  const double flop_rate = 19.5e12 * 0.55;  // its fp32 rate at its compute efficiency
  const double launch = 3e-6;
  const double n = static_cast<double>(kN);

  /// t = launches x 3 us + bytes / bandwidth + flops / fp32 rate.
  double closed_form(double launches, double bytes, double flops = 0) const {
    return launches * launch + bytes / bandwidth + flops / flop_rate;
  }

  /// Compress and decompress times of `c` on the gradient, as the model prices them.
  std::pair<double, double> priced(compressors::Compressor& c, compressors::Compressed& msg) const {
    msg = c.compress(gradient(), 0);
    const compressors::KernelCost cost = c.kernel_cost(msg);
    return {kernel_seconds(cost.compress, gpu), kernel_seconds(cost.decompress, gpu)};
  }
};

TEST_F(KernelModel, NoneLaunchesNothing) {
  auto c = compressors::make_compressor("none");
  compressors::Compressed msg;
  EXPECT_EQ(priced(*c, msg), std::make_pair(0.0, 0.0));
}

TEST_F(KernelModel, CastsAreOnePassEachWay) {
  for (const char* name : {"fp16", "bf16"}) {
    auto c = compressors::make_compressor(name);
    compressors::Compressed msg;
    const auto [compress, decompress] = priced(*c, msg);
    EXPECT_DOUBLE_EQ(compress, closed_form(1, 4 * n + 2 * n)) << name;
    EXPECT_DOUBLE_EQ(decompress, closed_form(1, 2 * n + 4 * n)) << name;
  }
}

TEST_F(KernelModel, ScaledQuantisersAddOneReduction) {
  // max |x|, ||x|| or the bucket norms first (CUB DeviceReduce: two launches, one read), then one encoding kernel.
  for (const char* name : {"int8", "qsgd", "efsignsgd", "onebit", "onebit_adam", "eightbit"}) {
    auto c = compressors::make_compressor(name);
    compressors::Compressed msg;
    const auto [compress, decompress] = priced(*c, msg);
    const auto wire = static_cast<double>(msg.wire_size);
    EXPECT_DOUBLE_EQ(compress, closed_form(3, 4 * n + 4 * n + wire)) << name;
    EXPECT_DOUBLE_EQ(decompress, closed_form(1, wire + 4 * n)) << name;
  }
  auto terngrad = compressors::make_compressor("terngrad");
  compressors::Compressed msg;
  const auto [compress, decompress] = priced(*terngrad, msg);
  EXPECT_DOUBLE_EQ(compress, closed_form(5, 8 * n + 4 * n + static_cast<double>(msg.wire_size)));
}

TEST_F(KernelModel, SignBitsAreOnePass) {
  auto c = compressors::make_compressor("signsgd");
  compressors::Compressed msg;
  const auto [compress, decompress] = priced(*c, msg);
  EXPECT_DOUBLE_EQ(compress, closed_form(1, 4 * n + n / 8));
  EXPECT_DOUBLE_EQ(decompress, closed_form(1, n / 8 + 4 * n));
}

TEST_F(KernelModel, TopKIsARadixSelectThenASortOfTheKept) {
  auto c = compressors::make_compressor("topk", {{"ratio", 0.01}});
  compressors::Compressed msg;
  const auto [compress, decompress] = priced(*c, msg);
  const double k = std::floor(n * 0.01);
  ASSERT_EQ(msg.wire_size, 8 * static_cast<std::int64_t>(k));
  // Radix select: 4 digit passes of a histogram and a prefix kernel over 4n bytes, a gather writing k pairs;
  // radix sort of the k (int32 index, fp32 value) pairs: a histogram over 4k bytes, 4 digit passes over 16k.
  EXPECT_DOUBLE_EQ(compress, closed_form(9 + 5, 4 * 4 * n + 4 * n + 8 * k + 4 * k + 4 * 16 * k));
  // A memset of the dense tensor, the payload read, one 32-byte sector written per kept element.
  EXPECT_DOUBLE_EQ(decompress, closed_form(2, 4 * n + 8 * k + 32 * k));
}

TEST_F(KernelModel, ThresholdIsOneCompaction) {
  auto c = compressors::make_compressor("threshold", {{"threshold", 0.009}});
  compressors::Compressed msg;
  const auto [compress, decompress] = priced(*c, msg);
  const auto kept = static_cast<double>(compressors::wire::sparse_count(msg.payload.size(), msg.numel));
  ASSERT_GT(kept, 0);
  EXPECT_DOUBLE_EQ(compress, closed_form(2, 4 * n + 8 * kept));
  EXPECT_DOUBLE_EQ(decompress, closed_form(2, 4 * n + 8 * kept + 32 * kept));
}

TEST_F(KernelModel, RandomKDrawsSortsAndGathers) {
  auto c = compressors::make_compressor("randomk", {{"ratio", 0.01}});
  compressors::Compressed msg;
  const auto [compress, decompress] = priced(*c, msg);
  const double k = std::floor(n * 0.01);
  const double indices = 4 * k + (4 * k + 4 * 2 * 4 * k);  // drawn (one kernel), sorted (1 + 4 kernels)
  EXPECT_DOUBLE_EQ(compress, closed_form(1 + 5 + 1, indices + 32 * k + 4 * k));
  EXPECT_DOUBLE_EQ(decompress, closed_form(1 + 5 + 2, indices + 4 * n + 8 * k + 32 * k));
}

TEST_F(KernelModel, DgcSamplesSelectsCountsAndCompacts) {
  auto c = compressors::make_compressor("dgc", {{"ratio", 0.001}});
  compressors::Compressed msg;
  const auto [compress, decompress] = priced(*c, msg);
  const auto kept = static_cast<double>(compressors::wire::sparse_count(msg.payload.size(), msg.numel));
  const double samples = std::ceil(n * 0.01), k_samples = std::ceil(samples * 0.001);
  const double bytes = (32 * samples + 4 * samples) + (20 * samples + 12 * k_samples) + 4 * n + (4 * n + 8 * kept);
  EXPECT_DOUBLE_EQ(compress, closed_form(1 + 9 + 2 + 2, bytes));
  EXPECT_DOUBLE_EQ(decompress, closed_form(2, 4 * n + 8 * kept + 32 * kept));
}

TEST_F(KernelModel, PowerSgdIsThreeProductsAndAnOrthogonalisation) {
  auto c = compressors::make_compressor("powersgd", {{"rank", std::int64_t{2}}});
  c->set_shape(0, 1024, 1024);
  const compressors::Compressed msg = c->compress(gradient(), 0);
  const compressors::KernelCost cost = c->kernel_cost(msg);
  const double m = 1024, r = 2;
  const double product_bytes = 4 * (m * m + m * r + m * r), product_flops = 2 * m * m * r;
  EXPECT_DOUBLE_EQ(kernel_seconds(cost.compress, gpu), closed_form(1, product_bytes, product_flops));  // P = M Q
  // Gram-Schmidt (r norms and r updates of P), then Q = M^T P.
  EXPECT_DOUBLE_EQ(kernel_seconds(cost.next_round, gpu),
                   closed_form(2 * r + 1, 8 * m * r * r + product_bytes, 2 * m * r * r + product_flops));
  EXPECT_DOUBLE_EQ(kernel_seconds(cost.decompress, gpu), closed_form(1, 4 * (m * r + r * m + m * m), 2 * m * r * m));
}

TEST_F(KernelModel, ErrorFeedbackAddsItsPassesAndTheOwnDecompress) {
  const double k = std::floor(n * 0.01);
  const double topk_launches = 14 + 2, topk_bytes = (20 * n + 76 * k) + (4 * n + 40 * k);  // compress, own decompress
  auto residual = compressors::make_error_feedback("residual", compressors::make_compressor("topk", {{"ratio", 0.01}}));
  compressors::Compressed msg;
  const auto [r_compress, r_decompress] = priced(*residual, msg);
  // t = e + g and e = t - sent: 12 bytes per element each.
  EXPECT_DOUBLE_EQ(r_compress, closed_form(topk_launches + 2, topk_bytes + 24 * n));
  EXPECT_DOUBLE_EQ(r_decompress, closed_form(2, 4 * n + 40 * k));
  auto dgc = compressors::make_error_feedback("dgc", compressors::make_compressor("topk", {{"ratio", 0.01}}));
  const auto [d_compress, d_decompress] = priced(*dgc, msg);
  // u = m u + g, v = v + u; then v = v - sent and u masked: 20 bytes per element each.
  EXPECT_DOUBLE_EQ(d_compress, closed_form(topk_launches + 2, topk_bytes + 40 * n));
}

TEST_F(KernelModel, ShiftedCompressionAddsTheShift) {
  auto int8 = compressors::make_compressor("int8");
  compressors::Compressed msg;
  priced(*int8, msg);  // int8's own message, for its wire size
  auto ef21 = compressors::make_error_feedback("ef21", compressors::make_compressor("int8"));
  compressors::Compressed s_msg;
  const auto [s_compress, s_decompress] = priced(*ef21, s_msg);
  const auto wire = static_cast<double>(msg.wire_size);
  // x - h (12 bytes per element), int8's kernels, its decompress of the own message, h += C (12 bytes per element).
  EXPECT_DOUBLE_EQ(s_compress, closed_form(1 + 3 + 1 + 1, 12 * n + (8 * n + wire) + (wire + 4 * n) + 12 * n));
  EXPECT_DOUBLE_EQ(s_decompress, closed_form(1 + 1, (wire + 4 * n) + 12 * n));
}

// Every registered compressor but "none" declares work for both directions, and the same message prices the same.
TEST_F(KernelModel, EveryCompressorDeclaresItsKernels) {
  for (const compressors::CompressorEntry& e : compressors::compressor_registry()) {
    if (e.name == "none") continue;
    auto c = e.make({});
    const compressors::Compressed msg = c->compress(gradient(), 0);
    const compressors::KernelCost cost = c->kernel_cost(msg);
    EXPECT_GT(cost.compress.launches, 0) << e.name;
    EXPECT_GT(cost.compress.bytes, 0) << e.name;
    EXPECT_GT(cost.decompress.launches, 0) << e.name;
    EXPECT_EQ(c->kernel_cost(msg).compress, cost.compress) << e.name;
  }
}

// The simulation's bucket work is the model's price of the message the bucket's compressor sent.
TEST_F(KernelModel, BucketWorkIsThePricedKernels) {
  auto s = testing::five_layers(4, "wfbp", scenario::Fidelity::analytic);
  s.compression.compressor = "fp16";
  const scheduling::IterationPlan plan = make_iteration_plan(s);
  ASSERT_FALSE(plan.work.empty());
  for (std::size_t b = 0; b < plan.buckets.size(); ++b) {
    const double elements = static_cast<double>(plan.buckets[b].bytes) / 4;
    const double one_pass = 1 * launch + 6 * elements / (s.gpu.memory_Bps * s.gpu.memory_efficiency);
    EXPECT_DOUBLE_EQ(plan.work[b].compress_s, one_pass) << b;
    EXPECT_DOUBLE_EQ(plan.work[b].decompress_s, one_pass) << b;  // the all-reduced payload, expanded once
  }
}

}  // namespace
}  // namespace dtsim::run
