#include "sim/collectives/nccl_allreduce.hpp"

#include <algorithm>
#include <cmath>

#include "sim/collectives/in_network.hpp"
#include "sim/collectives/nccl_in_network.hpp"
#include "sim/collectives/nccl_tree.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

constexpr int kMaxSegments = 1024;

constexpr double kNcclSteps = 8;  // NCCL_STEPS: buffer slots one connection has in flight

/// Data one channel has in flight per protocol, bytes (src/include/devcomm.h; see the header).
double segment_bytes(NcclProtocol protocol) {
  switch (protocol) {
    case NcclProtocol::ll: return kNcclSteps * 8 * 512 * 16 / 2;
    case NcclProtocol::ll128: return kNcclSteps * 120 * 640 * 8 * 15 / 16;
    case NcclProtocol::simple: return 4.0 * 1024 * 1024;
  }
  return 1;
}

/// The plan's critical path when every message inside a node costs `costs.intra` and every other one
/// `costs.inter`, whatever else is in flight (no link is shared): the max-plus recursion of schedule_time_s
/// without its bandwidth shares, in memory linear in the ranks.
double contention_free_s(const Schedule& schedule, const Group& group, const LinkCosts& costs) {
  std::vector<double> ready(static_cast<std::size_t>(schedule.ranks), 0.0), next;
  for (const Step& step : schedule.steps) {
    next = ready;
    for (const Transfer& t : step.transfers) {
      const AlphaBeta& ab = t.from / group.ranks_per_node == t.to / group.ranks_per_node ? costs.intra : costs.inter;
      const double start = std::max(ready[static_cast<std::size_t>(t.from)], ready[static_cast<std::size_t>(t.to)]);
      const double end = start + step.latency_s + message_s(ab, static_cast<double>(t.bytes));
      for (int rank : {t.from, t.to})
        next[static_cast<std::size_t>(rank)] = std::max(next[static_cast<std::size_t>(rank)], end);
    }
    ready.swap(next);
  }
  return ready.empty() ? 0.0 : *std::max_element(ready.begin(), ready.end());
}

/// `moves` as transfers of wire bytes, each step with `latency_s[i]`.
Schedule on_the_wire(const MovePlan& moves, double efficiency, const std::vector<double>& latency_s) {
  Schedule schedule{moves.ranks, {}};
  for (std::size_t i = 0; i < moves.steps.size(); ++i) {
    Step& step = schedule.steps.emplace_back();
    step.latency_s = latency_s[i];
    for (const Move& m : moves.steps[i].moves)
      step.transfers.push_back(
          {m.from, m.to, static_cast<std::int64_t>(nccl_wire_bytes(static_cast<double>(m.bytes), efficiency))});
  }
  return schedule;
}

}  // namespace

std::unique_ptr<Collective> make_collective(std::string_view name, const LinkCosts& tuned_for, const NcclForce& force) {
  if (name == "nccl" || name == "auto") return std::make_unique<NcclAllreduce>(std::string(name), tuned_for, force);
  return make_collective(name, tuned_for);
}

double nccl_wire_bytes(double data, double efficiency) { return std::ceil(data / efficiency); }

int nccl_tree_segments(double bytes_per_tree, NcclProtocol protocol) {
  return static_cast<int>(std::clamp(std::ceil(bytes_per_tree / segment_bytes(protocol)), 1.0, double{kMaxSegments}));
}

MovePlan NcclAllreduce::tree_moves(const Group& group, std::int64_t bytes, NcclProtocol protocol) const {
  return nccl_tree_plan(group, bytes, nccl_tree_segments(static_cast<double>(bytes) / 2, protocol)).moves;
}

double NcclAllreduce::extra_latency_s(const Group& group, double bytes, double link_latency_s) const {
  return nccl_call_extra_s(tuned_for_, 2 * bytes, nccl_latency_s(chosen(group, bytes), group, bytes), link_latency_s);
}

std::optional<NcclRingPlan> NcclAllreduce::ring_plan(const Group& group, std::int64_t bytes) const {
  const auto n = static_cast<double>(bytes);
  const NcclChoice c = chosen(group, n);
  if (c.algorithm != NcclAlgorithm::ring) return std::nullopt;
  const double steps = 2.0 * (group.ranks - 1);
  const AlphaBeta link = flat_cost(group, tuned_for_);
  const double channel_efficiency = nccl_channel_efficiency(c, group, tuned_for_, link.beta_s_per_byte);
  DTSIM_CHECK(channel_efficiency > 0, "LL128 capped on links of infinite bandwidth");
  return NcclRingPlan{nccl_rings(group, tuned_for_), bytes, channel_efficiency,
                      extra_latency_s(group, n, steps * link.alpha_s) / steps};
}

