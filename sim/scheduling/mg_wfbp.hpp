#pragma once
/// Merged-gradient WFBP (Shi, Chu, Li: INFOCOM'19, TPDS'21; HKBU-HPML/MG-WFBP distributed_optimizer.py).
#include "sim/scheduling/scheduler.hpp"

namespace dtsim::scheduling {

/// Walks the gradients in backward order keeping a current group whose all-reduce (cost a + b M, a and b of
/// the configured collective on the configured platform) would start at taoc = max(end of the previous
/// group, ready of its last member). The next gradient, ready at e, joins the group iff e - taoc < min(a, tc):
/// it is ready before the group's all-reduce would end and waiting for it costs less than one start-up a.
///
///   ready    l4      l3  l2            l1 l0
///   comm     [l4......]  [l3+l2 .......]  [l1+l0 ...]
class MgWfbp final : public Scheduler {
 public:
  std::string_view name() const override { return "mg_wfbp"; }
  std::vector<Bucket> buckets(const SchedulingInput& input) const override;
};

}  // namespace dtsim::scheduling
