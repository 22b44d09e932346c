#pragma once
/// A PyTorch profiler trace (Kineto's Chrome trace JSON, torch.profiler's export_chrome_trace): the GPU kernels of a
/// few training steps, each with the CPU call that launched it and the operator around that call.
///
/// Events read ("ph": "X", times "ts" and "dur" in microseconds): "kernel", "gpu_memcpy" and "gpu_memset" on the GPU
/// ("pid" the device, "tid" the stream, args.correlation); "cuda_runtime" and "cuda_driver" calls on CPU threads
/// (args.correlation: the kernel they launched); "cpu_op" (args "Input Dims", "Input type" and "Concrete Inputs" when
/// recorded with record_shapes=True); "user_annotation" (record_function ranges: "ProfilerStep#N" counts the steps,
/// "forward NAME" / "backward NAME" time a layer). Other events (metadata, flows, python_function, ...) are skipped.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtsim::calibration {

/// What a GPU kernel does, from its name (kernel_family): the families dtsim's per-kernel time models time apart.
enum class KernelFamily { gemm, attention, nccl, optimizer, elementwise, memcpy, memset };
/// Every family, in report order.
inline constexpr KernelFamily kKernelFamilies[] = {KernelFamily::gemm,      KernelFamily::attention,
                                                   KernelFamily::elementwise, KernelFamily::optimizer,
                                                   KernelFamily::nccl,      KernelFamily::memcpy,
                                                   KernelFamily::memset};
/// "gemm", "attention", "elementwise", "optimizer", "nccl", "memcpy", "memset".
std::string family_name(KernelFamily f);
/// The family of a kernel event named `name` (a registry of name fragments, first match wins; kineto_trace.cpp):
/// nccl (nccl); attention (flash, fmha); optimizer (multi_tensor_apply, adam); gemm (gemm, sm80_xmma, sm90_xmma,
/// cutlass, nvjet, ampere_..., volta_...: cuBLAS and CUTLASS kernels); every other kernel is element-wise (element-wise,
/// normalisation, softmax, reductions: the kernels dtsim times by memory traffic).
KernelFamily kernel_family(const std::string& name);

/// An operator (cpu_op) with the shapes PyTorch recorded.
struct TraceOp {
  std::string name;                              ///< "aten::mm"
  std::vector<std::vector<std::int64_t>> dims;   ///< "Input Dims", one list per input ([] for a scalar)
  std::vector<std::string> types;                ///< "Input type", per input ("c10::BFloat16", "float", "")
  std::vector<std::string> concrete;             ///< "Concrete Inputs", per input ("True", "0.0", "")
};

/// One kernel (or memcpy/memset) on the GPU.
struct TraceKernel {
  std::string name;
  KernelFamily family = KernelFamily::elementwise;
  double start_s = 0;
  double end_s = 0;
  std::string stream;                  ///< "pid/tid": device and stream
  std::optional<double> launch_start_s;  ///< its cuda_runtime / cuda_driver launch call (absent: none recorded)
  double launch_end_s = 0;
  std::string launch_thread;           ///< "pid/tid" of that call
  int op = -1;                         ///< the innermost cpu_op around the launch call (index into ops), -1: none
  std::string layer_pass;              ///< the innermost "forward NAME" / "backward NAME" range around the call
};

/// The parts of a trace dtsim calibrates from.
struct KinetoTrace {
  std::string path;
  std::vector<TraceOp> ops;
  std::vector<TraceKernel> kernels;  ///< in start order
  int steps = 1;                     ///< "ProfilerStep#N" ranges; 1 when there are none (the trace is one step)
  std::vector<std::string> layer_ranges;  ///< distinct "forward NAME" / "backward NAME" ranges, first seen first
};

/// Reads a Kineto trace; bad JSON is core::InputError "path:line:col", a bad event "path: traceEvents[i] ...".
KinetoTrace read_kineto_trace(const std::string& path);

/// True when the file's first non-blank character is '{' (JSON): a trace, not a collective measurement.
bool looks_like_json(const std::string& path);

}  // namespace dtsim::calibration
