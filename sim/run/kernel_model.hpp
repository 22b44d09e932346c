#pragma once
/// The deterministic cost model of the compression kernels on the target GPU (compression.kernel_time = "model"):
/// the work a compressor declares (compressors/kernel_work.hpp) priced on a GPU profile,
///   t = launches * kKernelLaunch_s + bytes / (memory_Bps * memory_efficiency) + flops / (fp32_flops * compute_efficiency)
/// the memory passes at the bandwidth that memory-bound layers reach on that GPU (models/gpu_profile.hpp), the
/// products and transforms at the fp32 rate of its non-GEMM layers, and a fixed cost per kernel launch. The same
/// inputs give the same seconds on any host. Known error against published GPU measurements: docs/VALIDATION.md.
#include "compressors/kernel_work.hpp"
#include "models/gpu_profile.hpp"

namespace dtsim::run {

/// Cost of one kernel launch back to back on a stream, 3 us: the launch overhead of a null kernel "with recent
/// hardware and software" (NVIDIA developer forums, "Too much time for kernel launch latency", 2022, thread 233645,
/// the figure established there for CUDA 11 on Ampere). Eager frameworks add their own dispatch on top of it,
/// which the model leaves out (docs/VALIDATION.md).
inline constexpr double kKernelLaunch_s = 3e-6;

/// Seconds of `work` on `gpu`.
double kernel_seconds(const compressors::KernelWork& work, const models::GpuProfile& gpu);

}  // namespace dtsim::run
