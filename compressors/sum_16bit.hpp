#pragma once
/// The all-reduce sum of 16-bit float payloads (fp16, bf16): decode every payload, add in fp32, encode once.
#include <cstdint>
#include <span>
#include <vector>

#include "compressors/compressor.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {

/// Sums `msgs` element-wise; `decompress(msg, floats)` decodes a payload, `encode(float)` rounds to 16 bits.
template <class Decompress, class Encode>
Compressed sum_16bit(std::span<const Compressed> msgs, Decompress&& decompress, Encode&& encode) {
  DTSIM_CHECK(!msgs.empty(), "reduce needs at least one message");
  Compressed sum = msgs.front();
  const std::size_t n = sum.payload.size() / 2;
  std::vector<float> acc(n, 0.0f), one(n);
  for (const Compressed& msg : msgs) {
    decompress(msg, one);
    for (std::size_t i = 0; i < n; ++i) acc[i] += one[i];
  }
  auto* dst = reinterpret_cast<std::uint16_t*>(sum.payload.data());
  for (std::size_t i = 0; i < n; ++i) dst[i] = encode(acc[i]);
  return sum;
}

}  // namespace dtsim::compressors
