/// qsgd: stochastic uniform quantisation to s levels of the bucket norm (Alistarh et al., "QSGD:
/// Communication-Efficient SGD via Gradient Quantization and Encoding", NeurIPS 2017), GRACE
/// semantics: l = s |x| / ||bucket||_2, level = floor(l) + Bernoulli(l - floor(l)).
/// Wire: [nb x fp32 bucket norm (accumulated in fp32)][codes, b = 1 + ceil(log2(s + 1)) bits each, LSB-first bit
/// stream: level in the low b - 1 bits, sign (1 = negative) on top]; nb = ceil(n / bucket_size).
/// x' = sign * norm * level / s. Aggregation allgather.
/// Parameters: levels (127, 1..32767), bucket_size (128; 0 = whole tensor), seed (0).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "compressors/factories.hpp"
#include "compressors/rng.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

constexpr std::size_t kChunk = 256;

int code_bits(std::int64_t levels) { return 1 + std::bit_width(static_cast<std::uint64_t>(levels)); }

// ||bucket||_2 in fp32 (as GRACE), eight lanes combined in a fixed order.
float bucket_norm(std::span<const float> x) {
  float lane[8] = {};
  const std::size_t full = x.size() / 8 * 8;
  for (std::size_t i = 0; i < full; i += 8) {
    for (std::size_t j = 0; j < 8; ++j) lane[j] += x[i + j] * x[i + j];
  }
  float total = ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  for (std::size_t i = full; i < x.size(); ++i) total += x[i] * x[i];
  return std::sqrt(total);
}

class Qsgd final : public Compressor {
 public:
  Qsgd(std::int64_t levels, std::int64_t bucket, std::uint64_t seed) : levels_(levels), bucket_(bucket), seed_(seed) {}
  std::string_view name() const override { return "qsgd"; }
  bool unbiased() const override { return true; }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    start_message(msg, grad, id, step, Aggregation::kAllGather);
    const std::size_t n = grad.size();
    const std::size_t bucket = bucket_size(n);
    const std::size_t buckets = bucket == 0 ? 0 : (n + bucket - 1) / bucket;
    const int b = code_bits(levels_);
    const std::size_t norm_bytes = 4 * buckets;
    const std::size_t code_bytes = wire::bit_bytes(static_cast<std::int64_t>(n) * b);
    msg.payload.resize(norm_bytes + code_bytes + 8);  // 8 spare bytes for the last packed word
    std::byte* codes = msg.payload.data() + norm_bytes;
    UniformStream rng(stream_seed(seed_, id, step));
    std::uint32_t u[kChunk];
    std::uint16_t q[kChunk];
    const auto s = static_cast<float>(levels_);
    const std::uint32_t sign_bit = 1u << (b - 1);
    std::uint64_t acc = 0;
    int fill = 0;
    std::size_t out_byte = 0;
    for (std::size_t k = 0; k < buckets; ++k) {
      const std::size_t lo = k * bucket, hi = std::min(n, lo + bucket);
      const float norm = bucket_norm(grad.subspan(lo, hi - lo));
      std::memcpy(msg.payload.data() + 4 * k, &norm, 4);
      const float inv = norm > 0.0f && std::isfinite(norm) ? s / norm : 0.0f;
      for (std::size_t base = lo; base < hi; base += kChunk) {
        const std::size_t m = std::min(kChunk, hi - base);
        rng.fill(std::span(u, (m + UniformStream::kLanes - 1) / UniformStream::kLanes * UniformStream::kLanes));
        const float* x = grad.data() + base;
        auto code = [&](std::size_t j) {
          float l = std::fabs(x[j]) * inv;
          l = l < s ? l : s;  // also maps NaN to s
          const auto lf = static_cast<std::int32_t>(l);
          const float frac = l - static_cast<float>(lf);
          const float draw = static_cast<float>(static_cast<std::int32_t>(u[j] >> 8)) * 0x1p-24f;
          return static_cast<std::uint32_t>(lf + (draw < frac ? 1 : 0)) | (x[j] < 0.0f ? sign_bit : 0u);
        };
        if (b == 8) {  // one byte per code: no bit stream needed
          auto* dst = reinterpret_cast<std::uint8_t*>(codes + out_byte);
          for (std::size_t j = 0; j < m; ++j) dst[j] = static_cast<std::uint8_t>(code(j));
          out_byte += m;
          continue;
        }
        for (std::size_t j = 0; j < m; ++j) q[j] = static_cast<std::uint16_t>(code(j));
        for (std::size_t j = 0; j < m; ++j) {
          acc |= static_cast<std::uint64_t>(q[j]) << fill;
          fill += b;
          if (fill >= 32) {
            const auto word = static_cast<std::uint32_t>(acc);
            std::memcpy(codes + out_byte, &word, 4);
            out_byte += 4;
            acc >>= 32;
            fill -= 32;
          }
        }
      }
    }
    if (b != 8) std::memcpy(codes + out_byte, &acc, 8);
    msg.payload.resize(norm_bytes + code_bytes);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    const std::size_t n = out.size();
    const std::size_t bucket = bucket_size(n);
    const std::size_t buckets = bucket == 0 ? 0 : (n + bucket - 1) / bucket;
    const int b = code_bits(levels_);
    const std::size_t code_bytes = wire::bit_bytes(static_cast<std::int64_t>(n) * b);
    DTSIM_CHECK(msg.payload.size() == 4 * buckets + code_bytes, "qsgd payload does not match the tensor");
    const std::byte* codes = msg.payload.data() + 4 * buckets;
    const std::uint32_t level_mask = (1u << (b - 1)) - 1u;
    std::uint64_t bit = 0;
    for (std::size_t k = 0; k < buckets; ++k) {
      const float unit = wire::get<float>(msg.payload, 4 * k) / static_cast<float>(levels_);
      const std::size_t lo = k * bucket, hi = std::min(n, lo + bucket);
      if (b == 8) {
        const auto* c = reinterpret_cast<const std::uint8_t*>(codes) + lo;
        for (std::size_t i = 0; i < hi - lo; ++i) {
          const float mag = static_cast<float>(c[i] & 0x7fu) * unit;
          out[lo + i] = c[i] & 0x80u ? -mag : mag;
        }
        continue;
      }
      for (std::size_t i = lo; i < hi; ++i, bit += static_cast<std::uint64_t>(b)) {
        const std::size_t at = bit / 8;
        std::uint64_t word = 0;
        std::memcpy(&word, codes + at, std::min<std::size_t>(8, code_bytes - at));
        const auto code = static_cast<std::uint32_t>(word >> (bit % 8));
        const auto mag = static_cast<float>(code & level_mask) * unit;
        out[i] = (code & (level_mask + 1)) ? -mag : mag;
      }
    }
  }

 private:
  std::size_t bucket_size(std::size_t n) const { return bucket_ == 0 ? n : static_cast<std::size_t>(bucket_); }

  std::int64_t levels_;
  std::int64_t bucket_;
  std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<Compressor> make_qsgd(const Options& options) {
  OptionReader reader("compressor 'qsgd'", options);
  const auto levels = reader.integer("levels", 127, 1, 32767);
  const auto bucket = reader.integer("bucket_size", 128, 0, INT64_MAX);
  const auto seed = reader.integer("seed", 0, 0, INT64_MAX);
  reader.finish();
  return std::make_unique<Qsgd>(levels, bucket, static_cast<std::uint64_t>(seed));
}

}  // namespace dtsim::compressors
