#pragma once
/// The one code path of the device kernels (the habit of pbrt-v4): per-element and per-block work is written
/// once as DTSIM_HOST_DEVICE functors `void operator()(Thread t) const`; nvcc launches them as CUDA kernels
/// (device/cuda/launch_cuda.cuh), the CPU build walks the same grid of blocks and threads (device/launch_cpu.hpp). Kernels
/// never depend on the order in which threads run: each writes its own outputs, counts go through
/// atomic_add (exact), and every floating-point reduction is split over the grid by `grid_for` alone, so the
/// CPU and the GPU add in the same order and give the same bits.
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define DTSIM_HOST_DEVICE __host__ __device__
#else
#define DTSIM_HOST_DEVICE
#endif

namespace dtsim::compressors {

/// Shape of a launch: `blocks` blocks of `threads` threads.
struct Grid {
  std::uint32_t blocks = 1;   ///< gridDim.x
  std::uint32_t threads = 1;  ///< blockDim.x
};

/// Threads per block of every launch (a multiple of the 32-thread warp).
constexpr std::uint32_t kThreads = 256;
/// Most blocks of a launch; more elements make each thread walk more of them.
constexpr std::uint32_t kMaxBlocks = 1024;

/// The grid for n elements (at least 16 per thread, at most kMaxBlocks blocks): a function of n only, so
/// the CPU launcher and the GPU split every reduction the same way.
inline Grid grid_for(std::int64_t n) {
  const std::int64_t per_block = 16 * std::int64_t{kThreads};
  std::int64_t blocks = (n + per_block - 1) / per_block;
  blocks = blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks);
  return {static_cast<std::uint32_t>(blocks), kThreads};
}

/// One thread of a launch: its block and thread index and the launch's shape.
struct Thread {
  std::uint32_t block = 0;    ///< blockIdx.x
  std::uint32_t thread = 0;   ///< threadIdx.x
  std::uint32_t blocks = 1;   ///< gridDim.x
  std::uint32_t threads = 1;  ///< blockDim.x
  /// Index of this thread in the whole grid.
  DTSIM_HOST_DEVICE std::int64_t global() const { return std::int64_t{block} * threads + thread; }
  /// Threads in the whole grid.
  DTSIM_HOST_DEVICE std::int64_t count() const { return std::int64_t{blocks} * threads; }
  /// First element of this thread in [0, n) split into one contiguous tile per block (a multiple of the block's
  /// threads), the threads of a block strided inside it: a warp reads consecutive elements on the GPU, and the
  /// CPU launcher's block stays in its tile.
  DTSIM_HOST_DEVICE std::int64_t tile_begin(std::int64_t n) const { return block * tile(n) + thread; }
  /// One past the last element of this thread's block tile (step: `threads`).
  DTSIM_HOST_DEVICE std::int64_t tile_end(std::int64_t n) const {
    const std::int64_t end = (std::int64_t{block} + 1) * tile(n);
    return end < n ? end : n;
  }
  /// First element of this thread's contiguous share of [0, n).
  DTSIM_HOST_DEVICE std::int64_t chunk_begin(std::int64_t n) const { return share(n, global()); }
  /// One past the last element of this thread's contiguous share of [0, n).
  DTSIM_HOST_DEVICE std::int64_t chunk_end(std::int64_t n) const { return share(n, global() + 1); }

 private:
  DTSIM_HOST_DEVICE std::int64_t tile(std::int64_t n) const {
    const std::int64_t per_block = (n + blocks - 1) / blocks;
    return (per_block + threads - 1) / threads * threads;
  }
  DTSIM_HOST_DEVICE std::int64_t share(std::int64_t n, std::int64_t g) const {
    const std::int64_t per = (n + count() - 1) / count();
    return g * per < n ? g * per : n;
  }
};

/// The bits of a float.
DTSIM_HOST_DEVICE inline std::uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
#endif
}

/// The float of some bits.
DTSIM_HOST_DEVICE inline float bits_float(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, 4);
  return f;
#endif
}

/// *p += v, atomically on the GPU (the CPU launcher runs one thread at a time).
DTSIM_HOST_DEVICE inline void atomic_add(unsigned long long* p, unsigned long long v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, v);
#else
  *p += v;
#endif
}

/// *p |= v, atomically on the GPU.
DTSIM_HOST_DEVICE inline void atomic_or(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  atomicOr(reinterpret_cast<unsigned int*>(p), v);
#else
  *p |= v;
#endif
}

}  // namespace dtsim::compressors
