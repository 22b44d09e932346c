/// The roofline model of layer compute times (Williams, Waterman and Patterson, "Roofline: an insightful
/// visual performance model for multicore architectures", CACM 2009) and its calibration.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "models/gpu_profile.hpp"
#include "sim/core/error.hpp"

namespace dtsim::models {
namespace {

std::string number(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

double element_bytes(Precision p) { return p == Precision::fp16 || p == Precision::bf16 ? 2 : 4; }

void check_fraction(const GpuProfile& gpu, const char* field, double value) {
  if (!(value > 0 && value <= 1)) {
    throw core::InputError("GPU '" + gpu.name + "' has " + field + " " + number(value),
                           "a fraction in (0, 1]");
  }
}

}  // namespace

std::vector<LayerTime> layer_times(const Model& model, const GpuProfile& gpu, int batch_per_gpu, Precision p,
                                   std::optional<double> measured_iteration_s, const Optimizer& optimizer) {
  if (batch_per_gpu < 1) {
    throw core::InputError("batch per GPU is " + std::to_string(batch_per_gpu), "a whole number >= 1");
  }
  if (measured_iteration_s && !(*measured_iteration_s > 0 && std::isfinite(*measured_iteration_s))) {
    throw core::InputError("measured iteration time is " + number(*measured_iteration_s) + " s",
                           "a finite time > 0");
  }
  check_fraction(gpu, "compute_efficiency", gpu.compute_efficiency);
  check_fraction(gpu, "memory_efficiency", gpu.memory_efficiency);
  if (!(gpu.memory_Bps > 0)) {
    throw core::InputError("GPU '" + gpu.name + "' has memory bandwidth " + number(gpu.memory_Bps) + " B/s",
                           "a bandwidth > 0");
  }
  const double flop_rate = gpu.peak_flops(p) * gpu.compute_efficiency;
  const double byte_rate = gpu.memory_Bps * gpu.memory_efficiency;
  const double batch = batch_per_gpu;

  std::vector<LayerTime> times;
  times.reserve(model.layers.size());
  double roofline_s = 0;  // the part calibration may scale
  double measured_s = 0;  // the part it may not
  for (const Layer& layer : model.layers) {
    const auto parameters = static_cast<double>(layer.parameter_count());
    LayerTime t;
    t.update_s = parameters * optimizer.update_bytes_per_parameter / byte_rate;
    if (layer.measured) {
      t.forward_s = layer.measured->forward_s;
      t.backward_s = layer.measured->backward_s;
      measured_s += t.forward_s + t.backward_s;
      roofline_s += t.update_s;
    } else {
      const double flops = batch * layer.forward_flops;
      const double bytes =
          element_bytes(p) *
          (parameters + batch * static_cast<double>(layer.input_elements + layer.output_elements));
      t.forward_s = std::max(flops / flop_rate, bytes / byte_rate);
      t.backward_s = layer.backward_ratio * t.forward_s;
      roofline_s += t.forward_s + t.backward_s + t.update_s;
    }
    times.push_back(t);
  }
  if (!measured_iteration_s) return times;

  if (!(roofline_s > 0 && *measured_iteration_s > measured_s)) {
    throw core::InputError(
        "cannot calibrate model '" + model.name + "' to a measured iteration of " +
            number(*measured_iteration_s) + " s: its measured layers take " + number(measured_s) +
            " s and its modelled part " + number(roofline_s) + " s",
        "a measured iteration longer than the measured layers, on a model with modelled time");
  }
  const double scale = (*measured_iteration_s - measured_s) / roofline_s;
  for (std::size_t i = 0; i < times.size(); ++i) {
    LayerTime& t = times[i];
    t.update_s *= scale;
    if (!model.layers[i].measured) {
      t.forward_s *= scale;
      t.backward_s *= scale;
    }
  }
  return times;
}

}  // namespace dtsim::models
