/// polar: the Polar-code lossy source coder of seed 002 (Tongji thesis, 2022; Korada & Urbanke,
/// IEEE Trans. IT 2010) applied to the sign bitplane of a scaled sign quantiser: bit i = 1[x_i < 0],
/// blocks of N bits (the last one padded with 0) are compressed to their K = round(rate * N)
/// non-frozen bits by successive cancellation with randomised rounding; the receiver rebuilds the
/// signs with the polar transform (flip rate ~ the distortion D(R, N)) and scales them by mean |x|.
/// Wire: [fp32 scale = mean |x|][ceil(B * K / 8) bytes: the K bits of block 0, block 1, ...,
/// LSB first], B = ceil(n / N); aggregation allgather.
/// Parameters: block (1024, power of two in [2, 65536]), rate (0.5, in (0, 1]),
/// design ("pypc" = py-polar-codes at snr_db | "ku" = BSC(D*) test channel), snr_db (5.0), seed (0).
#include <algorithm>
#include <bit>
#include <cmath>

#include "compressors/factories.hpp"
#include "compressors/reductions.hpp"
#include "compressors/polar_code.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

class Polar final : public Compressor {
 public:
  explicit Polar(const PolarSettings& p) : code_(p.code()), seed_(p.seed) {}
  std::string_view name() const override { return "polar"; }
  /// mean |x| (a reduction) and the sign bitplane (one kernel), then successive-cancellation encoding of every
  /// N-bit block (N log2 N node updates of the decoding tree, one kernel); the receiver's polar transform (N log2 N
  /// XORs) and the expansion of the signs.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const double bits = std::ceil(n / 8), stages = std::log2(static_cast<double>(code_.n()));
    const double blocks = std::ceil(n / static_cast<double>(code_.n())), padded = blocks * static_cast<double>(code_.n());
    const KernelWork encode_blocks{bits + wire, padded * stages, 1};
    const KernelWork transform{wire + bits, padded * stages, 1};
    return {kernel::reduction(n) + kernel::encode(n, bits) + encode_blocks, {}, transform + kernel::decode(n, bits)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    start_message(msg, grad, id, step, Aggregation::kAllGather);
    const std::size_t n = grad.size(), bn = code_.n(), bk = code_.k();
    const std::size_t blocks = (n + bn - 1) / bn;
    wire::put_one(msg.payload, n == 0 ? 0.0f : static_cast<float>(sum_abs(grad) / static_cast<double>(n)));
    std::vector<std::uint8_t> source(bn), kept(blocks * bk);
    Rng rng(stream_seed(seed_, id, step));
    for (std::size_t b = 0; b < blocks; ++b) {
      for (std::size_t i = 0; i < bn; ++i) source[i] = b * bn + i < n && grad[b * bn + i] < 0.0f;
      code_.compress(source, rng, std::span(kept).subspan(b * bk, bk));
    }
    wire::put_bits(msg.payload, kept);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    const std::size_t n = out.size(), bn = code_.n(), bk = code_.k();
    const std::size_t blocks = (n + bn - 1) / bn;
    DTSIM_CHECK(msg.payload.size() == 4 + wire::bit_bytes(static_cast<std::int64_t>(blocks * bk)),
                "polar payload does not match the tensor");
    const float scale = wire::get<float>(msg.payload, 0);
    std::vector<std::uint8_t> kept(bk), bits(bn);
    for (std::size_t b = 0; b < blocks; ++b) {
      for (std::size_t j = 0; j < bk; ++j) {
        const std::size_t at = b * bk + j;
        kept[j] = (static_cast<unsigned>(msg.payload[4 + at / 8]) >> (at % 8)) & 1u;
      }
      code_.decompress(kept, bits);
      for (std::size_t i = 0; i < bn && b * bn + i < n; ++i) out[b * bn + i] = bits[i] ? -scale : scale;
    }
  }

 private:
  PolarCode code_;
  std::uint64_t seed_;
};

}  // namespace

PolarSettings read_polar_settings(const Options& options) {
  OptionReader reader("compressor 'polar'", options);
  PolarSettings p;
  const auto block = reader.integer("block", 1024, 2, 65536);
  if (!std::has_single_bit(static_cast<std::uint64_t>(block))) {
    throw core::InputError("compressor 'polar': parameter 'block' = " + std::to_string(block) + " is not a power of two",
                           "allowed: 2, 4, 8, ..., 65536");
  }
  p.block = static_cast<std::size_t>(block);
  const double rate = reader.real("rate", 0.5, 0.0, 1.0, true);
  p.kept = std::clamp<std::size_t>(static_cast<std::size_t>(std::lround(rate * static_cast<double>(block))), 1, p.block);
  p.design = reader.choice("design", "pypc", {"pypc", "ku"}) == "pypc" ? PolarDesign::kPyPolar : PolarDesign::kBsc;
  p.snr_db = reader.real("snr_db", 5.0, -30.0, 30.0);
  p.seed = static_cast<std::uint64_t>(reader.integer("seed", 0, 0, INT64_MAX));
  reader.finish();
  return p;
}

std::unique_ptr<Compressor> make_polar(const Options& options) { return std::make_unique<Polar>(read_polar_settings(options)); }

}  // namespace dtsim::compressors
