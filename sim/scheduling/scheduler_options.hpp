#pragma once
/// The tunables of the schedulers, with the reference implementations' defaults.
#include <cstdint>

namespace dtsim::scheduling {

/// Options of every scheduler; each scheduler reads only its own.
struct SchedulerOptions {
  std::int64_t fusion_threshold_bytes = 128 * 1048576;  ///< Horovod >= 0.21 HOROVOD_FUSION_THRESHOLD
  double fusion_cycle_s = 1e-3;                         ///< Horovod >= 0.21 HOROVOD_CYCLE_TIME
  std::int64_t ddp_first_bucket_bytes = 1048576;        ///< PyTorch dist._DEFAULT_FIRST_BUCKET_BYTES
  std::int64_t ddp_bucket_cap_bytes = 25 * 1048576;     ///< PyTorch DDP bucket_cap_mb = 25
  std::int64_t partition_bytes = 4000000;               ///< ByteScheduler partition: 1,000,000 fp32 parameters
  std::int64_t credit_bytes = 16000000;                 ///< ByteScheduler credit: 4,000,000 fp32 parameters
};

}  // namespace dtsim::scheduling
