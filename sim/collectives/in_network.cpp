#include "sim/collectives/in_network.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "sim/collectives/chunking.hpp"
#include "sim/collectives/factories.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {

int in_network_chunks(double bytes, AlphaBeta to_switch) {
  if (bytes <= 0 || to_switch.beta_s_per_byte <= 0) return 1;
  if (to_switch.alpha_s <= 0) return kMaxInNetworkChunks;
  const double best = std::round(std::sqrt(bytes * to_switch.beta_s_per_byte / to_switch.alpha_s));
  return static_cast<int>(std::clamp(best, 1.0, double{kMaxInNetworkChunks}));
}

Schedule in_network_plan(int ranks, std::int64_t bytes, int chunks, double step_latency_s) {
  Schedule schedule{ranks, {}, 1};
  const int sw = switch_endpoint(0);
  for (int i = 0; i <= chunks; ++i) {
    Step& step = schedule.steps.emplace_back();
    step.latency_s = step_latency_s;
    for (int r = 0; r < ranks; ++r) {
      if (i < chunks) step.transfers.push_back({r, sw, chunk_bytes(bytes, chunks, i)});
      if (i > 0) step.transfers.push_back({sw, r, chunk_bytes(bytes, chunks, i - 1)});
    }
  }
  return schedule;
}

double in_network_time_s(std::int64_t bytes, int chunks, const Group& group, const LinkCosts& costs,
                         double step_latency_s) {
  const AlphaBeta up = switch_cost(group, costs);
  const double down_beta = costs.to_switch->beta_s_per_byte;
  double time_s = 0;
  for (int i = 0; i <= chunks; ++i) {
    const double up_s = i < chunks ? static_cast<double>(chunk_bytes(bytes, chunks, i)) * up.beta_s_per_byte : 0.0;
    const double down_s = i > 0 ? static_cast<double>(chunk_bytes(bytes, chunks, i - 1)) * down_beta : 0.0;
    time_s += step_latency_s + up.alpha_s + std::max(up_s, down_s);
  }
  return time_s;
}

std::string in_network_refusal(const Group& group, const LinkCosts& network) {
  if (!network.to_switch)
    return "the platform has no switch that sums (platform keys sharp = true, or [platform.node] nvls = true)";
  if (network.switch_in_node && group.nodes() > 1)
    return "NVLink SHARP sums inside one node, and the " + std::to_string(group.ranks) + " GPUs span " +
           std::to_string(group.nodes()) + " nodes";
  return "";
}

AlphaBeta switch_cost(const Group& group, const LinkCosts& costs) {
  DTSIM_CHECK(costs.to_switch.has_value(), "no reducing switch");
  AlphaBeta ab = *costs.to_switch;
  ab.beta_s_per_byte = std::max(ab.beta_s_per_byte, group.ranks * costs.switch_reduce_s_per_byte);
  return ab;
}

namespace {

/// `in_network`: the flat in-network all-reduce on the platform's reducing switch, chunked for the network it is
/// tuned for. Closed form in_network_time_s on switch_cost: exact where each rank's way to the switch is its own
/// (a star, one GPU per node, an NVSwitch); where ranks share a NIC the analytic level's plan time counts it.
class InNetworkAllreduce final : public Collective {
 public:
  explicit InNetworkAllreduce(const LinkCosts& tuned_for) : tuned_for_(tuned_for) {}
  std::string_view name() const override { return "in_network"; }
  Schedule plan(const Group& group, std::int64_t bytes) const override {
    if (group.ranks <= 1) return Schedule{group.ranks, {}};
    return in_network_plan(group.ranks, bytes, chunks(group, static_cast<double>(bytes)));
  }
  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    if (group.ranks <= 1) return 0.0;
    return in_network_time_s(std::llround(bytes), chunks(group, bytes), group, costs);
  }

 private:
  int chunks(const Group& group, double bytes) const {
    return tuned_for_.to_switch ? in_network_chunks(bytes, switch_cost(group, tuned_for_)) : 1;
  }
  LinkCosts tuned_for_;
};

}  // namespace

std::unique_ptr<Collective> make_in_network(const LinkCosts& tuned_for) {
  return std::make_unique<InNetworkAllreduce>(tuned_for);
}

}  // namespace dtsim::collectives
