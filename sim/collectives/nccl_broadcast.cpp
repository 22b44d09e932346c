// `nccl` broadcast: NCCL's ncclBroadcast from rank 0 (nccl-tests' root), a pipelined chain along each ring channel
// (src/device/broadcast.h: the root sends, every other rank receives and forwards to its successor, the ring's last
// rank only receives), the protocol NCCL's tuner picks for the broadcast (nccl_tune, NcclFunction::broadcast).
//
//   channel c:  0 -> r1 -> r2 -> ... -> r(p-1)      ring c's order from the root, its wrap-around hop unused
//   step s:     place i sends segment s - i (0 <= s - i < k) of the channel's share to place i + 1
//
// Each channel carries its share of the vector in k segments of what one channel has in flight (nccl_tree_segments,
// as NcclAllreduce's tree), so the chain takes k + p - 2 steps; every segment on the wire at the protocol's
// efficiency, NCCL's latency term beyond those steps' link latencies, the per-call time and the buffers' time (n
// bytes per GPU) spread evenly over them. Closed form, the chain in rank order over N nodes (one channel, or channels
// on links of their own), a hop between nodes (cost b for a segment) no cheaper than one inside (a): the critical
// path stays on one hop between nodes while its k segments cross it and takes one step on every other hop,
//   (k + p - 2) step latency + (k + N - 2) b + (p - N) a,      a star (N = p): (k + p - 2) (latency + b).
#include <algorithm>
#include <cmath>

#include "sim/collectives/chunking.hpp"
#include "sim/collectives/factories.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/nccl_tuned.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

constexpr NcclFunction kBroadcast = NcclFunction::broadcast;

class NcclBroadcast final : public Collective, public NcclTuned {
 public:
  NcclBroadcast(const LinkCosts& tuned_for, NcclForce force) : tuned_for_(tuned_for), force_(force) {}
  std::string_view name() const override { return "nccl"; }
  bool charges_launch() const override { return true; }
  std::string choice_name(const Group& group, double bytes) const override { return chosen(group, bytes).name(); }
  std::optional<double> model_s(const Group& group, double bytes) const override {
    if (group.ranks <= 1) return 0.0;
    return nccl_predicted_s(chosen(group, bytes), group, tuned_for_, bytes, kBroadcast);
  }

  Schedule plan(const Group& group, std::int64_t bytes) const override {
    Schedule schedule{group.ranks, {}};
    if (group.ranks <= 1) return schedule;
    const Chain chain = shape(group, static_cast<double>(bytes));
    std::vector<std::vector<int>> rings = nccl_rings(group, tuned_for_);
    for (std::vector<int>& ring : rings) std::rotate(ring.begin(), std::find(ring.begin(), ring.end(), 0), ring.end());
    const int channels = static_cast<int>(rings.size()), p = group.ranks;
    for (int s = 0; s < chain.steps; ++s) {
      Step& step = schedule.steps.emplace_back();
      step.latency_s = chain.step_latency_s;
      for (int c = 0; c < channels; ++c) {
        const std::int64_t share = chunk_bytes(bytes, channels, c);
        const std::vector<int>& order = rings[static_cast<std::size_t>(c)];
        for (int i = std::max(0, s - chain.segments + 1); i <= std::min(s, p - 2); ++i)
          step.transfers.push_back({order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(i + 1)],
                                    static_cast<std::int64_t>(nccl_wire_bytes(
                                        static_cast<double>(chunk_bytes(share, chain.segments, s - i)), chain.efficiency))});
      }
    }
    return schedule;
  }

  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    if (group.ranks <= 1) return 0.0;
    const Chain chain = shape(group, bytes);
    const double segment =
        nccl_wire_bytes(bytes / (nccl_ring_channels(group, tuned_for_) * static_cast<double>(chain.segments)), chain.efficiency);
    // The critical path stays on the costliest hop while its segments cross it and takes one step on each other hop.
    const int nodes = group.nodes();
    const double intra_s = message_s(costs.intra, segment), inter_s = message_s(costs.inter, segment);
    const double hops_s = nodes == 1 ? chain.steps * intra_s
                                     : (chain.segments + nodes - 2) * inter_s + (group.ranks - nodes) * intra_s;
    return chain.steps * chain.step_latency_s + hops_s;
  }

 private:
  /// The chain's segments per channel, steps, wire efficiency and each step's share of the extra time.
  struct Chain {
    int segments = 1;
    int steps = 0;
    double efficiency = 1;
    double step_latency_s = 0;
  };

  NcclChoice chosen(const Group& group, double bytes) const {
    return nccl_tune(group, tuned_for_, bytes, force_, kBroadcast);
  }

  Chain shape(const Group& group, double bytes) const {
    const NcclChoice c = chosen(group, bytes);
    const AlphaBeta link = flat_cost(group, tuned_for_);
    const int channels = nccl_ring_channels(group, tuned_for_);
    Chain chain;
    chain.segments = nccl_tree_segments(std::ceil(bytes / channels), c.protocol);
    chain.steps = chain.segments + group.ranks - 2;
    chain.efficiency = nccl_channel_efficiency(c, group, tuned_for_, link.beta_s_per_byte, kBroadcast);
    DTSIM_CHECK(chain.efficiency > 0, "LL128 capped on links of infinite bandwidth");
    chain.step_latency_s = nccl_call_extra_s(tuned_for_, bytes, nccl_latency_s(c, group, bytes, kBroadcast, channels == 1),
                                             chain.steps * link.alpha_s) /
                           chain.steps;
    return chain;
  }

  LinkCosts tuned_for_;
  NcclForce force_;
};

}  // namespace

std::unique_ptr<Collective> make_nccl_broadcast(const LinkCosts& tuned_for, const NcclForce& force) {
  return std::make_unique<NcclBroadcast>(tuned_for, force);
}

}  // namespace dtsim::collectives
