#pragma once
/// Selection by magnitude on the device, for the sparsifiers (topk, threshold): keep every element whose
/// magnitude key (compressors/element_codecs.hpp) is above `threshold`, plus the first `ties` elements, in index
/// order, whose key equals it; write them in the sparse layout of compressors/wire.hpp in ascending index order.
///   radix select (topk): four 8-bit digit passes, most significant first, find the k-th largest key
///     (histogram with atomic counts, then one thread picks the digit); threshold = that key, ties = what is
///     left of k, so ties go to the lower index as in compressors/top_k_select.cpp.
///   compaction: each thread counts its contiguous chunk; one thread per block scans its threads, one thread
///     the blocks; each thread then writes its chunk's picks at their final position.
/// Counts are integers, so every launcher gives the same payload.
#include "compressors/device/kernels.hpp"
#include "compressors/element_codecs.hpp"

namespace dtsim::compressors::device {

/// The selection rule in device memory.
struct SelectState {
  std::uint32_t threshold = 0;  ///< keys above it are kept (radix select: the digits found so far)
  std::uint32_t mask = 0;       ///< radix select: the bits of threshold already decided
  unsigned long long ties = 0;  ///< kept elements whose key equals threshold (radix select: rank left)
  unsigned long long kept = 0;  ///< after the scan: elements kept
  std::uint32_t ceiling = 0x7fffffffu;  ///< keys above it are never kept (0x7f800000: NaN never kept)
};

/// Elements of one thread's chunk above the threshold and equal to it (after the scans: exclusive prefixes).
struct ChunkCounts {
  unsigned long long above = 0;  ///< key > threshold
  unsigned long long equal = 0;  ///< key == threshold
};

/// Radix select pass: hist[digit] += 1 for every key that matches the digits found so far.
struct RadixHistogram {
  const float* x;
  std::int64_t n;
  const SelectState* state;
  int shift;
  unsigned long long* hist;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const std::uint32_t prefix = state->threshold, mask = state->mask;
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) {
      const auto key = static_cast<std::uint32_t>(magnitude_key(float_bits(x[i])));
      if ((key & mask) == prefix) atomic_add(&hist[(key >> shift) & 255u], 1);
    }
  }
};

/// Radix select pass, one thread: the digit of the rank still sought, from the largest digit down.
struct RadixPick {
  const unsigned long long* hist;
  SelectState* state;
  int shift;
  DTSIM_HOST_DEVICE void operator()(Thread) const {
    unsigned long long rank = state->ties;
    for (int digit = 255; digit >= 0; --digit) {
      if (hist[digit] >= rank) {
        state->threshold |= static_cast<std::uint32_t>(digit) << shift;
        state->mask |= 255u << shift;
        break;
      }
      rank -= hist[digit];
    }
    state->ties = rank;
  }
};

/// Compaction, step 1: counts[g] for thread g's chunk.
struct CountChunk {
  const float* x;
  std::int64_t n;
  const SelectState* state;
  ChunkCounts* counts;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    ChunkCounts c;
    const auto threshold = static_cast<std::int32_t>(state->threshold);
    const auto ceiling = static_cast<std::int32_t>(state->ceiling);
    for (std::int64_t i = t.chunk_begin(n); i < t.chunk_end(n); ++i) {
      const std::int32_t key = magnitude_key(float_bits(x[i]));
      c.above += key > threshold && key <= ceiling ? 1 : 0;
      c.equal += key == threshold ? 1 : 0;
    }
    counts[t.global()] = c;
  }
};

/// Compaction, step 2: one thread per block (launched with one thread per block) turns its `threads` counts
/// into exclusive prefixes and writes the block's totals.
struct ScanBlockCounts {
  ChunkCounts* counts;
  ChunkCounts* totals;
  std::uint32_t threads;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    ChunkCounts sum;
    for (std::uint32_t j = 0; j < threads; ++j) {
      ChunkCounts& c = counts[std::int64_t{t.block} * threads + j];
      const ChunkCounts here = c;
      c = sum;
      sum.above += here.above;
      sum.equal += here.equal;
    }
    totals[t.block] = sum;
  }
};

/// Compaction, step 3, one thread: exclusive prefixes of the block totals, and the number kept.
struct ScanTotals {
  ChunkCounts* totals;
  std::uint32_t blocks;
  SelectState* state;
  DTSIM_HOST_DEVICE void operator()(Thread) const {
    ChunkCounts sum;
    for (std::uint32_t b = 0; b < blocks; ++b) {
      const ChunkCounts here = totals[b];
      totals[b] = sum;
      sum.above += here.above;
      sum.equal += here.equal;
    }
    state->kept = sum.above + (sum.equal < state->ties ? sum.equal : state->ties);
  }
};

