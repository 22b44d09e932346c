/// Layer compute times: GEMMs by shape (gemm_time.hpp), fused attention from its measured throughput
/// (attention_time.hpp), every other layer by the roofline model (Williams, Waterman and Patterson, "Roofline: an
/// insightful visual performance model for multicore architectures", CACM 2009); each layer's kernels then pay their
/// launch costs on one stream (kernel_launch.hpp); and the calibration of it all.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <tuple>

#include "models/attention_time.hpp"
#include "models/fp8_recipe.hpp"
#include "models/gemm_time.hpp"
#include "models/gpu_profile.hpp"
#include "models/kernel_launch.hpp"
#include "models/kernel_shares.hpp"
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

/// One pass of one layer on one GPU: its kernels and their GPU work, before launch costs.
struct KernelRun {
  int kernels = 0;
  double work_s = 0;
};

/// A layer's passes on one GPU; its times are `group` times one GPU's (a split layer's are the tensor group's).
struct LayerWork {
  KernelRun forward;
  KernelRun backward;
  double group = 1;
  KernelClass kind = KernelClass::elementwise;  ///< of its work, but for the casts
  double cast_forward_s = 0;   ///< fp8 quantization in forward.work_s (element-wise)
  double cast_backward_s = 0;  ///< fp8 quantization in backward.work_s (element-wise)
};

/// Kernels of FlashAttention's backward: the dO . O preprocessing, the dQ dK dV kernel and the dQ conversion
/// (flash-attention csrc/flash_attn/src/flash_bwd_launch_template.h: flash_bwd_dot_do_o_kernel,
/// flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel, flash_bwd_convert_dq_kernel).
constexpr int kFlashBackwardKernels = 3;

bool split(const Layer& l) { return l.split != TensorSplit::replicated; }

/// Forward, then the input gradient (m x k over n) and the weight gradient (k x n over m), of one GPU's share.
LayerWork gemm_work(const Layer& layer, const GpuProfile& gpu, int batch, Precision p, int tensor) {
  const Gemm g = gpu_share(layer, batch, tensor);
  return {{1, gemm_time_s(g, gpu, p)},
          {2, gemm_time_s({g.m, g.k, g.n, g.count, g.batched}, gpu, p) +
                  gemm_time_s({g.k, g.n, g.m, g.count, g.batched}, gpu, p)},
          split(layer) ? static_cast<double>(tensor) : 1.0, KernelClass::gemm, 0, 0};
}

/// The fused attention core: one GPU's whole heads (Megatron-LM), timed from the kernel's measured throughput.
LayerWork attention_work(const Layer& layer, const Model& model, const GpuProfile& gpu, int batch, Precision p,
                         int tensor) {
  if (p != Precision::fp16 && p != Precision::bf16)
    throw core::InputError("FlashAttention at precision " + std::string(precision_name(p)),
                           "fp16 or bf16 (FlashAttention-2 and -3 have no fp32 kernels)");
  const std::int64_t width = layer.output_elements / model.tokens;
  const std::int64_t heads_per_gpu = (layer.heads + tensor - 1) / tensor;
  const AttentionShape shape{static_cast<double>(batch * heads_per_gpu), model.tokens, width / layer.heads,
                             model.causal};
  return {{1, attention_time_s(shape, gpu, p, layer.kernel, AttentionPass::forward)},
          {kFlashBackwardKernels, attention_time_s(shape, gpu, p, layer.kernel, AttentionPass::backward)},
          static_cast<double>(tensor), KernelClass::attention, 0, 0};
}

/// Any other layer by the roofline, its `passes` kernels forward and as many backward; one GPU's share of a split one.
/// `p`: the run's precision (its bytes); `compute`: the precision the layer computes in (its peak rate).
LayerWork roofline_work(const Layer& layer, const GpuProfile& gpu, double batch, Precision p, Precision compute,
                        int tensor) {
  const auto parameters = static_cast<double>(layer.parameter_count());
  const double flops = batch * layer.forward_flops;
  const double bytes = element_bytes(p) * (parameters + batch * layer.passes *
                                                            static_cast<double>(layer.input_elements +
                                                                                layer.output_elements));
  const double compute_s = flops / (gpu.peak_flops(compute) * gpu.compute_efficiency);
  const double whole = std::max(compute_s, bytes / (gpu.memory_Bps * gpu.memory_efficiency));
  const double group = split(layer) ? tensor : 1.0;
  return {{layer.passes, whole / group},
          {layer.passes, layer.backward_ratio * whole / group},
          group,
          compute_s >= whole && compute_s > 0 ? KernelClass::gemm : KernelClass::elementwise,
          0,
          0};
}

