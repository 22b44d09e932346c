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
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "compressors/element_codecs.hpp"
#include "compressors/factories.hpp"
#include "compressors/rng.hpp"
#include "compressors/simd.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

// Draws are filled for up to kBlock elements at once; bucket k uses the draws from k * round8(bucket) on
// (each bucket starts a fresh group of UniformStream::kLanes draws).
constexpr std::size_t kBlock = 2048;

int code_bits(std::int64_t levels) { return 1 + std::bit_width(static_cast<std::uint64_t>(levels)); }

std::size_t round_to_lanes(std::size_t m) { return (m + UniformStream::kLanes - 1) / UniformStream::kLanes * UniformStream::kLanes; }

// The eight lanes of a bucket's sum of squares, combined in the order of qsgd_bucket_norm.
DTSIM_SIMD_BODY inline float lane_total(const float* lane) {
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// qsgd_bucket_norm, asking for the bucket's cache lines first.
DTSIM_SIMD_BODY inline float bucket_norm(const float* x, std::size_t m) {
  simd::prefetch_ahead(x, sizeof(float) * m);
  return qsgd_bucket_norm(x, static_cast<std::int64_t>(m));
}

// Codes (level | sign) of x[0, m) with the draws u[0, m).
DTSIM_SIMD_BODY inline void code_levels(const float* x, const std::uint32_t* u, std::size_t m, float inv, float s,
                                        std::uint32_t sign_bit, std::uint16_t* q) {
  for (std::size_t j = 0; j < m; ++j) {
    q[j] = static_cast<std::uint16_t>(static_cast<std::uint32_t>(qsgd_level(x[j], u[j], inv, s)) | (x[j] < 0.0f ? sign_bit : 0u));
  }
}

// The same codes as bytes, for 8-bit codes (levels < 128).
DTSIM_SIMD_BODY inline void byte_codes(const float* x, const std::uint32_t* u, std::size_t m, float inv, float s,
                                       std::uint8_t* dst) {
  for (std::size_t j = 0; j < m; ++j) dst[j] = static_cast<std::uint8_t>(qsgd_level(x[j], u[j], inv, s) | (x[j] < 0.0f ? 0x80 : 0));
}

#if defined(__x86_64__) && defined(__GNUC__)
// bucket_norm of four consecutive buckets of m elements (m a multiple of 8), lane j of each register
// being lane[j]: the four dependency chains overlap.
__attribute__((target("avx2"))) void bucket_norms4_avx2(const float* x, std::size_t m, float* norm) {
  __m256 sum[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  for (std::size_t i = 0; i < m; i += 8) {
    for (std::size_t k = 0; k < 4; ++k) {
      if (i % 16 == 0) simd::prefetch_ahead(x + k * m + i);
      const __m256 v = _mm256_loadu_ps(x + k * m + i);
      sum[k] = _mm256_add_ps(sum[k], _mm256_mul_ps(v, v));
    }
  }
  for (std::size_t k = 0; k < 4; ++k) {
    alignas(32) float lane[8];
    _mm256_store_ps(lane, sum[k]);
    norm[k] = std::sqrt(lane_total(lane));
  }
}

// byte_codes on eight lanes, the same arithmetic; returns how many elements it coded.
__attribute__((target("avx2"))) std::size_t byte_codes_avx2(const float* x, const std::uint32_t* u, std::size_t m,
                                                            float inv, float s, std::uint8_t* dst) {
  const __m256 vinv = _mm256_set1_ps(inv), vs = _mm256_set1_ps(s), unit = _mm256_set1_ps(0x1p-24f);
  const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)), zero = _mm256_setzero_ps();
  const __m256i sign = _mm256_set1_epi32(0x80), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  std::size_t j = 0;
  for (; j + 32 <= m; j += 32) {
    __m256i c[4];
    for (int k = 0; k < 4; ++k) {
      const __m256 v = _mm256_loadu_ps(x + j + 8 * k);
      const __m256 l = _mm256_min_ps(_mm256_mul_ps(_mm256_and_ps(v, magnitude), vinv), vs);  // NaN gives s
      const __m256i lf = _mm256_cvttps_epi32(l);
      const __m256 frac = _mm256_sub_ps(l, _mm256_cvtepi32_ps(lf));
      const __m256i r = _mm256_srli_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(u + j + 8 * k)), 8);
      const __m256 draw = _mm256_mul_ps(_mm256_cvtepi32_ps(r), unit);
      const __m256i up = _mm256_castps_si256(_mm256_cmp_ps(draw, frac, _CMP_LT_OQ));  // -1 rounds up
      const __m256i neg = _mm256_castps_si256(_mm256_cmp_ps(v, zero, _CMP_LT_OQ));
      c[k] = _mm256_or_si256(_mm256_sub_epi32(lf, up), _mm256_and_si256(neg, sign));
    }
    const __m256i bytes = _mm256_packus_epi16(_mm256_packs_epi32(c[0], c[1]), _mm256_packs_epi32(c[2], c[3]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + j), _mm256_permutevar8x32_epi32(bytes, order));
  }
  return j;
}
#endif