/// Compaction, step 4: thread g writes the picks of its chunk as (index, value) at their final position.
struct WriteSelected {
  const float* x;
  std::int64_t n;
  const SelectState* state;
  const ChunkCounts* counts;
  const ChunkCounts* totals;
  std::byte* payload;
  bool wide;                 ///< int64 indices (n >= 2^31), else int32
  unsigned long long limit;  ///< the payload holds the first `limit` picks in index order
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const ChunkCounts& before = counts[t.global()];
    const ChunkCounts& block = totals[t.block];
    const auto threshold = static_cast<std::int32_t>(state->threshold);
    const auto ceiling = static_cast<std::int32_t>(state->ceiling);
    const unsigned long long ties = state->ties;
    unsigned long long equal = block.equal + before.equal;
    unsigned long long at = block.above + before.above + (equal < ties ? equal : ties);
    auto* values = reinterpret_cast<float*>(payload + limit * (wide ? 8 : 4));
    for (std::int64_t i = t.chunk_begin(n); i < t.chunk_end(n) && at < limit; ++i) {
      const std::int32_t key = magnitude_key(float_bits(x[i]));
      bool take = key > threshold && key <= ceiling;
      if (key == threshold) take = equal++ < ties;
      if (!take) continue;
      if (wide)
        reinterpret_cast<std::int64_t*>(payload)[at] = i;
      else
        reinterpret_cast<std::int32_t*>(payload)[at] = static_cast<std::int32_t>(i);
      values[at++] = x[i];
    }
  }
};

/// out[index_p] += value_p for the `count` pairs of a sparse payload onto zeros, as wire::scatter_sparse adds
/// (-0 becomes +0); indices are distinct, so no two threads add to one element.
struct ScatterPairs {
  const std::byte* payload;
  std::int64_t count;
  bool wide;
  float* out;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const auto* values = reinterpret_cast<const float*>(payload + count * (wide ? 8 : 4));
    for (std::int64_t p = t.tile_begin(count); p < t.tile_end(count); p += t.threads) {
      const std::int64_t i = wide ? reinterpret_cast<const std::int64_t*>(payload)[p]
                                  : reinterpret_cast<const std::int32_t*>(payload)[p];
      out[i] += values[p];
    }
  }
};

/// Device selection by magnitude and the sparse payload; the base of the sparsifiers' kernels.
template <class Launch>
class SparseKernels : public KernelsOn<Launch> {
 public:
  explicit SparseKernels(Device& device) : device_(device), state_(device), hist_(device), counts_(device), totals_(device) {
    state_.resize(1);
    hist_.resize(256);
  }
  Aggregation how() const override { return Aggregation::kAllGather; }
  void decompress(const std::byte* payload, std::size_t bytes, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {
    if (n == 0) return;
    device_.zero(out, sizeof(float) * static_cast<std::size_t>(n));
    const bool wide = n >= (std::int64_t{1} << 31);
    const auto count = static_cast<std::int64_t>(bytes / (wide ? 12 : 8));
    if (count > 0) Launch{}(grid_for(count), ScatterPairs{payload, count, wide, out});
  }

 protected:
  /// Sets the rule to "threshold < key <= ceiling" (as int32: -1 keeps everything up to the ceiling), no ties.
  void above(std::int32_t threshold, std::int32_t ceiling = 0x7fffffff) {
    const SelectState s{static_cast<std::uint32_t>(threshold), 0, 0, 0, static_cast<std::uint32_t>(ceiling)};
    device_.to_device(state_.data(), &s, sizeof s);
  }
  /// Sets the rule to the k largest keys of x[0, n), ties to the lower index (1 <= k <= n).
  void largest(const float* x, std::int64_t n, std::int64_t k) {
    const SelectState s{0, 0, static_cast<unsigned long long>(k), 0};
    device_.to_device(state_.data(), &s, sizeof s);
    for (int shift = 24; shift >= 0; shift -= 8) {
      device_.zero(hist_.data(), 256 * sizeof(unsigned long long));
      Launch{}(grid_for(n), RadixHistogram{x, n, state_.data(), shift, hist_.data()});
      Launch{}(Grid{1, 1}, RadixPick{hist_.data(), state_.data(), shift});
    }
  }
  /// The threshold of the rule (after largest: the k-th largest key).
  std::uint32_t threshold() {
    SelectState s;
    device_.to_host(&s, state_.data(), sizeof s);
    return s.threshold;
  }
  /// Counts the elements of x[0, n) the rule keeps (and prepares write).
  std::int64_t count(const float* x, std::int64_t n) {
    const Grid grid = grid_for(n);
    counts_.resize(std::size_t{grid.blocks} * grid.threads);
    totals_.resize(grid.blocks);
    Launch{}(grid, CountChunk{x, n, state_.data(), counts_.data()});
    Launch{}(Grid{grid.blocks, 1}, ScanBlockCounts{counts_.data(), totals_.data(), grid.threads});
    Launch{}(Grid{1, 1}, ScanTotals{totals_.data(), grid.blocks, state_.data()});
    SelectState s;
    device_.to_host(&s, state_.data(), sizeof s);
    return static_cast<std::int64_t>(s.kept);
  }
  /// After count: writes the first `c` kept elements (index order) of x[0, n) to `payload`.
  void write(const float* x, std::int64_t n, std::int64_t c, DeviceBuffer<std::byte>& payload) {
    const bool wide = n >= (std::int64_t{1} << 31);
    payload.resize(static_cast<std::size_t>(c) * (wide ? 12 : 8));
    if (c > 0)
      Launch{}(grid_for(n), WriteSelected{x, n, state_.data(), counts_.data(), totals_.data(), payload.data(), wide,
                                          static_cast<unsigned long long>(c)});
  }

 private:
  Device& device_;
  DeviceBuffer<SelectState> state_;
  DeviceBuffer<unsigned long long> hist_;
  DeviceBuffer<ChunkCounts> counts_, totals_;
};

}  // namespace dtsim::compressors::device