bool flash(const Layer& l) { return l.kernel == Kernel::flash_attention2 || l.kernel == Kernel::flash_attention3; }

/// Kernels of one optimizer step over the whole model: a fused multi-tensor kernel (PyTorch's
/// aten/src/ATen/native/cuda/MultiTensorApply.cuh, as Apex's multi_tensor_apply.cuh: at most depth_to_max_tensors
/// = {110, 64, 48, 36, 30} tensors for 1 to 5 lists and 320 blocks of 65536 elements per launch) over the weight,
/// gradient and optimizer-state lists, and under mixed precision a second one (two lists) that copies the fp32
/// master weights into the fp16/bf16 model weights (Megatron-LM's _copy_main_params_to_model_params,
/// multi_tensor_scale). Each layer is charged its share of them by its tensors.
double update_kernels(const Model& model, int state_words, bool mixed) {
  constexpr std::int64_t max_tensors[] = {110, 64, 48, 36, 30};
  constexpr std::int64_t max_elements = 320 * 65536;
  const std::int64_t tensors = model.tensor_count(), elements = model.parameter_count();
  auto launches = [&](int lists) {
    const std::int64_t per_launch = max_tensors[lists - 1];
    return static_cast<double>(
        std::max((tensors + per_launch - 1) / per_launch, (elements + max_elements - 1) / max_elements));
  };
  return launches(std::min(2 + state_words, 5)) + (mixed ? launches(2) : 0);
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

namespace {

/// layer_times before calibration; with `classes`, its split by KernelClass too.
std::vector<LayerTime> uncalibrated_times(const Model& model, const GpuProfile& gpu, int batch_per_gpu, Precision p,
                                          std::optional<double> measured_iteration_s, const Optimizer& optimizer,
                                          int tensor, Fp8Recipe fp8_recipe, std::vector<LayerClassTimes>* classes) {
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
  const LaunchCosts launch = gpu.kernel_launch_costs();
  // A step moves the optimizer's bytes per parameter; under mixed precision the fp32 master weights are then read
  // and written to the fp16/bf16 model weights (4 + 2 bytes per parameter).
  const bool mixed = p == Precision::fp16 || p == Precision::bf16 || p == Precision::fp8;
  const double update_bytes = optimizer.update_bytes_per_parameter + (mixed ? 6.0 : 0.0);

  std::vector<LayerWork> work(model.layers.size());
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const Layer& layer = model.layers[i];
    if (layer.measured) continue;
    // fp8 (Transformer Engine): the linear layers' GEMMs in fp8 with their quantization kernels; attention, norms
    // and element-wise layers in bf16.
    const bool fp8 = p == Precision::fp8 && runs_in_fp8(layer);
    const Precision lp = fp8 ? p : non_gemm_precision(p);
    if (flash(layer))
      work[i] = attention_work(layer, model, gpu, batch_per_gpu, lp, tensor);
    else if (layer.gemm && waves)
      work[i] = gemm_work(layer, gpu, batch_per_gpu, lp, tensor);
    else
      work[i] = roofline_work(layer, gpu, batch_per_gpu, p, lp, tensor);
    if (fp8) {
      const LayerTime cast = fp8_cast_time(layer, batch_per_gpu, tensor, waves, fp8_recipe, byte_rate);
      work[i].forward.work_s += cast.forward_s / work[i].group;
      work[i].backward.work_s += cast.backward_s / work[i].group;
      work[i].cast_forward_s = cast.forward_s / work[i].group;
      work[i].cast_backward_s = cast.backward_s / work[i].group;
      ++work[i].forward.kernels;
      ++work[i].backward.kernels;
    }
  }
  // One stream per GPU, fed in program order: the forward over the layers, then the backward in reverse.
  std::vector<LayerTime> times(model.layers.size());
  KernelStream stream(launch);
  for (std::size_t i = 0; i < model.layers.size(); ++i)
    if (!model.layers[i].measured)
      times[i].forward_s = work[i].group * stream.issue(work[i].forward.kernels, work[i].forward.work_s);
  for (std::size_t i = model.layers.size(); i-- > 0;)
    if (!model.layers[i].measured)
      times[i].backward_s = work[i].group * stream.issue(work[i].backward.kernels, work[i].backward.work_s);
  if (classes) classes->assign(model.layers.size(), {});

  const double step_kernels = update_kernels(model, optimizer.state_words, mixed);
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    const Layer& layer = model.layers[i];
    LayerTime& t = times[i];
    double step_memory_s = 0;
    if (layer.parameter_count() > 0) {
      const double kernels =
          step_kernels * static_cast<double>(layer.tensors.size()) / static_cast<double>(model.tensor_count());
      step_memory_s = static_cast<double>(layer.parameter_count()) * update_bytes / byte_rate;
      t.update_s = std::max(step_memory_s + kernels * launch.gap_s, kernels * launch.dispatch_s);
    }
    if (layer.measured) {
      t.forward_s = layer.measured->forward_s;
      t.backward_s = layer.measured->backward_s;
    }
    if (!classes) continue;
    LayerClassTimes& c = (*classes)[i];
    auto at = [](ClassTimes& times, KernelClass k) -> double& { return times[static_cast<std::size_t>(k)]; };
    at(c.update, KernelClass::optimizer) = std::min(step_memory_s, t.update_s);
    at(c.update, KernelClass::launch) = t.update_s - at(c.update, KernelClass::optimizer);
    if (layer.measured) {
      at(c.forward, KernelClass::measured) = t.forward_s;
      at(c.backward, KernelClass::measured) = t.backward_s;
      continue;
    }
    const LayerWork& w = work[i];
    for (auto [pass, run, cast, total] : {std::tuple{&c.forward, &w.forward, w.cast_forward_s, t.forward_s},
                                          std::tuple{&c.backward, &w.backward, w.cast_backward_s, t.backward_s}}) {
      at(*pass, w.kind) = w.group * (run->work_s - cast);
      at(*pass, KernelClass::elementwise) += w.group * cast;
      at(*pass, KernelClass::launch) = total - w.group * run->work_s;
    }
  }
  return times;
}

}  // namespace

