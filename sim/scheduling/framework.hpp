#pragma once
/// The framework that carries a scheduler's buckets to the collective library, and what it costs per operation:
/// Horovod's background cycle, its negotiation and its fusion-buffer copies (Sergeev & Del Balso 2018; horovod/
/// common/operations.cc, controller.cc, ops/nccl_operations.cc), PyTorch DDP's copies of the gradients into its
/// flat buckets and back (Li et al., VLDB 2020; torch/csrc/distributed/c10d/reducer.cpp), or none (the scheduler's
/// buckets go to the library as they are).
///
///   background    [negotiate]                 [negotiate]     (Horovod: one round per cycle, beside the stream)
///   data stream              [copy in][ all-reduce of the fused buffer ][copy out]
///                            |<before>|                                 |<after->|   not before the round's end
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scheduling/bucket.hpp"
#include "sim/scheduling/copy_costs.hpp"
#include "sim/scheduling/scheduling_input.hpp"

namespace dtsim::scheduling {

/// The frameworks' tunables, with their sources' defaults.
struct FrameworkOptions {
  /// HOROVOD_FUSION_THRESHOLD: 64 MiB in Horovod 0.13 to 0.20 (operations.cc, "SetTensorFusionThresholdBytes(64 *
  /// 1024 * 1024)"; docs/tensor-fusion.md "Default fusion buffer size is 64 MB"); 0 disables fusion.
  std::int64_t horovod_fusion_threshold_bytes = 64 * 1048576;
  /// HOROVOD_CYCLE_TIME: 5 ms in Horovod 0.13 to 0.20 (operations.cc, "SetCycleTimeMs(5)"); 0: no sleep.
  double horovod_cycle_s = 5e-3;
  /// HOROVOD_CACHE_CAPACITY > 0 (1024 by default since 0.16): ranks agree on cached tensors by two bit-vector
  /// all-reduces; 0 (false): every cycle the coordinator gathers every rank's requests and broadcasts the responses.
  bool horovod_response_cache = true;
};

/// What the framework's operations cost on the target, priced by the driver from the GPU and the platform.
struct FrameworkCosts {
  /// The copies' costs (a copy of n bytes reads and writes them).
  CopyCosts copy;
  /// Horovod: one negotiation round of its background thread (with the response cache, its two bit-vector
  /// all-reduces among all ranks, CacheCoordinator::sync: CrossRankBitwiseAnd and CrossRankBitwiseOr; without, the
  /// coordinator's gather of the requests and broadcast of the responses, controller.cc ComputeResponseList).
  double negotiation_s = 0;
  /// Seconds to copy `bytes` in `kernels` kernels issued back to back (CopyCosts::seconds of 2 x bytes).
  double copy_s(std::int64_t bytes, std::size_t kernels) const {
    return copy.seconds(2.0 * static_cast<double>(bytes), kernels);
  }
};

/// A framework: the buckets the library is handed, each with the framework's work around its exchange.
class Framework {
 public:
  virtual ~Framework() = default;
  /// Registry key, e.g. "horovod".
  virtual std::string_view name() const = 0;
  /// The collective calls that carry the scheduler's `buckets` (launch order) and their framework_before_s and
  /// framework_after_s.
  virtual std::vector<Bucket> carry(std::vector<Bucket> buckets, const SchedulingInput& input,
                                    const FrameworkCosts& costs) const = 0;
};

/// Registry keys of the frameworks, in registry order.
std::vector<std::string> framework_names();
/// One-line description of a framework.
std::string framework_description(std::string_view name);
/// The framework called `name` with `options`; throws core::InputError listing the known names.
std::unique_ptr<Framework> make_framework(std::string_view name, const FrameworkOptions& options = {});

}  // namespace dtsim::scheduling
