#pragma once
/// Wait-free backpropagation (Zhang et al. 2017, Poseidon; Shi et al. 2019 timing model):
/// each tensor's all-reduce is queued as soon as its gradient is ready.
#include "sim/scheduling/scheduler.hpp"

namespace dtsim::scheduling {

/// One bucket per tensor, in reverse registration order (the order backward produces gradients).
class Wfbp final : public Scheduler {
 public:
  std::string_view name() const override { return "wfbp"; }
  std::vector<Bucket> buckets(const SchedulingInput& input) const override;
};

}  // namespace dtsim::scheduling
