#pragma once
/// Golomb-Rice position coding on the device (compressors/golomb.hpp's stream, bit for bit), for stc and sbc:
///   encode: each thread measures the code of its contiguous share of the positions ((gap >> b) + 1 + b bits a
///     position), one thread turns the shares into bit offsets, each thread writes its codes from its offset into
///     32-bit words (whole words by itself, the two words at the ends of its share with atomic_or).
///   decode: the stream is sequential, so one thread reads it (the payload holds k = n ratio positions).
#include "compressors/device/code_stream.hpp"

namespace dtsim::compressors::device {

/// The ascending indices at the start of a sparse payload (compressors/wire.hpp): int32, int64 when wide.
struct SparseIndices {
  const std::byte* sparse;
  bool wide;
  /// Index j.
  DTSIM_HOST_DEVICE std::int64_t operator[](std::int64_t j) const {
    return wide ? reinterpret_cast<const std::int64_t*>(sparse)[j] : reinterpret_cast<const std::int32_t*>(sparse)[j];
  }
  /// The gap before index j: i_j - i_(j-1) - 1, with i_(-1) = -1.
  DTSIM_HOST_DEVICE std::uint64_t gap(std::int64_t j) const {
    return static_cast<std::uint64_t>((*this)[j] - (j > 0 ? (*this)[j - 1] : -1) - 1);
  }
};

/// bits[g] = the length of the codes of thread g's share of the positions.
struct GolombLengths {
  SparseIndices at;
  std::int64_t count;
  int b;
  unsigned long long* bits;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    unsigned long long total = 0;
    for (std::int64_t j = t.chunk_begin(count); j < t.chunk_end(count); ++j) total += (at.gap(j) >> b) + 1 + b;
    bits[t.global()] = total;
  }
};

/// One thread: bits[g] becomes the exclusive prefix (the first bit of share g); *total = the stream's bits.
struct GolombOffsets {
  unsigned long long* bits;
  std::int64_t shares;
  unsigned long long* total;
  DTSIM_HOST_DEVICE void operator()(Thread) const {
    unsigned long long sum = 0;
    for (std::int64_t g = 0; g < shares; ++g) {
      const unsigned long long here = bits[g];
      bits[g] = sum;
      sum += here;
    }
    *total = sum;
  }
};

/// Thread g writes the codes of its share from bit offset[g]: q = gap >> b ones, a zero, the b low bits.
struct GolombWrite {
  SparseIndices at;
  std::int64_t count;
  int b;
  const unsigned long long* offset;
  std::uint32_t* words;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    BitWriter w{words, offset[t.global()]};
    for (std::int64_t j = t.chunk_begin(count); j < t.chunk_end(count); ++j) {
      const std::uint64_t gap = at.gap(j);
      for (std::uint64_t q = gap >> b; q > 0; --q) w.put(1u);
      w.put(0u);
      for (int k = 0; k < b; ++k) w.put(static_cast<std::uint32_t>(gap >> k) & 1u);
    }
    w.finish();
  }
};

/// One thread: the `count` positions of the stream of `bytes` bytes; bits past its end read as 0, so a short
/// stream ends the unary parts instead of reading on.
struct GolombDecode {
  const std::byte* stream;
  std::int64_t bytes;
  std::int64_t count;
  int b;
  std::int64_t* positions;
  DTSIM_HOST_DEVICE void operator()(Thread) const {
    std::int64_t bit = 0, previous = -1;
    auto get = [&] {
      const std::uint32_t one =
          bit / 8 < bytes ? (static_cast<std::uint32_t>(stream[bit / 8]) >> (bit % 8)) & 1u : 0u;
      ++bit;
      return one;
    };
    for (std::int64_t j = 0; j < count; ++j) {
      std::uint64_t gap = 0;
      while (get()) gap += std::uint64_t{1} << b;
      for (int k = 0; k < b; ++k) gap |= static_cast<std::uint64_t>(get()) << k;
      previous += static_cast<std::int64_t>(gap) + 1;
      positions[j] = previous;
    }
  }
};

/// out[positions[j]] = value, negated where sign bit j is set (signs null: never), for positions inside [0, n).
struct ScatterValue {
  const std::int64_t* positions;
  std::int64_t count;
  const std::uint8_t* signs;
  const float* value;
  float* out;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const float v = *value;
    for (std::int64_t j = t.tile_begin(count); j < t.tile_end(count); j += t.threads) {
      const std::int64_t i = positions[j];
      if (i < 0 || i >= n) continue;
      out[i] = signs && ((signs[j / 8] >> (j % 8)) & 1u) ? -v : v;
    }
  }
};

/// Encodes and decodes Golomb position streams on launcher `Launch`.
template <class Launch>
class GolombCoder {
 public:
  explicit GolombCoder(Device& device) : device_(device), bits_(device), total_(device), words_(device), positions_(device) {
    total_.resize(1);
  }
  /// Codes the `count` ascending indices of the sparse payload `sparse` with parameter b; returns the stream's bytes.
  std::int64_t encode(const std::byte* sparse, std::int64_t count, bool wide, int b) {
    bytes_ = 0;
    if (count == 0) return 0;
    const Grid grid = grid_for(count);
    const SparseIndices at{sparse, wide};
    bits_.resize(std::size_t{grid.blocks} * grid.threads);
    Launch{}(grid, GolombLengths{at, count, b, bits_.data()});
    Launch{}(Grid{1, 1}, GolombOffsets{bits_.data(), static_cast<std::int64_t>(bits_.size()), total_.data()});
    unsigned long long total = 0;
    device_.to_host(&total, total_.data(), sizeof total);
    words_.resize(static_cast<std::size_t>(total / 32 + 1));
    device_.zero(words_.data(), words_.size() * sizeof(std::uint32_t));
    Launch{}(grid, GolombWrite{at, count, b, bits_.data(), words_.data()});
    bytes_ = static_cast<std::int64_t>((total + 7) / 8);
    return bytes_;
  }
  /// Copies the stream of the last encode to `dst`.
  void copy_to(std::byte* dst) const {
    if (bytes_ > 0) Launch{}(grid_for(bytes_), CopyBytes{reinterpret_cast<const std::byte*>(words_.data()), dst, bytes_});
  }
  /// Expands a payload [uint32 count][fp32 value][Golomb positions with parameter b][count sign bits, when
  /// `signs`] of `bytes` bytes into out[0, n): +-value at the positions, 0 elsewhere.
  void expand(const std::byte* payload, std::size_t bytes, float* out, std::int64_t n, int b, bool signs) {
    if (n == 0) return;
    device_.zero(out, sizeof(float) * static_cast<std::size_t>(n));
    std::uint32_t count = 0;
    device_.to_host(&count, payload, sizeof count);
    const std::int64_t end = static_cast<std::int64_t>(bytes) - (signs ? (std::int64_t{count} + 7) / 8 : 0);
    if (count == 0) return;
    positions_.resize(count);
    Launch{}(Grid{1, 1}, GolombDecode{payload + 8, end - 8, count, b, positions_.data()});
    Launch{}(grid_for(count), ScatterValue{positions_.data(), count,
                                           signs ? reinterpret_cast<const std::uint8_t*>(payload + end) : nullptr,
                                           reinterpret_cast<const float*>(payload + 4), out, n});
  }

 private:
  Device& device_;
  DeviceBuffer<unsigned long long> bits_, total_;
  DeviceBuffer<std::uint32_t> words_;
  DeviceBuffer<std::int64_t> positions_;
  std::int64_t bytes_ = 0;
};

}  // namespace dtsim::compressors::device