std::vector<LayerTime> layer_times(const Model& model, const GpuProfile& gpu, int batch_per_gpu, Precision p,
                                   std::optional<double> measured_iteration_s, const Optimizer& optimizer,
                                   int tensor, Fp8Recipe fp8_recipe) {
  std::vector<LayerTime> times = uncalibrated_times(model, gpu, batch_per_gpu, p, measured_iteration_s, optimizer,
                                                    tensor, fp8_recipe, nullptr);
  if (!measured_iteration_s) return times;
  double modelled_s = 0;  // the part calibration may scale
  double measured_s = 0;  // the part it may not
  for (std::size_t i = 0; i < times.size(); ++i) {
    modelled_s += times[i].update_s;
    (model.layers[i].measured ? measured_s : modelled_s) += times[i].forward_s + times[i].backward_s;
  }
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

std::vector<LayerClassTimes> layer_class_times(const Model& model, const GpuProfile& gpu, int batch_per_gpu,
                                               Precision p, const Optimizer& optimizer, int tensor,
                                               Fp8Recipe fp8_recipe) {
  std::vector<LayerClassTimes> classes;
  uncalibrated_times(model, gpu, batch_per_gpu, p, std::nullopt, optimizer, tensor, fp8_recipe, &classes);
  return classes;
}

std::string_view kernel_class_name(KernelClass c) {
  constexpr std::string_view names[kKernelClasses] = {"GEMM",      "attention",  "element-wise",
                                                      "optimizer", "launch/CPU", "measured"};
  return names[static_cast<std::size_t>(c)];
}

}  // namespace dtsim::models
