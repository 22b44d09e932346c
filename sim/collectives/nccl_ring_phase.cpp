#include "sim/collectives/nccl_ring_phase.hpp"

#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {

NcclRingPhase::NcclRingPhase(NcclFunction function, const LinkCosts& tuned_for, NcclForce force)
    : function_(function), tuned_for_(tuned_for), force_(force) {
  DTSIM_CHECK(function == NcclFunction::allgather || function == NcclFunction::reduce_scatter,
              "NCCL's ring phase is its all-gather or reduce-scatter");
}

NcclChoice NcclRingPhase::chosen(const Group& group, double bytes) const {
  return nccl_tune(group, tuned_for_, bytes, force_, function_);
}

std::optional<double> NcclRingPhase::model_s(const Group& group, double bytes) const {
  if (group.ranks <= 1) return 0.0;
  return nccl_predicted_s(chosen(group, bytes), group, tuned_for_, bytes, function_);
}

PhaseWire NcclRingPhase::wire(const Group& group, double bytes) const {
  const NcclChoice c = chosen(group, bytes);
  const AlphaBeta link = flat_cost(group, tuned_for_);
  const double efficiency = nccl_channel_efficiency(c, group, tuned_for_, link.beta_s_per_byte, function_);
  DTSIM_CHECK(efficiency > 0, "LL128 capped on links of infinite bandwidth");
  const double steps = group.ranks - 1.0;
  const double extra_s = nccl_call_extra_s(tuned_for_, bytes + bytes / group.ranks,
                                           nccl_latency_s(c, group, bytes, function_), steps * link.alpha_s);
  return {efficiency, extra_s / steps};
}

Schedule NcclRingPhase::plan(const Group& group, std::int64_t bytes) const {
  if (group.ranks <= 1) return Schedule{group.ranks, {}};
  return ring_phase_plan(nccl_rings(group, tuned_for_), group.ranks, bytes, wire(group, static_cast<double>(bytes)));
}

std::optional<std::vector<FusedStep>> NcclRingPhase::fused_plan(const Group& group, std::int64_t bytes) const {
  if (group.ranks <= 1) return std::vector<FusedStep>{};
  return ring_phase_fused(nccl_rings(group, tuned_for_), group.ranks, bytes, wire(group, static_cast<double>(bytes)));
}

std::optional<double> NcclRingPhase::plan_time_s(const Group& group, std::int64_t bytes,
                                                 const core::PathModel& network) const {
  if (group.ranks <= 1) return 0.0;
  return ring_phase_time_s(nccl_rings(group, tuned_for_), group.ranks, bytes, network,
                           wire(group, static_cast<double>(bytes)));
}

double NcclRingPhase::closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const {
  if (group.ranks <= 1) return 0.0;
  const double p = group.ranks;
  const AlphaBeta link = flat_cost(group, costs);
  const PhaseWire w = wire(group, bytes);
  const double data = bytes / (p * nccl_ring_channels(group, tuned_for_));
  return (p - 1) * (w.step_latency_s + link.alpha_s + nccl_wire_bytes(data, w.efficiency) * link.beta_s_per_byte);
}

}  // namespace dtsim::collectives
