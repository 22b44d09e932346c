#pragma once
/// Schedulers turn "gradient of layer l is ready" into buckets launched on one FIFO communication stream.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scheduling/bucket.hpp"

namespace dtsim::scheduling {

/// A layer-wise communication scheduler.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  /// Registry key, e.g. "wfbp".
  virtual std::string_view name() const = 0;
  /// Buckets in launch order for tensors given in registration order (backward produces them in reverse).
  virtual std::vector<Bucket> buckets(const std::vector<GradientTensor>& tensors) const = 0;
};

/// Registry keys of the schedulers, in the order `dtsim list schedulers` prints them.
std::vector<std::string> scheduler_names();
/// One-line description of a scheduler, for `dtsim list schedulers`.
std::string scheduler_description(std::string_view name);
/// The scheduler called `name`; throws core::InputError listing the known names.
std::unique_ptr<Scheduler> make_scheduler(std::string_view name);

}  // namespace dtsim::scheduling
