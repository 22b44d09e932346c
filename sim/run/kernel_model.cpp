#include "sim/run/kernel_model.hpp"

namespace dtsim::run {

double kernel_seconds(const compressors::KernelWork& work, const models::GpuProfile& gpu) {
  return static_cast<double>(work.launches) * kKernelLaunch_s + work.bytes / (gpu.memory_Bps * gpu.memory_efficiency) +
         work.flops / (gpu.fp32_flops * gpu.compute_efficiency);
}

}  // namespace dtsim::run
