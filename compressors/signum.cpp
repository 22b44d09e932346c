/// signum: signSGD with momentum, m = (1 - beta) g + beta m (first m = g), send sign(m)
/// (Bernstein et al., "signSGD with Majority Vote is Communication Efficient and Fault
/// Tolerant", ICLR 2019; GRACE's SignumCompressor).
/// Wire: [ceil(n / 8) bytes, bit i = 1[m_i >= 0]]; x' = +-1; aggregation majority_vote.
/// Parameters: momentum (0.9, in [0, 1)).
#include <algorithm>
#include <map>

#include "compressors/factories.hpp"
#include "compressors/simd.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

constexpr std::size_t kChunk = 4096;  // a multiple of 8: chunks fill whole bytes

// m = (1 - beta) g + beta m on m[0, count), asking for the next inputs ahead.
DTSIM_SIMD_BODY inline void update(float* m, const float* g, std::size_t count, float beta) {
  for (std::size_t i = 0; i < count; i += 16) {
    simd::prefetch_ahead(m + i);
    simd::prefetch_ahead(g + i);
  }
  for (std::size_t i = 0; i < count; ++i) m[i] = (1.0f - beta) * g[i] + beta * m[i];
}

class Signum final : public Compressor {
 public:
  explicit Signum(float beta) : beta_(beta) {}
  std::string_view name() const override { return "signum"; }
  /// The momentum update (reads m and g, writes m), then one sign-packing kernel; one unpacking kernel.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {kernel::pass(n, 8, 4) + kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    const std::uint64_t step = next_step(id);
    start_message(msg, grad, id, step, Aggregation::kMajorityVote);
    std::vector<float>& m = momentum_[id];
    const bool first = step == 0 || m.size() != grad.size();
    if (first) m.assign(grad.begin(), grad.end());
    msg.payload.resize(wire::bit_bytes(msg.numel));
    std::byte* bits = msg.payload.data();
    float* mm = m.data();
    const float* g = grad.data();
    const float beta = beta_;
    simd::dispatch([&]() DTSIM_SIMD_BODY {
      for (std::size_t lo = 0; lo < m.size(); lo += kChunk) {  // update and pack while the chunk is in cache
        const std::size_t count = std::min(m.size() - lo, kChunk);
        if (!first) update(mm + lo, g + lo, count, beta);
        wire::pack_signs(std::span<const float>(mm + lo, count), bits + lo / 8);
      }
    });
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    DTSIM_CHECK(msg.payload.size() == wire::bit_bytes(msg.numel), "signum payload does not match the tensor");
    wire::expand_bits(msg.payload, -1.0f, 1.0f, out);
  }

 private:
  float beta_;
  std::map<TensorId, std::vector<float>> momentum_;
};

}  // namespace

std::unique_ptr<Compressor> make_signum(const Options& options) {
  OptionReader reader("compressor 'signum'", options);
  const double beta = reader.real("momentum", 0.9, 0.0, 0.999999);
  reader.finish();
  return std::make_unique<Signum>(static_cast<float>(beta));
}

}  // namespace dtsim::compressors
