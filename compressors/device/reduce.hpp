#pragma once
/// Reductions that give the same bits on every launcher: each thread folds its elements (Thread::tile_begin)
/// into an accumulator, then one thread merges the accumulators in thread order and finishes. The split
/// depends on n only (grid_for), so the CPU launcher and the GPU add the same numbers in the same order.
/// Acc: copyable (every thread starts from a copy of `init`, which may carry parameters), DTSIM_HOST_DEVICE
/// add(float) and merge(const Acc&); Finish: DTSIM_HOST_DEVICE operator()(const Acc&) const writing the results
/// to device memory.
#include "compressors/device/kernels.hpp"

namespace dtsim::compressors::device {

/// partial[g] = thread g's elements folded into an Acc.
template <class Acc>
struct FoldThreads {
  const float* x;
  Acc* partial;
  std::int64_t n;
  Acc init;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    Acc a = init;
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) a.add(x[i]);
    partial[t.global()] = a;
  }
};

/// One thread: the partials merged in order, then finish(total).
template <class Acc, class Finish>
struct MergeInOrder {
  const Acc* partial;
  std::int64_t partials;
  Finish finish;
  Acc init;
  DTSIM_HOST_DEVICE void operator()(Thread) const {
    Acc total = init;
    for (std::int64_t g = 0; g < partials; ++g) total.merge(partial[g]);
    finish(total);
  }
};

/// Reduces x[0, n) with accumulators copied from `init` into `partial` (resized) and runs `finish` on the total,
/// on launcher `Launch`.
template <class Launch, class Acc, class Finish>
void reduce(const float* x, std::int64_t n, DeviceBuffer<Acc>& partial, const Finish& finish, const Acc& init = {}) {
  const Grid grid = grid_for(n);
  partial.resize(std::size_t{grid.blocks} * grid.threads);
  Launch{}(grid, FoldThreads<Acc>{x, partial.data(), n, init});
  Launch{}(Grid{1, 1},
           MergeInOrder<Acc, Finish>{partial.data(), static_cast<std::int64_t>(partial.size()), finish, init});
}

/// max |x| (NaN ignored; exact in any order).
struct MaxAbs {
  float m = 0.0f;
  DTSIM_HOST_DEVICE void add(float x) {
    const float a = bits_float(float_bits(x) & 0x7fffffffu);
    m = a > m ? a : m;
  }
  DTSIM_HOST_DEVICE void merge(const MaxAbs& o) { m = o.m > m ? o.m : m; }
};

/// A Finish that stores the total (for the host to read back).
template <class Acc>
struct StoreTotal {
  Acc* total;
  DTSIM_HOST_DEVICE void operator()(const Acc& a) const { *total = a; }
};

/// The reduction of x[0, n) from `init` (through `partial`), read back to the host through `result` (resized).
template <class Launch, class Acc>
Acc reduce_to_host(Device& device, const float* x, std::int64_t n, DeviceBuffer<Acc>& partial,
                   DeviceBuffer<std::byte>& result, const Acc& init = {}) {
  result.resize(sizeof(Acc));
  reduce<Launch>(x, n, partial, StoreTotal<Acc>{reinterpret_cast<Acc*>(result.data())}, init);
  Acc a;
  device.to_host(&a, result.data(), sizeof(Acc));
  return a;
}

}  // namespace dtsim::compressors::device
