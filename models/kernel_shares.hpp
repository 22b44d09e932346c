#pragma once
/// Where each layer's compute time goes, by kind of kernel: the split behind layer_times (gpu_profile.hpp), which
/// the run report sums over a worker's compute (sim/run/time_by_class.hpp).
#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "models/gpu_profile.hpp"

namespace dtsim::models {

/// A kind of GPU time.
enum class KernelClass {
  gemm,         ///< matrix multiplies, and the layers the roofline times as compute-bound (convolutions)
  attention,    ///< fused attention (FlashAttention-2/3)
  elementwise,  ///< memory-bound layers (norms, activations, softmax, dropout, ...) and fp8 quantization
  optimizer,    ///< the optimizer step's memory traffic
  launch,       ///< what the stream adds beyond the kernels' work: gaps and waits for CPU dispatch (kernel_launch.hpp)
  measured,     ///< measured layer times (gpu.measured_layers), not split
};
inline constexpr std::size_t kKernelClasses = 6;
/// "GEMM", "attention", "element-wise", "optimizer", "launch/CPU", "measured".
std::string_view kernel_class_name(KernelClass c);

/// Seconds of one pass of one layer by KernelClass; they sum to the pass's time in layer_times.
using ClassTimes = std::array<double, kKernelClasses>;
/// A layer's passes by class.
struct LayerClassTimes {
  ClassTimes forward{};
  ClassTimes backward{};
  ClassTimes update{};
};

/// layer_times(model, gpu, batch_per_gpu, p, nullopt, optimizer, tensor, fp8_recipe) split by class.
std::vector<LayerClassTimes> layer_class_times(const Model& model, const GpuProfile& gpu, int batch_per_gpu,
                                               Precision p, const Optimizer& optimizer, int tensor = 1,
                                               Fp8Recipe fp8_recipe = Fp8Recipe::delayed);

}  // namespace dtsim::models