class Qsgd final : public Compressor {
 public:
  Qsgd(std::int64_t levels, std::int64_t bucket, std::uint64_t seed) : levels_(levels), bucket_(bucket), seed_(seed) {}
  std::string_view name() const override { return "qsgd"; }
  /// The bucket norms (a segmented reduction over every element), then one quantising and packing kernel; one
  /// unpacking kernel.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {kernel::reduction(n) + kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }
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
    std::byte* norms = msg.payload.data();
    std::byte* codes = msg.payload.data() + norm_bytes;
    UniformStream rng(stream_seed(seed_, id, step));
    const auto s = static_cast<float>(levels_);
    const std::uint32_t sign_bit = 1u << (b - 1);
    const float* x = grad.data();
    const std::size_t stride = round_to_lanes(bucket);
    const std::size_t group = std::max<std::size_t>(1, kBlock / std::max<std::size_t>(stride, 1));
    simd::dispatch([&]() DTSIM_SIMD_BODY {
      alignas(32) std::uint32_t u[kBlock];
      alignas(32) std::uint16_t q[kBlock];
      float inv[kBlock / UniformStream::kLanes];
      std::uint64_t acc = 0;
      int fill = 0;
      std::size_t out_byte = 0;
      for (std::size_t k0 = 0; k0 < buckets; k0 += group) {
        const std::size_t g = std::min(group, buckets - k0);
        float norm[kBlock / UniformStream::kLanes];
        std::size_t k = k0;
#if defined(__x86_64__) && defined(__GNUC__)
        if (simd::kHasAvx2 && bucket % 8 == 0) {
          for (; k + 4 <= k0 + g && (k + 4) * bucket <= n; k += 4) bucket_norms4_avx2(x + k * bucket, bucket, norm + (k - k0));
        }
#endif
        for (; k < k0 + g; ++k) {
          const std::size_t lo = k * bucket;
          norm[k - k0] = bucket_norm(x + lo, std::min(n, lo + bucket) - lo);
        }
        std::memcpy(norms + 4 * k0, norm, 4 * g);
        for (std::size_t j = 0; j < g; ++j) inv[j] = qsgd_inverse_unit(norm[j], s);
        if (g > 1) rng.fill(std::span(u, g * stride));
        for (k = k0; k < k0 + g; ++k) {
          const std::size_t lo = k * bucket, hi = std::min(n, lo + bucket);
          for (std::size_t base = lo; base < hi; base += kBlock) {  // several pieces only when g == 1
            const std::size_t m = std::min(kBlock, hi - base);
            const std::uint32_t* draws = u + (k - k0) * stride;
            if (g == 1) {
              rng.fill(std::span(u, round_to_lanes(m)));
              draws = u;
            }
            if (b == 8) {  // one byte per code: no bit stream needed
              auto* dst = reinterpret_cast<std::uint8_t*>(codes + out_byte);
              std::size_t done = 0;
#if defined(__x86_64__) && defined(__GNUC__)
              if (simd::kHasAvx2) done = byte_codes_avx2(x + base, draws, m, inv[k - k0], s, dst);
#endif
              byte_codes(x + base + done, draws + done, m - done, inv[k - k0], s, dst + done);
              out_byte += m;
              continue;
            }
            code_levels(x + base, draws, m, inv[k - k0], s, sign_bit, q);
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
      }
      if (b != 8) std::memcpy(codes + out_byte, &acc, 8);
    });
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
