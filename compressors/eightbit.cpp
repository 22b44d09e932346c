/// eightbit: 8-bit SGD with the dynamic tree data type (Dettmers, "8-Bit Approximations for Parallelism in Deep
/// Learning", ICLR 2016). After the sign bit, the run of zero bits up to the first one (the indicator) is a
/// decimal exponent 10^-e, e = 0..6, and the bits after the indicator split [0.1, 1] linearly, so the type
/// keeps a relative precision over seven decades where linear int8 keeps one. The 256 values are those of
/// bitsandbytes' create_dynamic_map(signed=True, max_exponent_bits=7, total_bits=8) (Dettmers' own code,
/// bitsandbytes/functional.py): for e = 6..0, the 2^(6-e) midpoints of linspace(0.1, 1, 2^(6-e) + 1) times
/// 10^-e and their negatives, plus 0 and 1 (computed here in double, rounded to fp32). A tensor is divided by
/// its max |x| and every element is rounded to the nearest value (ties to the lower one).
/// Wire: [fp32 max|x|][n x uint8 index into the ascending table]; x' = table[q] * max; aggregation allgather.
/// NaN elements are ignored by the max and encode as 0. No parameters.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <vector>

#include "compressors/eightbit_table.hpp"
#include "compressors/element_codecs.hpp"
#include "compressors/factories.hpp"
#include "compressors/reductions.hpp"
#include "compressors/wire.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

// The 256 values, ascending.
std::array<float, 256> dynamic_tree() {
  std::array<float, 256> table{};
  std::size_t at = 0;
  for (int i = 0; i < 7; ++i) {
    const int fractions = 1 << i;  // midpoints of 2^i + 1 boundaries
    const double scale = std::pow(10.0, i - 6);
    for (int j = 0; j < fractions; ++j) {
      const double lo = 0.1 + 0.9 * j / fractions, hi = 0.1 + 0.9 * (j + 1) / fractions;
      table[at++] = static_cast<float>(scale * (lo + hi) / 2.0);
      table[at++] = static_cast<float>(-scale * (lo + hi) / 2.0);
    }
  }
  table[at++] = 0.0f;
  table[at++] = 1.0f;
  std::sort(table.begin(), table.end());
  return table;
}

// The smallest float of a bucket of the top 16 bits: for negative values its lowest value has the largest magnitude.
float bucket_low(std::uint32_t bucket) {
  const std::uint32_t bits = bucket << 16;
  return (bits >> 31) ? std::bit_cast<float>(bits | 0xffffu) : std::bit_cast<float>(bits);
}

// Midpoints between neighbours: index = number of midpoints strictly below t (ties go to the lower value). The
// bucket starts let eightbit_code skip the binary search: the scan from start[bucket] passes the at most few
// midpoints inside the bucket (codes are at least 2^-7 relative apart above 1e-7, fewer below).
EightBitTable build_table() {
  EightBitTable t;
  t.values = dynamic_tree();
  for (std::size_t i = 0; i < t.midpoints.size(); ++i) t.midpoints[i] = (t.values[i] + t.values[i + 1]) / 2.0f;
  t.start.resize(std::size_t{1} << 16);
  for (std::uint32_t bucket = 0; bucket < t.start.size(); ++bucket)
    t.start[bucket] = static_cast<std::uint8_t>(
        std::lower_bound(t.midpoints.begin(), t.midpoints.end(), bucket_low(bucket)) - t.midpoints.begin());
  t.zero = static_cast<std::uint8_t>(std::lower_bound(t.values.begin(), t.values.end(), 0.0f) - t.values.begin());
  return t;
}

}  // namespace

const EightBitTable& eightbit_table() {
  static const EightBitTable table = build_table();
  return table;
}

namespace {

class EightBit final : public Compressor {
 public:
  std::string_view name() const override { return "eightbit"; }
  /// max |x| (a reduction), then one kernel rounding to the table; one table-lookup kernel.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    return {kernel::reduction(n) + kernel::encode(n, wire), {}, kernel::decode(n, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    const float top = max_abs(grad);
    const float inv = top > 0.0f ? 1.0f / top : 0.0f;
    wire::put_one(msg.payload, top);
    msg.payload.resize(4 + grad.size());
    const EightBitTable& t = eightbit_table();
    for (std::size_t i = 0; i < grad.size(); ++i)
      msg.payload[4 + i] = static_cast<std::byte>(eightbit_code(grad[i], inv, t.start.data(), t.midpoints.data(), t.zero));
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override {
    DTSIM_CHECK(msg.payload.size() == 4 + out.size(), "eightbit payload does not match the tensor");
    const float top = wire::get<float>(msg.payload, 0);
    const std::array<float, 256>& values = eightbit_table().values;
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = values[static_cast<std::uint8_t>(msg.payload[4 + i])] * top;
  }
};

}  // namespace

std::unique_ptr<Compressor> make_eightbit(const Options& options) {
  OptionReader("compressor 'eightbit'", options).finish();
  return std::make_unique<EightBit>();
}

}  // namespace dtsim::compressors
