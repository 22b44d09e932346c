#pragma once
/// `optimal`: the bucketing of contiguous gradients that minimises the FIFO all-reduce end time.
#include "sim/scheduling/scheduler.hpp"

namespace dtsim::scheduling {

/// Dynamic programming over contiguous groups in backward order, in Shi et al.'s model (fifo_comm_end_s with
/// cost a + b M): best[j] = min over i < j of max(best[i], ready(j-1)) + a + b bytes(i..j-1). A later end of the
/// earlier groups never helps, so the recurrence is exact; O(N^2) for N gradients.
class Optimal final : public Scheduler {
 public:
  std::string_view name() const override { return "optimal"; }
  std::vector<Bucket> buckets(const SchedulingInput& input) const override;
};

}  // namespace dtsim::scheduling
