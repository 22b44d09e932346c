#pragma once
/// The time of a matrix multiply as cuBLAS runs it on a GPU: C is cut into thread-block tiles, each SM computes one
/// tile at a time, and the tiles run in waves of one per SM (NVIDIA, "Matrix Multiplication Background User's Guide",
/// Deep Learning Performance documentation, DU-09799-001, 2023: section 2.3 for the tile sizes and their order of
/// efficiency, section 3 for tile and wave quantisation, with the A100's 108 SMs and its 256 x 128 tiles).
#include <cstdint>

#include "models/gpu_profile.hpp"

namespace dtsim::models {

/// A thread-block tile: the rows x cols block of C one SM computes at a time.
struct GemmTile {
  std::int64_t rows;
  std::int64_t cols;
};

/// cuBLAS's tile sizes from the most efficient (the most data reuse per loaded byte) to the least (guide, 2.3).
inline constexpr GemmTile kGemmTiles[] = {{256, 128}, {128, 256}, {128, 128}, {256, 64},
                                          {64, 256},  {128, 64},  {64, 128},  {64, 64}};

/// How one GEMM runs: its tile, how many tiles cover C (rounded up: tile quantisation) and in how many waves of one
/// tile per SM they run (rounded up: wave quantisation).
struct GemmTiling {
  GemmTile tile;
  std::int64_t tiles = 0;
  std::int64_t waves = 0;
};

/// The tiling of `g` on `sms` SMs: the most efficient tile whose grid fills at least one wave (larger tiles reuse
/// more data; smaller ones only pay when the larger leave SMs idle, guide 2.3), else the smallest. Throws
/// core::InputError on a shape or SM count below 1.
GemmTiling gemm_tiling(const Gemm& g, int sms);

/// The GEMM one GPU runs for matrix-multiply layer `layer` at `batch` samples, as its share of a tensor-parallel group
/// of `tensor` GPUs (Megatron-LM: column-parallel splits n, row-parallel k, sharded heads the products; rounded up).
Gemm gpu_share(const Layer& layer, int batch, int tensor);

/// k-steps each tile pays beyond its own k: the software pipeline's prologue, which loads kStages - 1 k-blocks before
/// the first multiply-accumulate can start. CUTLASS's default Ampere tensor-op GEMM (include/cutlass/gemm/device/
/// default_gemm_configuration.h, DefaultGemmConfiguration<OpClassTensorOp, Sm80>: threadblock 128 x 256 x 64,
/// kStages = 3) fills 2 x 64 = 128. It makes a small k dear (the attention's Q K^T over a head dimension of 128 runs
/// at half the rate of a long k) and costs a large one little (1 % at k = 12288). The same fill is used on every GPU
/// (Hopper's warp-specialised kernels overlap more of it: known error, docs/VALIDATION.md).
inline constexpr std::int64_t kPipelineFill_k = 128;

/// The tiles' part of gemm_time_s: waves x the time one SM takes for one tile at gemm_flops(p) / sm_count.
double gemm_compute_time_s(const Gemm& g, const GpuProfile& gpu, Precision p);
/// The memory part of gemm_time_s: A and B read and C written once at memory_Bps x memory_efficiency.
double gemm_memory_time_s(const Gemm& g, const GpuProfile& gpu, Precision p);

/// Time of `g` on `gpu` at `p`: waves x the time one SM takes for one tile (2 rows cols (k + kPipelineFill_k) FLOPs
/// at its share of peak x gemm_efficiency), or the time to read A and B and write C once at memory_Bps x
/// memory_efficiency, whichever is longer. A GEMM that fills whole waves with whole tiles over a long k runs at
/// gemm_efficiency of peak.
double gemm_time_s(const Gemm& g, const GpuProfile& gpu, Precision p);

}  // namespace dtsim::models
