#include "models/attention_time.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "sim/core/error.hpp"

namespace dtsim::models {
namespace {

constexpr double tera = 1e12;
/// Sequence lengths of every table: 512, 1k, 2k, 4k, 8k, 16k.
constexpr int kPoints = 6;
constexpr double kFirstLog2 = 9;  // log2(512)
using Curve = std::array<double, kPoints>;  // TFLOP/s

/// One kernel's measured throughput on one GPU at one head dimension.
struct Measured {
  Curve forward;
  Curve forward_causal;
  Curve backward;
};

/// One kernel's measurements at the two published head dimensions.
struct ByHeadDim {
  Measured d64;
  Measured d128;
};

// H100 SXM5, Shah et al. 2024 (attention_time.hpp), figure 5 (forward) and figure 6 (backward), head dimensions 64
// and 128.
constexpr ByHeadDim h100_flash2 = {{{282, 306, 318, 321, 322, 324},  // head dimension 64
                                    {180, 229, 262, 284, 295, 299},
                                    {198, 238, 264, 279, 287, 291}},
                                   {{309, 350, 362, 368, 370, 370},  // head dimension 128
                                    {191, 260, 298, 319, 333, 335},
                                    {214, 260, 291, 310, 318, 322}}};
constexpr ByHeadDim h100_flash3 = {{{333, 392, 460, 476, 496, 497},
                                    {197, 265, 371, 420, 460, 473},
                                    {272, 363, 422, 453, 472, 474}},
                                   {{467, 565, 625, 638, 646, 648},
                                    {292, 423, 521, 579, 602, 616},
                                    {316, 424, 501, 542, 559, 561}}};

// A100: FlashAttention-2's ceilings (Dao 2023, section 4.1), 73 % forward and 63 % backward of 312 TFLOP/s, shaped
// by the H100 FlashAttention-2 curves (attention_time.hpp): each point is the ceiling times the H100's rate at that
// length and head dimension over its head-dimension-128, 16k rate.
constexpr double kA100Peak = 312;
constexpr double kForwardCeiling = 0.73;
constexpr double kBackwardCeiling = 0.63;

Curve shaped(const Curve& c, const Curve& reference, double ceiling) {
  Curve out{};
  for (int i = 0; i < kPoints; ++i) out[i] = ceiling * c[i] / reference[kPoints - 1];
  return out;
}

Measured a100_flash2(const Measured& h100) {
  const double forward = kForwardCeiling * kA100Peak, backward = kBackwardCeiling * kA100Peak;
  Measured m{shaped(h100.forward, h100_flash2.d128.forward, forward), {},
             shaped(h100.backward, h100_flash2.d128.backward, backward)};
  for (int i = 0; i < kPoints; ++i) m.forward_causal[i] = m.forward[i] * h100.forward_causal[i] / h100.forward[i];
  return m;
}

double at(const Curve& c, std::int64_t tokens) {
  const double x = std::clamp(std::log2(static_cast<double>(tokens)) - kFirstLog2, 0.0, kPoints - 1.0);
  const int i = std::min(static_cast<int>(x), kPoints - 2);
  return c[i] + (x - i) * (c[i + 1] - c[i]);
}

double curve_rate(const Measured& m, AttentionPass pass, bool causal, std::int64_t tokens) {
  if (pass == AttentionPass::forward) return at(causal ? m.forward_causal : m.forward, tokens);
  const double backward = at(m.backward, tokens);
  return causal ? backward * at(m.forward_causal, tokens) / at(m.forward, tokens) : backward;
}

/// Linear in log2(head_dim) between 64 and 128, held at the nearer table outside.
double by_head_dim(double at64, double at128, std::int64_t head_dim) {
  const double x = std::clamp(std::log2(static_cast<double>(head_dim)) - 6.0, 0.0, 1.0);
  return at64 + x * (at128 - at64);
}

double table_rate(const ByHeadDim& t, AttentionPass pass, bool causal, std::int64_t tokens, std::int64_t head_dim) {
  return by_head_dim(curve_rate(t.d64, pass, causal, tokens), curve_rate(t.d128, pass, causal, tokens), head_dim);
}

double a100_rate(AttentionPass pass, bool causal, std::int64_t tokens, std::int64_t head_dim) {
  return by_head_dim(curve_rate(a100_flash2(h100_flash2.d64), pass, causal, tokens),
                     curve_rate(a100_flash2(h100_flash2.d128), pass, causal, tokens), head_dim);
}

}  // namespace

double attention_flops(const AttentionShape& s, AttentionPass pass) {
  const auto tokens = static_cast<double>(s.tokens);
  const double forward = 4.0 * tokens * tokens * static_cast<double>(s.head_dim) * s.heads * (s.causal ? 0.5 : 1.0);
  return pass == AttentionPass::forward ? forward : 2.5 * forward;
}

double attention_flop_rate(const GpuProfile& gpu, Precision p, Kernel version, AttentionPass pass, bool causal,
                           std::int64_t tokens, std::int64_t head_dim) {
  DTSIM_CHECK(version == Kernel::flash_attention2 || version == Kernel::flash_attention3, "not an attention kernel");
  if (version == Kernel::flash_attention3) {
    if (gpu.attention_measurements != "h100")
      throw core::InputError("FlashAttention-3 on GPU '" + gpu.name + "'",
                             "a Hopper GPU with its measurements (h100); attention = \"flash\" elsewhere");
    return tera * table_rate(h100_flash3, pass, causal, tokens, head_dim);
  }
  if (gpu.attention_measurements == "h100") return tera * table_rate(h100_flash2, pass, causal, tokens, head_dim);
  const double a100 = tera * a100_rate(pass, causal, tokens, head_dim);
  if (gpu.attention_measurements == "a100") return a100;
  return a100 / (tera * kA100Peak) * gpu.peak_flops(p);  // no measurement: the A100's fraction of peak
}

double attention_time_s(const AttentionShape& shape, const GpuProfile& gpu, Precision p, Kernel version,
                        AttentionPass pass) {
  return attention_flops(shape, pass) /
         (gpu.attention_scale * attention_flop_rate(gpu, p, version, pass, shape.causal, shape.tokens, shape.head_dim));
}

}  // namespace dtsim::models
