#pragma once
/// What issuing a kernel costs besides its work: the gap the GPU leaves between two kernels of one stream, and the
/// CPU time the framework spends to issue each one. The CPU issues kernels in program order, ahead of the GPU; a
/// kernel starts when the previous one has finished and the CPU has issued it, so a run of kernels shorter than
/// their dispatch is launch-bound (the GPU waits for the CPU).
///
/// Constants (the same for every GPU: the published figures are of one GPU each, named here):
/// - eager, gap 0.9 us: NVIDIA, "Getting Started with CUDA Graphs" (A. Gray, NVIDIA Technical Blog, 2019): a kernel
///   that runs 2.9 us takes 3.8 us per kernel when 20 are launched back to back on one stream (V100, CUDA 10.1).
/// - cuda_graphs, gap 0.5 us: the same blog, the same kernels replayed as one CUDA graph: 3.4 us per kernel.
/// - eager, dispatch 8 us per kernel: host-side submit time of one eager PyTorch CUDA op (add of 512 x 512), issued
///   back to back without synchronising, on an A100 (flagos-ai/Torch-FL pull request 27, "FlagGems Python vs vendor
///   dispatch-overhead microbenchmark", 2026, column cuda_sub); pytorch/pytorch issue 41383 measures 5 to 7 us per
///   op for the Python and autograd layers alone (CPU tensors, 2020).
/// - cuda_graphs, dispatch 0: a captured graph is replayed by one CPU call per graph (the blog above; PyTorch's
///   torch.cuda.CUDAGraph.replay), whose cost per iteration is not counted.
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::models {

/// How the framework issues kernels ([gpu] launch).
enum class LaunchMode {
  eager,        ///< one CPU dispatch per kernel (PyTorch eager mode)
  cuda_graphs,  ///< kernels replayed from a captured CUDA graph
};

/// Per-kernel costs of a launch mode.
struct LaunchCosts {
  double gap_s = 0;       ///< GPU time between two back-to-back kernels of one stream
  double dispatch_s = 0;  ///< CPU time to issue one kernel
};

/// The costs of `mode` (header).
LaunchCosts launch_costs(LaunchMode mode);
/// Names of the launch modes ("eager", "cuda_graphs").
std::vector<std::string> launch_mode_names();
/// Parses a launch mode; throws core::InputError listing the known ones.
LaunchMode parse_launch_mode(std::string_view name);

/// One CUDA stream fed by one CPU thread that issues its kernels in order (header).
class KernelStream {
 public:
  explicit KernelStream(LaunchCosts costs) : costs_(costs) {}
  /// Issues `kernels` kernels that share `work_s` of GPU work equally; returns how much later the stream finishes
  /// (their work, the gaps, and any wait for the CPU). Kernels < 1 add nothing.
  double issue(int kernels, double work_s);

 private:
  LaunchCosts costs_;
  double cpu_s_ = 0;  ///< when the CPU has issued everything so far
  double gpu_s_ = 0;  ///< when the stream has finished everything so far
};

}  // namespace dtsim::models
