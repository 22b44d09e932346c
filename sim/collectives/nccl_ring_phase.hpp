#pragma once
/// `nccl` for all-gather and reduce-scatter: NCCL's ncclAllGather and ncclReduceScatter, one ring phase on NCCL's
/// ring channels (nccl_rings; the ring is their only algorithm in NCCL's tuner, tuning.cc), the protocol (LL, LL128,
/// Simple) NCCL's tuner picks per size for that function (nccl_tune with NcclFunction::allgather or
/// reduce_scatter: p-1 steps, algBw = busBw x p/(p-1)). As NcclAllreduce's ring: every chunk on the wire at the
/// protocol's efficiency, NCCL's latency term beyond the p-1 steps' link latencies, the per-call time and the
/// buffers' time (n + n/p bytes per GPU) spread evenly over the p-1 steps.
///
///   ring c, place r sends in step k (0 .. p-2) chunk (r - k) mod p of its channel's share
///
/// `bytes` is nccl-tests' size: the whole vector, which all-gather gives every rank and reduce-scatter takes from
/// every rank (each rank's block is bytes / p).
/// Closed form: (p-1) (alpha + wire(n / (p C)) beta + step latency), C rings each on links of its own, the
/// inter-node alpha-beta once the ring spans nodes.
#include "sim/collectives/collective.hpp"
#include "sim/collectives/nccl_tuned.hpp"
#include "sim/collectives/nccl_tuning.hpp"
#include "sim/collectives/ring_halves.hpp"

namespace dtsim::collectives {

/// NCCL's all-gather or reduce-scatter (`function`).
class NcclRingPhase final : public Collective, public NcclTuned {
 public:
  /// `function`: NcclFunction::allgather or reduce_scatter; `tuned_for`: the network NCCL's tuner sees; `force`:
  /// NCCL_PROTO (NCCL_ALGO applies to the all-reduce only).
  NcclRingPhase(NcclFunction function, const LinkCosts& tuned_for, NcclForce force = {});
  std::string_view name() const override { return "nccl"; }
  /// The (ring, protocol) used for `bytes` bytes over `group`.
  NcclChoice chosen(const Group& group, double bytes) const;
  Schedule plan(const Group& group, std::int64_t bytes) const override;
  std::optional<std::vector<FusedStep>> fused_plan(const Group& group, std::int64_t bytes) const override;
  std::optional<double> plan_time_s(const Group& group, std::int64_t bytes, const core::PathModel& network) const override;
  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override;
  bool charges_launch() const override { return true; }
  std::string choice_name(const Group& group, double bytes) const override { return chosen(group, bytes).name(); }
  std::optional<double> model_s(const Group& group, double bytes) const override;

 private:
  /// The protocol's wire efficiency and each step's share of the extra time, for `bytes`.
  PhaseWire wire(const Group& group, double bytes) const;
  NcclFunction function_;
  LinkCosts tuned_for_;
  NcclForce force_;
};

}  // namespace dtsim::collectives
