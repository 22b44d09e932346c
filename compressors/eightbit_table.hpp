#pragma once
/// The dynamic tree data type of eightbit (compressors/eightbit.cpp) as the tables its host and device kernels
/// round with (element_codecs.hpp's eightbit_code).
#include <array>
#include <cstdint>
#include <vector>

namespace dtsim::compressors {

/// The 256 values, their midpoints, and the first midpoint of each bucket of the top 16 bits of a float.
struct EightBitTable {
  std::array<float, 256> values{};           ///< ascending; x' = values[code] * max|x|
  std::array<float, 255> midpoints{};        ///< (values[i] + values[i + 1]) / 2
  std::vector<std::uint8_t> start;           ///< 2^16 entries: midpoints below the bucket's lowest float
  std::uint8_t zero = 0;                     ///< the code of 0 (and of NaN)
};

/// The table, built once.
const EightBitTable& eightbit_table();

}  // namespace dtsim::compressors
