// All-to-all as NCCL runs it (nccl-tests' alltoall, and what frameworks call for MoE dispatch and combine): one group
// of point-to-point calls, ncclSend and ncclRecv of each peer's chunk to and from every peer (nccl-tests
// src/alltoall.cu), which NCCL runs at once as one kernel over its p2p channels with the Simple protocol and no
// tuning (src/enqueue.cc). Each rank sends chunk q (chunk_bytes(n, p, q)) of its n bytes to rank q; its own
// chunk is a local copy, not on the wire.
//
// PXN (NCCL 2.12 and later, on unless NCCL_PXN_DISABLE=1; NVIDIA, "Doubling all2all Performance with NVIDIA
// Collective Communication Library 2.12", 2022): a send to another node leaves through the NIC the destination
// GPU uses, so that on a rail-optimised fabric it stays on the destination's rail. Where that NIC is not the
// sender's own, the sender writes the data over NVLink into a buffer of the local GPU of that NIC (the GPU with the
// destination's local index), whose proxy sends it:
//
//   node a: gpu i --NVLink--> gpu j ==NIC of gpu j==> node b: gpu j      (gpu_nic[i] != gpu_nic[j])
//
// Modelled on structured nodes with several NICs (LinkCosts::gpu_nic) for groups of whole nodes. NCCL pipelines the
// relay with the network send in chunks: the plan is one step in which every pair's transfers (direct chunks, the
// relays' NVLink writes and the relays' network sends, each pair's bytes summed) run together, so the time is the
// busiest links' and not the sum of the two hops. The buffers' time (2n bytes per GPU, LinkCosts::buffer_s_per_byte)
// is the step's latency. NCCL's tuner has no latency term for point-to-point calls, so the plan does not charge a
// launch (charges_launch false): a layout adds its collective launch cost to it, as to its all-gathers.
//
// Closed form (one GPU per node, or G GPUs on links to a node switch with one NIC per node, no relays):
//   max(alpha_intra + (p-1) c beta_intra,  alpha_inter + c max((p-1) beta_intra, G (p-G) beta_inter)),  c = n / p
// every GPU's link carrying its p-1 chunks at once and a node's NIC the G (p-G) chunks its GPUs send off the node
// (beta_inter: the route's bottleneck, there the NIC); the first term only where G > 1, the second where the group
// spans nodes.
#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "sim/collectives/chunking.hpp"
#include "sim/collectives/factories.hpp"
#include "sim/collectives/nccl_tuned.hpp"
#include "sim/collectives/phases.hpp"

namespace dtsim::collectives {
namespace {

class NcclAlltoall final : public Collective, public NcclTuned {
 public:
  NcclAlltoall(bool pxn, const LinkCosts& tuned_for) : pxn_(pxn), tuned_for_(tuned_for) {}
  std::string_view name() const override { return pxn_ ? "nccl" : "direct"; }
  std::string choice_name(const Group& group, double /*bytes*/) const override {
    return relays(group) ? "pxn/Simple" : "p2p/Simple";
  }
  std::optional<double> model_s(const Group& /*group*/, double /*bytes*/) const override { return std::nullopt; }

  Schedule plan(const Group& group, std::int64_t bytes) const override {
    const int p = group.ranks, g = group.ranks_per_node;
    Schedule schedule{p, {}};
    if (p <= 1) return schedule;
    Step& step = schedule.steps.emplace_back();
    step.latency_s = extra_s(static_cast<double>(bytes));
    if (!relays(group)) {
      for (int from = 0; from < p; ++from)
        for (int to = 0; to < p; ++to)
          if (to != from) step.transfers.push_back({from, to, chunk_bytes(bytes, p, to)});
      return schedule;
    }
    std::map<std::pair<int, int>, std::int64_t> pairs;
    for (int from = 0; from < p; ++from)
      for (int to = 0; to < p; ++to) {
        if (to == from) continue;
        const std::int64_t chunk = chunk_bytes(bytes, p, to);
        const int via = from / g * g + to % g;  // the local GPU with the destination's local index
        if (from / g != to / g && nic(from % g) != nic(to % g)) {
          pairs[{from, via}] += chunk;
          pairs[{via, to}] += chunk;
        } else {
          pairs[{from, to}] += chunk;
        }
      }
    for (const auto& [pair, sent] : pairs) step.transfers.push_back({pair.first, pair.second, sent});
    return schedule;
  }

  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    const double p = group.ranks, g = group.ranks_per_node;
    if (group.ranks <= 1) return 0.0;
    const double chunk = bytes / p;
    double time_s = 0;
    if (group.ranks_per_node > 1) time_s = costs.intra.alpha_s + (p - 1) * chunk * costs.intra.beta_s_per_byte;
    if (group.nodes() > 1)
      time_s = std::max(time_s, costs.inter.alpha_s + chunk * std::max((p - 1) * costs.intra.beta_s_per_byte,
                                                                        g * (p - g) * costs.inter.beta_s_per_byte));
    return extra_s(bytes) + time_s;
  }

 private:
  double extra_s(double bytes) const { return 2 * bytes * tuned_for_.buffer_s_per_byte; }
  int nic(int local) const { return tuned_for_.gpu_nic[static_cast<std::size_t>(local)]; }
  /// Whether PXN relays some of `group`'s sends: whole structured nodes of several NICs, several nodes.
  bool relays(const Group& group) const {
    if (!pxn_ || group.nodes() < 2 || group.ranks % group.ranks_per_node != 0 ||
        static_cast<int>(tuned_for_.gpu_nic.size()) != group.ranks_per_node)
      return false;
    return std::set<int>(tuned_for_.gpu_nic.begin(), tuned_for_.gpu_nic.end()).size() > 1;
  }

  bool pxn_;
  LinkCosts tuned_for_;
};

}  // namespace

std::unique_ptr<Collective> make_nccl_alltoall(const LinkCosts& tuned_for) {
  return std::make_unique<NcclAlltoall>(true, tuned_for);
}

std::unique_ptr<Collective> make_direct_alltoall(const LinkCosts& tuned_for) {
  return std::make_unique<NcclAlltoall>(false, tuned_for);
}

}  // namespace dtsim::collectives
