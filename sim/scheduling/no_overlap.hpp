#pragma once
/// `none`: one all-reduce of all gradients after the whole backward pass (no overlap).
#include "sim/scheduling/scheduler.hpp"

namespace dtsim::scheduling {

/// One bucket holding every tensor, ready when the backward of layer 0 ends.
class NoOverlap final : public Scheduler {
 public:
  std::string_view name() const override { return "none"; }
  std::vector<Bucket> buckets(const SchedulingInput& input) const override;
};

}  // namespace dtsim::scheduling
