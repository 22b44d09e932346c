#pragma once
/// Little-endian payload helpers shared by the compressors: raw arrays, bit-packed flags and the
/// sparse (index, value) layout.
///
/// Sparse layout, c kept elements of an n-element tensor:
///   [c x int32 index, ascending (int64 when n >= 2^31)] [c x fp32 value]   = c * (4|8 + 4) bytes
/// Bit layout: bit i is bit (i % 8) of byte i / 8 (LSB first); ceil(n / 8) bytes.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace dtsim::compressors::wire {

static_assert(std::endian::native == std::endian::little, "payloads are written in host (little-endian) order");

/// Appends the raw bytes of `values` to `out`.
template <class T>
void put(std::vector<std::byte>& out, std::span<const T> values) {
  const auto* bytes = reinterpret_cast<const std::byte*>(values.data());
  out.insert(out.end(), bytes, bytes + values.size_bytes());  // no zero-fill before the copy
}

/// Appends one value to `out`.
template <class T>
void put_one(std::vector<std::byte>& out, T value) {
  put(out, std::span<const T>(&value, 1));
}

/// Reads the value of type T stored at byte offset `at`.
template <class T>
T get(std::span<const std::byte> in, std::size_t at) {
  T value;
  std::memcpy(&value, in.data() + at, sizeof(T));
  return value;
}

/// Bytes of one index on the wire for an n-element tensor: 4 when n < 2^31, else 8.
inline std::size_t index_bytes(std::int64_t n) { return n < (std::int64_t{1} << 31) ? 4 : 8; }

/// Bytes of `c` bit-packed flags.
inline std::size_t bit_bytes(std::int64_t c) { return static_cast<std::size_t>((c + 7) / 8); }

/// Appends `indices` as int32 (int64 when n >= 2^31).
void put_indices(std::vector<std::byte>& out, std::int64_t n, std::span<const std::int64_t> indices);

/// Appends the sparse layout of ascending `indices` and their `values` (tensor of n elements).
void put_sparse(std::vector<std::byte>& out, std::int64_t n, std::span<const std::int64_t> indices,
                std::span<const float> values);
/// Gathers grad[indices] into `values` (scratch, reused) and appends them with put_sparse: the last step of
/// every sparsifier (tensor of grad.size() elements).
void put_selected(std::vector<std::byte>& out, std::span<const float> grad, std::span<const std::int64_t> indices,
                  std::vector<float>& values);

/// Number of (index, value) pairs in a sparse payload of `bytes` bytes for an n-element tensor.
std::size_t sparse_count(std::size_t bytes, std::int64_t n);

/// Zeroes `out`, then adds every (index, value) pair of the sparse payload `in`.
void scatter_sparse(std::span<const std::byte> in, std::span<float> out);

/// Appends flags[i] (0 or 1) as bits, LSB first.
void put_bits(std::vector<std::byte>& out, std::span<const std::uint8_t> flags);

/// Sums of a tensor gathered while its signs are packed.
struct SignSums {
  double sum = 0.0;               ///< sum of x_i
  double sum_abs = 0.0;           ///< sum of |x_i|
  double sum_squares = 0.0;       ///< sum of x_i^2
  std::int64_t non_negative = 0;  ///< count of x_i >= 0
};

/// Appends 1[x[i] >= 0] as bits (NaN and negative values give 0) and returns the sums of x, in
/// one pass (SSE2 where available; the portable path gives the same bits and sums).
SignSums put_sign_bits(std::vector<std::byte>& out, std::span<const float> x);

/// Writes 1[x[i] >= 0] as bits (NaN and negative values give 0) to dst[0, bit_bytes(x.size())).
void pack_signs(std::span<const float> x, std::byte* dst);

/// Branch-free select that vectorises: c ? a : b.
inline std::uint32_t select(bool c, std::uint32_t a, std::uint32_t b) {
  const std::uint32_t m = 0u - static_cast<std::uint32_t>(c);
  return (a & m) | (b & ~m);
}

/// Expands bit-packed flags: out[i] = bit i ? high : low.
void expand_bits(std::span<const std::byte> bits, float low, float high, std::span<float> out);

}  // namespace dtsim::compressors::wire
