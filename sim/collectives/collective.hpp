#pragma once
/// Collective algorithms: each is a pure plan generator plus its closed-form alpha-beta cost.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/collectives/schedule.hpp"
#include "sim/core/path_model.hpp"

namespace dtsim::collectives {

/// Cost of one point-to-point message of n bytes: alpha_s + n * beta_s_per_byte.
struct AlphaBeta {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
};

/// Per-message costs inside a node and between nodes (equal on flat networks).
struct LinkCosts {
  AlphaBeta intra;
  AlphaBeta inter;
  /// NVLinks between each pair of a node's GPUs when the node is an NVLink mesh (NCCL's ring search reads
  /// them: nvlink_rings.hpp); empty when every GPU pair of a node is alike (NVSwitch, PCIe, flat platforms).
  std::vector<std::vector<int>> nvlinks;
  /// The NIC each GPU of a node uses, on structured nodes (NCCL runs one ring channel per NIC across nodes);
  /// empty elsewhere.
  std::vector<int> gpu_nic;
  /// Whether NCCL enables LL128 by default, where the platform says (structured nodes): `inside` a node (its
  /// GPUs on NVLink), `across` nodes (also each GPU's NIC on its PCIe switch, with GPUDirect). Unset: LL128
  /// where a node has several GPUs.
  struct Ll128 {
    bool inside = true;
    bool across = true;
  };
  std::optional<Ll128> ll128;
  /// Fixed time of every call of a collective that charges its own launch (nccl, auto), carried by no link: the
  /// kernel launch and NCCL's per-call work as measured (platform key `call_latency`; calibrate fits it).
  double call_s = 0;
  /// Time per byte of the all-reduce's traffic to and from the caller's buffers, which NCCL's kernels make beside
  /// the link transfers: each GPU reads its n input bytes once and writes its n output bytes once (2n bytes, at any
  /// GPU count), charged once per nccl / auto call (platform key `buffer_bandwidth`, 1 / this; calibrate fits it;
  /// 0: not charged).
  double buffer_s_per_byte = 0;
  /// NVLinks from each GPU to the NVSwitches of an NVSwitch node (NCCL's graph prices each at 20 GB/s and searches
  /// its ring channels over them); 0 where the node is no NVSwitch node.
  int nvswitch_nvlinks = 0;
  /// Where a switch joining every GPU sums in the network (platform keys `sharp`, `node.nvls`): one message's cost
  /// from a GPU to it (its way up; the way down is the mirror image), alone on its links. Unset elsewhere.
  std::optional<AlphaBeta> to_switch = std::nullopt;
  /// Whether that switch is a node's NVSwitch (NVLink SHARP, NCCL's NVLS) rather than the network's (SHARP, NCCL's
  /// CollNet).
  bool switch_in_node = false;
  /// Time per byte of the switch's summing, all inputs together: 1 / switch_reduce_bandwidth (0: line rate).
  double switch_reduce_s_per_byte = 0;
  /// The same cost everywhere.
  static LinkCosts uniform(AlphaBeta ab) {
    LinkCosts costs;
    costs.intra = costs.inter = ab;
    return costs;
  }
};

/// The ranks taking part: ranks 0 .. ranks-1, placed ranks_per_node to a node in rank order.
struct Group {
  int ranks = 1;
  int ranks_per_node = 1;
  /// Number of nodes the group spans.
  int nodes() const { return (ranks + ranks_per_node - 1) / ranks_per_node; }
};

/// An all-reduce (or other collective) algorithm.
class Collective {
 public:
  virtual ~Collective() = default;
  /// Registry key, e.g. "ring".
  virtual std::string_view name() const = 0;
  /// The plan for the group's ranks, each contributing a vector of `bytes` bytes.
  virtual Schedule plan(const Group& group, std::int64_t bytes) const = 0;
  /// The plan with its consecutive same-pair steps fused (what actors::flow_steps(plan(group, bytes), true)
  /// gives), built without the plan where the algorithm knows it; empty otherwise. A ring's plan holds
  /// 2(p-1) x p transfers, its fused form p.
  virtual std::optional<std::vector<FusedStep>> fused_plan(const Group& /*group*/, std::int64_t /*bytes*/) const {
    return std::nullopt;
  }
  /// schedule_time_s(plan(group, bytes), network), computed without building the plan where the algorithm
  /// can; empty otherwise.
  virtual std::optional<double> plan_time_s(const Group& /*group*/, std::int64_t /*bytes*/,
                                            const core::PathModel& /*network*/) const {
    return std::nullopt;
  }
  /// Closed-form time on an uncongested network where a message inside a node costs `costs.intra` and one
  /// between nodes `costs.inter`.
  virtual double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const = 0;
  /// True when every call's time already includes NCCL's fixed per-call cost (tuning.cc baseLat), so a
  /// launch cost is not added on top of it by default.
  virtual bool charges_launch() const { return false; }
  /// The variant it runs for `bytes` on `group` where it chooses one per call (NCCL's "ring/LL128"); empty where
  /// it always runs one plan.
  virtual std::optional<std::string> variant(const Group& /*group*/, double /*bytes*/) const { return std::nullopt; }
  /// Where this all-reduce's library runs all-gather and reduce-scatter as one ring phase on several channels at
  /// once (NCCL's ncclAllGather and ncclReduceScatter have only the ring algorithm, on the ring channels of its
  /// all-reduce): those rings over `group`'s ranks; empty where it runs the registered algorithms below.
  virtual std::vector<std::vector<int>> phase_rings(const Group& /*group*/) const { return {}; }
  /// Registry key (make_allgatherv) of the all-gather its library pairs with it: MPICH's recursive doubling where
  /// the all-reduce is built of recursive steps, else the ring (NCCL, and MPICH for large messages).
  virtual std::string_view allgather_name() const { return "ring"; }
  /// Registry key (make_reduce_scatter) of the reduce-scatter its library pairs with it, as allgather_name().
  virtual std::string_view reduce_scatter_name() const { return "ring"; }
};

/// Registry keys of the all-reduce algorithms, in the order `dtsim list collectives` prints them.
std::vector<std::string> collective_names();
/// The algorithm called `name`, tuned for reference_link_costs(); throws core::InputError listing the known names.
std::unique_ptr<Collective> make_collective(std::string_view name);
/// The algorithm called `name`, tuned for `tuned_for`: auto's choice and the trees' segment counts depend on
/// the network (a plan does not see it); the other algorithms ignore it.
std::unique_ptr<Collective> make_collective(std::string_view name, const LinkCosts& tuned_for);
/// The network make_collective(name) tunes for: 10 us and 12.5 GB/s per message (a 100 Gb/s star).
LinkCosts reference_link_costs();

/// Registry keys of the broadcast algorithms (root rank 0): binomial, scatter_allgather.
std::vector<std::string> broadcast_names();
/// The broadcast algorithm `name`; throws core::InputError listing the known names.
std::unique_ptr<Collective> make_broadcast(std::string_view name);
/// Registry keys of the reduce algorithms (root rank 0): binomial.
std::vector<std::string> reduce_names();
/// The reduce algorithm `name`; throws core::InputError listing the known names.
std::unique_ptr<Collective> make_reduce(std::string_view name);

}  // namespace dtsim::collectives
