/// aqsgd: adaptive level quantisation, ALQ (Faghri, Tabrizian, Markov, Alistarh, Roy & Ramezani-Kebrya, "Adaptive
/// Gradient Quantization for Data-Parallel SGD", NeurIPS 2020, section 3; the authors' learning-to-quantize code,
/// nuq/quantize.py). Each magnitude is normalised, r_i = |x_i| / ||x||_2, and rounded stochastically between the
/// two adjacent levels of 0 = l_0 < l_1 < ... < l_s = 1 (unbiased); s = 2^(bits-1) - 1 levels besides 0 and a sign
/// take `bits` bits. The levels start at NUQSGD's exponential ones, 2^(j - s), and adapt to the gradients during
/// training: after each exchange of a tensor its levels move by ALQ's coordinate descent (each level to the
/// minimiser of the rounding variance between its neighbours, until none moves) on the empirical distribution of
/// that exchange's r_i (the paper fits a truncated normal to it instead), and the next exchange uses them.
/// Wire: [s x fp32 levels l_1..l_s][fp32 ||x||_2][n codes of `bits` bits, LSB-first: index in the low bits - 1
/// bits, sign (1 = negative) on top]; x' = sign ||x|| l_index. Aggregation allgather. Draws come from stream
/// (seed, tensor, step). Parameters: bits (3; 2..8), seed (0).
#include <algorithm>
#include <cmath>
#include <map>

#include "compressors/aqsgd_levels.hpp"
#include "compressors/bit_codes.hpp"
#include "compressors/factories.hpp"
#include "compressors/reductions.hpp"
#include "compressors/rng.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {

std::vector<float> aqsgd_initial_levels(std::int32_t s) {
  std::vector<float> levels(static_cast<std::size_t>(s));
  for (std::int32_t j = 1; j <= s; ++j) levels[static_cast<std::size_t>(j - 1)] = std::ldexp(1.0f, j - s);
  return levels;
}

void aqsgd_fit(std::span<const float> sorted, std::vector<float>& levels) {
  // The variance is convex and piecewise linear in l between the data points; its slope there is
  // sum_{r <= l} (r - a) - sum_{r > l} (b - r), so the minimiser is the first r at which that reaches 0. No move
  // raises the variance and levels only take values of r; the sweep cap guards against cycling between ties.
  constexpr int kMaxSweeps = 1000;
  const std::size_t s = levels.size();
  bool moved = true;
  for (int sweep = 0; moved && sweep < kMaxSweeps; ++sweep) {
    moved = false;
    for (std::size_t j = 0; j + 1 < s; ++j) {
      const float a = j == 0 ? 0.0f : levels[j - 1], b = levels[j + 1];
      const auto lo = std::upper_bound(sorted.begin(), sorted.end(), a);
      const auto hi = std::lower_bound(lo, sorted.end(), b);
      if (lo == hi) continue;  // no data between the neighbours: the variance does not depend on l_j
      double left = 0.0, right = 0.0;
      for (auto it = lo; it != hi; ++it) right += static_cast<double>(b) - *it;
      auto it = lo;
      for (; it + 1 != hi; ++it) {
        left += static_cast<double>(*it) - a;
        right -= static_cast<double>(b) - *it;
        if (left >= right) break;
      }
      if (*it != levels[j]) {
        levels[j] = *it;
        moved = true;
      }
    }
  }
}

namespace {

class Aqsgd final : public Compressor {
 public:
  Aqsgd(int bits, std::uint64_t seed) : bits_(bits), s_((1 << (bits - 1)) - 1), seed_(seed) {}
  std::string_view name() const override { return "aqsgd"; }
  /// ||x||_2 (a reduction), one quantising kernel, and the level adaptation's pass over the normalised
  /// magnitudes (a histogram, one more reduction); one expanding kernel.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {2 * kernel::reduction(n) + kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }
  bool unbiased() const override { return true; }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    start_message(msg, grad, id, step, Aggregation::kAllGather);
    std::vector<float>& levels = levels_.try_emplace(id, aqsgd_initial_levels(s_)).first->second;
    const std::size_t n = grad.size(), header = 4 * static_cast<std::size_t>(s_ + 1);
    for (const float l : levels) wire::put_one(msg.payload, l);
    const auto norm = static_cast<float>(std::sqrt(sum_squares(grad)));
    wire::put_one(msg.payload, norm);
    msg.payload.resize(header + wire::bit_bytes(static_cast<std::int64_t>(n) * bits_), std::byte{0});
    const float inv = norm > 0.0f ? 1.0f / norm : 0.0f;
    Rng rng(stream_seed(seed_, id, step));
    sorted_.clear();
    const std::uint32_t sign = 1u << (bits_ - 1);
    for (std::size_t i = 0; i < n; ++i) {
      const float r = std::fabs(grad[i]) * inv;
      const std::int32_t index = aqsgd_index(r, static_cast<float>(rng.uniform()), levels.data(), s_);
      bit_codes::put(msg.payload, 8 * header, bits_, i, static_cast<std::uint32_t>(index) | (grad[i] < 0.0f ? sign : 0u));
      if (std::isfinite(r)) sorted_.push_back(std::min(r, 1.0f));
    }
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
    std::sort(sorted_.begin(), sorted_.end());
    aqsgd_fit(sorted_, levels);
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    const std::size_t header = 4 * static_cast<std::size_t>(s_ + 1);
    DTSIM_CHECK(msg.payload.size() == header + wire::bit_bytes(static_cast<std::int64_t>(out.size()) * bits_),
                "aqsgd payload does not match the tensor");
    std::vector<float> levels(static_cast<std::size_t>(s_) + 1, 0.0f);
    for (std::int32_t j = 0; j < s_; ++j) levels[static_cast<std::size_t>(j) + 1] = wire::get<float>(msg.payload, 4 * static_cast<std::size_t>(j));
    const float norm = wire::get<float>(msg.payload, header - 4);
    const std::uint32_t sign = 1u << (bits_ - 1);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::uint32_t code = bit_codes::get(msg.payload, 8 * header, bits_, i);
      const std::uint32_t index = code & (sign - 1u);
      const float v = index == 0 ? 0.0f : norm * levels[index];
      out[i] = (code & sign) != 0 ? -v : v;
    }
  }

 private:
  int bits_;
  std::int32_t s_;
  std::uint64_t seed_;
  std::map<TensorId, std::vector<float>> levels_;
  std::vector<float> sorted_;
};

}  // namespace

std::unique_ptr<Compressor> make_aqsgd(const Options& options) {
  OptionReader reader("compressor 'aqsgd'", options);
  const auto bits = reader.integer("bits", 3, 2, 8);
  const auto seed = reader.integer("seed", 0, 0, INT64_MAX);
  reader.finish();
  return std::make_unique<Aqsgd>(static_cast<int>(bits), static_cast<std::uint64_t>(seed));
}

}  // namespace dtsim::compressors