std::optional<NcclAllreduce::InNetwork> NcclAllreduce::in_network_steps(const Group& group, double bytes) const {
  if (!nccl_in_network(chosen(group, bytes).algorithm)) return std::nullopt;
  const AlphaBeta to_switch = switch_cost(group, tuned_for_);
  const int chunks = in_network_chunks(bytes, to_switch);
  const double steps = chunks + 1;
  return InNetwork{chunks, extra_latency_s(group, bytes, steps * to_switch.alpha_s) / steps};
}

std::optional<std::vector<FusedStep>> NcclAllreduce::fused_plan(const Group& group, std::int64_t bytes) const {
  if (group.ranks <= 1) return std::vector<FusedStep>{};
  if (const auto ring = ring_plan(group, bytes)) return nccl_ring_fused(*ring);
  return std::nullopt;
}

std::optional<double> NcclAllreduce::plan_time_s(const Group& group, std::int64_t bytes,
                                                 const core::PathModel& network) const {
  if (group.ranks <= 1) return 0.0;
  if (const auto ring = ring_plan(group, bytes)) return nccl_ring_time_s(*ring, network);
  return std::nullopt;
}

std::int64_t NcclAllreduce::analytic_plan_transfers(const Group& group, std::int64_t bytes) const {
  const auto n = static_cast<double>(bytes);
  const NcclChoice c = chosen(group, n);
  if (group.ranks <= 1 || c.algorithm == NcclAlgorithm::ring) return 0;
  if (const auto in_network = in_network_steps(group, n)) return std::int64_t{2} * in_network->chunks * group.ranks;
  return std::int64_t{4} * nccl_tree_segments(n / 2, c.protocol) * (group.ranks - 1);
}

Schedule NcclAllreduce::plan(const Group& group, std::int64_t bytes) const {
  if (group.ranks <= 1) return Schedule{group.ranks, {}};
  if (const auto ring = ring_plan(group, bytes)) return nccl_ring_schedule(*ring);
  const auto n = static_cast<double>(bytes);
  if (const auto in_network = in_network_steps(group, n))
    return in_network_plan(group.ranks, bytes, in_network->chunks, in_network->step_latency_s);
  const NcclChoice c = chosen(group, n);
  const double efficiency = nccl_efficiency(c, group);
  const NcclTreePlan tree = nccl_tree_plan(group, bytes, nccl_tree_segments(n / 2, c.protocol));
  // The links' latency the fill and drain steps already pay: a step crossing nodes pays the inter-node one.
  double paid_s = 0, paying = 0;
  for (std::size_t i = 0; i < tree.moves.steps.size(); ++i) {
    if (!tree.fill_or_drain[i]) continue;
    const auto& moves = tree.moves.steps[i].moves;
    const bool crosses = std::any_of(moves.begin(), moves.end(), [&](const Move& m) {
      return m.from / group.ranks_per_node != m.to / group.ranks_per_node;
    });
    paid_s += (crosses ? tuned_for_.inter : tuned_for_.intra).alpha_s;
    ++paying;
  }
  const double extra_s = extra_latency_s(group, n, paid_s);
  std::vector<double> step_latency_s;
  for (bool pays : tree.fill_or_drain) step_latency_s.push_back(pays ? extra_s / paying : 0.0);
  return on_the_wire(tree.moves, efficiency, step_latency_s);
}

double NcclAllreduce::closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const {
  if (group.ranks <= 1) return 0.0;
  const NcclChoice c = chosen(group, bytes);
  if (c.algorithm == NcclAlgorithm::ring) {
    const double p = group.ranks;
    const AlphaBeta link = flat_cost(group, costs);
    const double channels = nccl_ring_channels(group, tuned_for_);
    const double data = bytes / (p * channels);
    const double efficiency = nccl_channel_efficiency(c, group, tuned_for_, link.beta_s_per_byte);
    // A capped LL128 channel on links of no transfer time (beta = 0, as calibration probes) still moves its
    // data at the cap: the limit of ceil(data / (cap beta)) beta.
    const double chunk_s = efficiency > 0 ? nccl_wire_bytes(data, efficiency) * link.beta_s_per_byte
                                          : data / nccl_ll128_cap_Bps(group, tuned_for_);
    return extra_latency_s(group, bytes, 2.0 * (p - 1) * flat_cost(group, tuned_for_).alpha_s) +
           2.0 * (p - 1) * (link.alpha_s + chunk_s);
  }
  if (const auto in_network = in_network_steps(group, bytes))
    return in_network_time_s(std::llround(bytes), in_network->chunks, group, costs, in_network->step_latency_s);
  return contention_free_s(plan(group, std::llround(bytes)), group, costs);
}

}  // namespace dtsim::collectives
