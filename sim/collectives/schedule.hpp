#pragma once
/// A collective as a plan: steps in order, each a set of concurrent point-to-point transfers.
#include <cstdint>
#include <vector>

namespace dtsim::collectives {

/// Id of a plan's reduction endpoint `j` (a switch that sums what the ranks send it and sends the sum back:
/// SHARP, NVLink SHARP, SwitchML): -1 - j, so that ranks keep their ids 0 .. ranks-1. The platform says where it
/// is (platform::Fabric::path); switch endpoint 0 is the reducing switch joining all the plan's ranks.
constexpr int switch_endpoint(int j) { return -1 - j; }
/// Whether a transfer end `id` is a switch endpoint rather than a rank.
constexpr bool is_switch(int id) { return id < 0; }
/// Index of endpoint `id` among ranks then switches: a rank its id, switch endpoint j ranks + j.
constexpr int endpoint_index(int id, int ranks) { return id >= 0 ? id : ranks - 1 - id; }

/// One point-to-point message inside a step, between two ranks or a rank and a switch endpoint.
struct Transfer {
  int from = 0;
  int to = 0;
  std::int64_t bytes = 0;
};

/// Transfers that run concurrently; a rank takes part in the next step only after its own transfers
/// of this step have completed (MPI semantics: each rank waits for its sends and receives).
struct Step {
  std::vector<Transfer> transfers;
  /// Fixed seconds every rank taking part in the step spends before its transfers start, on top of the
  /// paths' latencies (a protocol's per-hop software cost, a kernel launch); every executor honours it.
  double latency_s = 0;
};

/// Consecutive steps whose transfers go between the same (from, to) pairs in the same order, fused as the
/// `flow` level runs them: each transfer carries its bytes summed over the `steps` steps.
struct FusedStep {
  std::vector<Transfer> transfers;
  int steps = 1;
  double latency_s = 0;  ///< the steps' Step::latency_s, summed
};

/// The whole plan of one collective over ranks 0 .. ranks-1.
struct Schedule {
  int ranks = 0;
  std::vector<Step> steps;
  /// Switch endpoints the plan sends to (ids switch_endpoint(0 .. switches-1)); a switch endpoint takes part
  /// in a step as a rank does: it sends the step's sums once all its transfers of the step before are done.
  int switches = 0;
  /// Sum of the bytes of all transfers.
  std::int64_t total_bytes() const;
};

/// `plan` (over ranks 0 .. hosts.size() - 1) run by a subset of `ranks` ranks: its rank i is rank hosts[i].
Schedule on_hosts(const Schedule& plan, const std::vector<int>& hosts, int ranks);

}  // namespace dtsim::collectives
