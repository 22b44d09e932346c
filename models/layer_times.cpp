/// Layer compute times: GEMMs by shape (gemm_time.hpp), every other layer by the roofline model (Williams, Waterman
/// and Patterson, "Roofline: an insightful visual performance model for multicore architectures", CACM 2009), and
/// their calibration.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "models/fp8_recipe.hpp"
#include "models/gemm_time.hpp"
#include "models/gpu_profile.hpp"
#include "sim/core/error.hpp"

namespace dtsim::models {
namespace {

std::string number(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

void check_fraction(const GpuProfile& gpu, const char* field, double value) {
  if (!(value > 0 && value <= 1)) {
    throw core::InputError("GPU '" + gpu.name + "' has " + field + " " + number(value),
                           "a fraction in (0, 1]");
  }
}

/// Forward and backward of a GEMM layer: the product, then the input gradient (m x k over n) and the weight gradient
/// (k x n over m); a split layer's times are the group's (`tensor` shares).
LayerTime gemm_layer_time(const Layer& layer, const GpuProfile& gpu, int batch, Precision p, int tensor) {
  const Gemm g = gpu_share(layer, batch, tensor);
  const double group = layer.split == TensorSplit::replicated ? 1.0 : tensor;
  LayerTime t;
  t.forward_s = group * gemm_time_s(g, gpu, p);
  t.backward_s = group * (gemm_time_s({g.m, g.k, g.n, g.count, g.batched}, gpu, p) +
                          gemm_time_s({g.k, g.n, g.m, g.count, g.batched}, gpu, p));
  return t;
}

/// The quantization kernels of `recipe` on an fp8 GEMM layer, as the GEMM is timed: one GPU's share times the group
/// under the wave model, the whole product under the roofline (which times the layer's FLOPs whole).
LayerTime fp8_cast_time(const Layer& layer, int batch, int tensor, bool waves, Fp8Recipe recipe, double byte_rate) {
  const int share = waves ? tensor : 1;
  const double group = waves && layer.split != TensorSplit::replicated ? tensor : 1.0;
  const Fp8CastBytes bytes = fp8_cast_bytes(gpu_share(layer, batch, share), recipe);
  return {group * bytes.forward / byte_rate, group * bytes.backward / byte_rate, 0};
}

}  // namespace

std::vector<LayerTime> layer_times(const Model& model, const GpuProfile& gpu, int batch_per_gpu, Precision p,
                                   std::optional<double> measured_iteration_s, const Optimizer& optimizer,
                                   int tensor, Fp8Recipe fp8_recipe) {
  if (batch_per_gpu < 1) {
    throw core::InputError("batch per GPU is " + std::to_string(batch_per_gpu), "a whole number >= 1");
  }
  if (measured_iteration_s && !(*measured_iteration_s > 0 && std::isfinite(*measured_iteration_s))) {
    throw core::InputError("measured iteration time is " + number(*measured_iteration_s) + " s",
                           "a finite time > 0");
  }
  if (tensor < 1) throw core::InputError("tensor-parallel group of " + std::to_string(tensor), "a whole number >= 1");
  check_fraction(gpu, "compute_efficiency", gpu.compute_efficiency);
  const bool waves =
      gpu.gemm_model == GemmModel::waves &&
      std::any_of(model.layers.begin(), model.layers.end(), [](const Layer& l) { return l.gemm.has_value(); });
  if (waves) check_fraction(gpu, "gemm_efficiency", gpu.gemm_efficiency);
  if (waves && gpu.sm_count < 1)
    throw core::InputError("GPU '" + gpu.name + "' has " + std::to_string(gpu.sm_count) + " SMs",
                           "an SM count >= 1 for gpu.gemm_model = \"waves\"");
  check_fraction(gpu, "memory_efficiency", gpu.memory_efficiency);
  if (!(gpu.memory_Bps > 0)) {
    throw core::InputError("GPU '" + gpu.name + "' has memory bandwidth " + number(gpu.memory_Bps) + " B/s",
                           "a bandwidth > 0");
  }
  if (p == Precision::fp8) {
    if (const std::string why = fp8_recipe_refusal(fp8_recipe, gpu); !why.empty())
      throw core::InputError(why, "gpu.fp8_recipe = \"delayed\" or \"current\"");
  }
  const double byte_rate = gpu.memory_Bps * gpu.memory_efficiency;
  const double batch = batch_per_gpu;

  std::vector<LayerTime> times;
  times.reserve(model.layers.size());
  double modelled_s = 0;  // the part calibration may scale
  double measured_s = 0;  // the part it may not
  for (const Layer& layer : model.layers) {
    const auto parameters = static_cast<double>(layer.parameter_count());
    LayerTime t;
    t.update_s = parameters * optimizer.update_bytes_per_parameter / byte_rate;
    if (layer.measured) {
      t.forward_s = layer.measured->forward_s;
      t.backward_s = layer.measured->backward_s;
      measured_s += t.forward_s + t.backward_s;
      modelled_s += t.update_s;
    } else {
      const bool fp8 = p == Precision::fp8 && runs_in_fp8(layer);
      const Precision lp = fp8 ? p : non_gemm_precision(p);
      if (layer.gemm && waves) {
        const LayerTime g = gemm_layer_time(layer, gpu, batch_per_gpu, lp, tensor);
        t.forward_s = g.forward_s;
        t.backward_s = g.backward_s;
      } else {
        const double flops = batch * layer.forward_flops;
        const double bytes = element_bytes(p) * (parameters + batch * layer.passes *
                                                                  static_cast<double>(layer.input_elements +
                                                                                      layer.output_elements));
        t.forward_s = std::max(flops / (gpu.peak_flops(lp) * gpu.compute_efficiency), bytes / byte_rate);
        t.backward_s = layer.backward_ratio * t.forward_s;
      }
      if (fp8) {
        const LayerTime cast = fp8_cast_time(layer, batch_per_gpu, tensor, waves, fp8_recipe, byte_rate);
        t.forward_s += cast.forward_s;
        t.backward_s += cast.backward_s;
      }
      modelled_s += t.forward_s + t.backward_s + t.update_s;
    }
    times.push_back(t);
  }
  if (!measured_iteration_s) return times;

  if (!(modelled_s > 0 && *measured_iteration_s > measured_s)) {
    throw core::InputError(
        "cannot calibrate model '" + model.name + "' to a measured iteration of " +
            number(*measured_iteration_s) + " s: its measured layers take " + number(measured_s) +
            " s and its modelled part " + number(modelled_s) + " s",
        "a measured iteration longer than the measured layers, on a model with modelled time");
  }
  const double scale = (*measured_iteration_s - measured_s) / modelled_s;
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
