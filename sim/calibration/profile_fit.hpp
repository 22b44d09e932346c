#pragma once
/// The GPU profile's per-kernel constants fitted to a PyTorch profiler trace (kineto_trace.hpp), each against the
/// model in models/ that uses it:
///   gemm_efficiency    GEMM operators (aten::mm, addmm, bmm, baddbmm): measured = gemm_compute_time_s at
///                      efficiency 1 / gemm_efficiency (gemm_time.hpp; the GEMMs it times as memory-bound are left out)
///   attention_scale    FlashAttention operators (aten::_flash_attention_forward/_backward, the SDPA flash ops):
///                      measured = attention_time_s at scale 1 / attention_scale (attention_time.hpp)
///   memory_efficiency  element-wise and normalisation operators: measured = bytes / (memory_Bps x memory_efficiency),
///                      bytes = every tensor input read once and one output the size of the largest written
///   launch_gap         mean gap between back-to-back kernels of a stream whose launch call had returned before the
///                      earlier kernel ended (the GPU, not the CPU, was the bottleneck; kernel_launch.hpp)
///   launch_dispatch    median time between consecutive launch calls of a CPU thread (intervals over 3 x the
///                      median are stalls: synchronisation, data loading, and are left out)
/// Each constant is the least-squares fit of measured = c x modelled over the operators (one operator's time = its
/// kernels' durations summed), weighted by time (c = sum(x y) / sum(x^2)); data made by the model is fitted exactly.
#include <string>
#include <vector>

#include "models/gpu_profile.hpp"
#include "sim/calibration/kineto_trace.hpp"

namespace dtsim::calibration {

/// One fitted constant and how well it explains what it was fitted to.
struct ConstantFit {
  std::string key;        ///< the gpu.* key: "gemm_efficiency"
  std::string what;       ///< "GEMM efficiency"
  double built_in = 0;    ///< the profile's value before the fit (seconds for launch costs)
  double fitted = 0;
  int points = 0;         ///< operators (or gaps, intervals) the fit used; 0: nothing to fit, not written
  int left_out = 0;       ///< of the family's, not usable (no recorded shape, memory-bound GEMM, fp8, stall, ...)
  double rms_relative_error = 0;  ///< of the fitted model against each point
  double max_relative_error = 0;
};

/// Everything `dtsim calibrate` fits to one trace.
struct ProfileFit {
  std::string trace;                      ///< path
  int steps = 1;
  models::GpuProfile fitted;              ///< the base profile with the fitted constants
  std::vector<ConstantFit> constants;     ///< gemm, attention, element-wise, launch gap, dispatch
  std::vector<std::pair<KernelFamily, double>> per_step_s;  ///< GPU time per step of each family present
  std::vector<std::pair<KernelFamily, int>> kernels;        ///< kernels of each family present
};

/// Fits `base`'s constants to `trace`; `precision` is that of operators whose "Input type" was not recorded.
/// Throws core::InputError when a fitted efficiency is above 1 (faster than `base`'s peak: another GPU?).
ProfileFit fit_profile(const KinetoTrace& trace, const models::GpuProfile& base, models::Precision precision);

/// The summary: per family the time per step, per constant the built-in and fitted values and the fit's error.
std::vector<std::string> describe_profile_fit(const ProfileFit& fit);

/// The calibration file a scenario names (gpu.calibration): `profile` and the fitted keys, the summary in comments.
std::string calibration_toml(const ProfileFit& fit);

/// The per-layer times of the "forward NAME" and "backward NAME" ranges (GPU time of the kernels launched inside,
/// per step) as the CSV gpu.measured_layers reads: layer,forward_ms,backward_ms. Throws core::InputError when
/// there are no such ranges or a layer has one pass and not the other.
std::string layer_times_csv(const KinetoTrace& trace);

}  // namespace dtsim::calibration
