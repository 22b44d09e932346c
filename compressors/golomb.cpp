#include "compressors/golomb.hpp"

#include <algorithm>
#include <bit>

#include "compressors/rng.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors::golomb {

int rice_bits(double density) {
  if (!(density > 0.0) || density >= 1.0) return 0;
  constexpr double kPhi = 1.6180339887498949;
  const double ratio = portable_log(kPhi - 1.0) / portable_log(1.0 - density);
  if (!(ratio >= 1.0)) return 0;
  return static_cast<int>(std::bit_width(static_cast<std::uint64_t>(std::min(ratio, 1e18))));  // 1 + floor(log2)
}

Budget budget(std::size_t n, double ratio) {
  if (n == 0) return {};
  const std::size_t kept = std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(n) * ratio));
  return {kept, rice_bits(static_cast<double>(kept) / static_cast<double>(n))};
}

std::size_t encode(std::vector<std::byte>& out, std::span<const std::int64_t> positions, int b) {
  const std::size_t start = out.size();
  std::size_t bit = 0;
  auto put = [&](bool one) {
    if (bit % 8 == 0) out.push_back(std::byte{0});
    if (one) out[start + bit / 8] |= static_cast<std::byte>(1u << (bit % 8));
    ++bit;
  };
  std::int64_t previous = -1;
  for (const std::int64_t position : positions) {
    const auto gap = static_cast<std::uint64_t>(position - previous - 1);
    previous = position;
    for (std::uint64_t q = gap >> b; q > 0; --q) put(true);
    put(false);
    for (int j = 0; j < b; ++j) put((gap >> j) & 1u);
  }
  return bit;
}

std::size_t decode(std::span<const std::byte> in, std::size_t start, std::size_t count, int b,
                   std::vector<std::int64_t>& positions) {
  positions.clear();
  std::size_t bit = 0;
  auto get = [&] {
    DTSIM_CHECK(start + bit / 8 < in.size(), "Golomb stream ends early");
    const bool one = (static_cast<unsigned>(in[start + bit / 8]) >> (bit % 8)) & 1u;
    ++bit;
    return one;
  };
  std::int64_t previous = -1;
  for (std::size_t k = 0; k < count; ++k) {
    std::uint64_t gap = 0;
    while (get()) gap += std::uint64_t{1} << b;
    for (int j = 0; j < b; ++j) gap |= static_cast<std::uint64_t>(get()) << j;
    previous += static_cast<std::int64_t>(gap) + 1;
    positions.push_back(previous);
  }
  return start + (bit + 7) / 8;
}

KernelWork encode_work(double c, double index_bytes, double wire) {
  const KernelWork lengths = kernel::pass(c, index_bytes, 4);
  const KernelWork scan{8 * c, 0, 2};
  const KernelWork codes = kernel::pass(c, index_bytes + 4, 0) + KernelWork{wire, 0, 0};
  return lengths + scan + codes;
}

KernelWork decode_work(double c, double index_bytes, double wire) { return KernelWork{wire, 0, 0} + kernel::pass(c, 0, index_bytes); }

}  // namespace dtsim::compressors::golomb

