/// srq: stochastic rotated quantisation, pi_srk of Suresh, Yu, Kumar & McMahan, "Distributed Mean Estimation with
/// Limited Communication", ICML 2017 (section 4). The tensor, zero-padded to d = the next power of two, is rotated
/// by R = H D / sqrt(d) (H the Walsh-Hadamard matrix, D a diagonal of random signs that every rank draws from the
/// shared seed, stream (seed, tensor, step)); each rotated coordinate z is rounded to one of the k levels
/// z_min + r (z_max - z_min) / (k - 1) next to it, up with probability (z - lower) / step, so E[z'] = z; the
/// receiver rotates back with R^-1 = D H / sqrt(d). Unbiased; the rotation spreads a vector's energy over all
/// coordinates, so z_max - z_min shrinks to about sqrt(log d / d) ||x|| and the error with it (Theorem 3:
/// E||x' - x||^2 <= (2 ln d + 2) ||x||^2 / (k - 1)^2).
/// Wire: [fp32 z_min][fp32 z_max][d codes of ceil(log2 k) bits, LSB-first bit stream]; aggregation allgather.
/// Parameters: levels k (16, 2..65536), seed (0).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "compressors/bit_codes.hpp"
#include "compressors/factories.hpp"
#include "compressors/rng.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

std::size_t padded(std::size_t n) { return n == 0 ? 0 : std::bit_ceil(n); }

// In-place unnormalised fast Walsh-Hadamard transform (H is symmetric and H H = d I).
void hadamard(std::span<float> v) {
  for (std::size_t half = 1; half < v.size(); half *= 2) {
    for (std::size_t block = 0; block < v.size(); block += 2 * half) {
      for (std::size_t i = block; i < block + half; ++i) {
        const float a = v[i], b = v[i + half];
        v[i] = a + b;
        v[i + half] = a - b;
      }
    }
  }
}

class Srq final : public Compressor {
 public:
  Srq(std::int64_t levels, std::uint64_t seed)
      : levels_(levels), bits_(std::bit_width(static_cast<std::uint64_t>(levels - 1))), seed_(seed) {}
  std::string_view name() const override { return "srq"; }
  /// The signs D applied while padding to d = 2^ceil(log2 n) (one kernel), the fast Walsh-Hadamard transform
  /// (d log2 d additions; 1024-element stages in shared memory, so one pass over d per 10 stages), z_min and
  /// z_max (a reduction), the stochastic rounding and packing; the receiver unpacks, transforms back and unpads.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto d = static_cast<double>(std::bit_ceil(static_cast<std::uint64_t>(std::max<std::int64_t>(msg.numel, 1))));
    const double stages = std::log2(d);
    const KernelWork fwht = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(stages / 10))) * kernel::pass(d, 4, 4) +
                            KernelWork{0, d * stages, 0};
    return {kernel::pass(n, 4, 4 * d / std::max(n, 1.0)) + fwht + kernel::reduction(d) + kernel::encode(d, wire), {},
            kernel::decode(d, wire) + fwht + kernel::pass(n, 4, 4)};
  }
  bool unbiased() const override { return true; }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    start_message(msg, grad, id, step, Aggregation::kAllGather);
    const std::size_t d = padded(grad.size());
    z_.assign(d, 0.0f);
    std::copy(grad.begin(), grad.end(), z_.begin());
    rotate(z_, id, step, true);
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (const float v : z_) {
      lo = std::min(lo, v);  // NaN never wins a comparison
      hi = std::max(hi, v);
    }
    if (d == 0) lo = hi = 0.0f;
    const float span = hi - lo;
    const float inv = span > 0.0f ? static_cast<float>(levels_ - 1) / span : 0.0f;
    wire::put_one(msg.payload, lo);
    wire::put_one(msg.payload, hi);
    const std::size_t start = msg.payload.size();
    msg.payload.resize(start + wire::bit_bytes(static_cast<std::int64_t>(d) * bits_), std::byte{0});
    Rng rng(stream_seed(seed_ ^ 0x5eedu, id, step));
    const auto top = static_cast<std::uint32_t>(levels_ - 1);
    for (std::size_t i = 0; i < d; ++i) {
      const float l = (z_[i] - lo) * inv;  // in [0, k - 1]; NaN gives level 0
      const auto floor_l = std::isnan(l) ? 0u : std::min(static_cast<std::uint32_t>(l), top);
      const float frac = l - static_cast<float>(floor_l);
      const std::uint32_t r = floor_l + (floor_l < top && rng.uniform() < frac ? 1u : 0u);
      bit_codes::put(msg.payload, 8 * start, bits_, i, r);
    }
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    const std::size_t d = padded(out.size());
    DTSIM_CHECK(msg.payload.size() == 8 + wire::bit_bytes(static_cast<std::int64_t>(d) * bits_), "srq payload does not match the tensor");
    const float lo = wire::get<float>(msg.payload, 0), hi = wire::get<float>(msg.payload, 4);
    const float step = (hi - lo) / static_cast<float>(levels_ - 1);
    std::vector<float> z(d);
    for (std::size_t i = 0; i < d; ++i) z[i] = lo + static_cast<float>(bit_codes::get(msg.payload, 64, bits_, i)) * step;
    rotate(z, msg.tensor, msg.step, false);
    std::copy_n(z.begin(), out.size(), out.begin());
  }

 private:
  // forward: v <- H D v / sqrt(d); inverse: v <- D H v / sqrt(d).
  void rotate(std::span<float> v, TensorId id, std::uint64_t step, bool forward) const {
    const float norm = v.empty() ? 1.0f : 1.0f / std::sqrt(static_cast<float>(v.size()));
    Rng signs(stream_seed(seed_, id, step));
    std::vector<float> diagonal(v.size());
    for (float& s : diagonal) s = (signs.next() >> 63) ? -norm : norm;
    if (forward)
      for (std::size_t i = 0; i < v.size(); ++i) v[i] *= diagonal[i];
    hadamard(v);
    if (!forward)
      for (std::size_t i = 0; i < v.size(); ++i) v[i] *= diagonal[i];
  }

  std::int64_t levels_;
  int bits_;
  std::uint64_t seed_;
  std::vector<float> z_;
};

}  // namespace

std::unique_ptr<Compressor> make_srq(const Options& options) {
  OptionReader reader("compressor 'srq'", options);
  const auto levels = reader.integer("levels", 16, 2, 65536);
  const auto seed = reader.integer("seed", 0, 0, INT64_MAX);
  reader.finish();
  return std::make_unique<Srq>(levels, static_cast<std::uint64_t>(seed));
}

}  // namespace dtsim::compressors
