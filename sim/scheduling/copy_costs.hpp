#pragma once
/// What a framework's element-wise copies and casts cost on the GPU: one model for every framework (DDP's and
/// Horovod's bucket copies, sim/scheduling/framework.hpp; FSDP's and DeepSpeed's casts and copies around sharded
/// collectives, sim/parallel/framework.hpp). The driver prices it from the GPU profile: `Bps` is the HBM bandwidth
/// times memory_efficiency (0.8: streaming kernels reach about 90 % of peak DRAM bandwidth, framework element-wise
/// kernels less, models/gpu_profile.cpp), `dispatch_s` and `gap_s` the launch mode's (models/kernel_launch.hpp:
/// 8 us of eager dispatch, 0.9 us between kernels, each from its published measurement).
#include <algorithm>
#include <cstddef>

namespace dtsim::scheduling {

struct CopyCosts {
  double Bps = 0;         ///< bytes read plus written per second by an element-wise kernel
  double dispatch_s = 0;  ///< CPU time to issue one kernel
  double gap_s = 0;       ///< GPU time between two kernels of one stream
  /// Seconds of `kernels` kernels issued back to back that read and write `moved_bytes` in all (a copy of n bytes
  /// moves 2 n): bound by their CPU dispatch or by their work and gaps on the GPU, whichever is longer (a run of short
  /// kernels waits for the CPU).
  double seconds(double moved_bytes, std::size_t kernels) const {
    const auto k = static_cast<double>(kernels);
    return std::max(k * dispatch_s, k * gap_s + moved_bytes / Bps);
  }
};

}  // namespace dtsim::scheduling
