#pragma once
/// Fixed-width codes in an LSB-first bit stream on the device (compressors/bit_codes.hpp's layout): a thread that
/// codes elements [8g, 8g + 8) with b-bit codes fills bytes [g b, (g + 1) b) by itself, so no two threads write
/// one byte; codes are read back through a window of three bytes (b <= 17). Streams of codes of other lengths
/// (Golomb positions, polar blocks) go through 32-bit words, a thread ORing in the words its bits share.
#include "compressors/device/kernels.hpp"
#include "compressors/philox.hpp"

namespace dtsim::compressors::device {

/// Appends b-bit codes from byte `at` on, a byte at a time.
struct CodeWriter {
  std::uint8_t* codes;
  std::int64_t at;
  int bits;
  std::uint64_t acc = 0;
  int fill = 0;
  /// Appends one code.
  DTSIM_HOST_DEVICE void put(std::uint32_t code) {
    acc |= std::uint64_t{code} << fill;
    for (fill += bits; fill >= 8; fill -= 8, acc >>= 8) codes[at++] = static_cast<std::uint8_t>(acc);
  }
  /// Writes the last, partial byte (the stream's end).
  DTSIM_HOST_DEVICE void finish() {
    if (fill > 0) codes[at] = static_cast<std::uint8_t>(acc);
  }
};

/// Codes elements [8g, 8g + 8) of [0, n) for every group g of thread t's tile into `codes`: element i gets
/// code(i, u), u = word i % 4 of Philox block i / 4 of the stream `key`.
template <class Code>
DTSIM_HOST_DEVICE void encode_groups(Thread t, std::int64_t n, int bits, std::uint8_t* codes, std::uint64_t key,
                                     const Code& code) {
  const std::int64_t groups = (n + 7) / 8;
  for (std::int64_t g = t.tile_begin(groups); g < t.tile_end(groups); g += t.threads) {
    const Philox4x32 u[2] = {philox_block(key, static_cast<std::uint64_t>(2 * g)),
                             philox_block(key, static_cast<std::uint64_t>(2 * g + 1))};
    CodeWriter w{codes, g * bits, bits};
    for (std::int64_t e = 0, i = 8 * g; e < 8 && i < n; ++e, ++i) w.put(code(i, u[e / 4].v[e % 4]));
    w.finish();
  }
}

/// The b-bit code i of a stream of `bytes` bytes.
DTSIM_HOST_DEVICE inline std::uint32_t read_code(const std::uint8_t* codes, std::int64_t bytes, std::int64_t i, int bits) {
  const std::int64_t bit = i * bits, at = bit / 8;
  std::uint32_t word = 0;
  for (std::int64_t b = 0; b < 3 && at + b < bytes; ++b) word |= std::uint32_t{codes[at + b]} << (8 * b);
  return (word >> (bit % 8)) & ((1u << bits) - 1u);
}

/// Writes bits LSB-first into zeroed 32-bit words from bit `bit` on, a word at a time.
struct BitWriter {
  std::uint32_t* words;
  unsigned long long bit;
  std::uint32_t acc = 0;
  /// Appends one bit.
  DTSIM_HOST_DEVICE void put(std::uint32_t one) {
    acc |= one << (bit % 32);
    if (++bit % 32 == 0) flush(bit / 32 - 1);
  }
  /// Writes the word in progress.
  DTSIM_HOST_DEVICE void finish() {
    if (bit % 32 != 0) flush(bit / 32);
  }

 private:
  DTSIM_HOST_DEVICE void flush(unsigned long long word) {
    if (acc != 0) atomic_or(&words[word], acc);
    acc = 0;
  }
};

/// to[i] = from[i] for i < n bytes.
struct CopyBytes {
  const std::byte* from;
  std::byte* to;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) to[i] = from[i];
  }
};

}  // namespace dtsim::compressors::device
