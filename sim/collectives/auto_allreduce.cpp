#include "sim/collectives/auto_allreduce.hpp"

#include "sim/collectives/phases.hpp"

namespace dtsim::collectives {
namespace {

constexpr double kShortBytes = 2048;

bool whole_multi_node(const Group& group) {
  return group.nodes() > 1 && group.ranks_per_node > 1 && group.ranks % group.ranks_per_node == 0;
}

}  // namespace

std::string AutoAllreduce::chosen(const Group& group, double bytes) const {
  if (bytes <= kShortBytes || bytes < Fold(group.ranks).pof2) return "recursive_doubling";
  std::vector<std::string> candidates{"rabenseifner", "ring", "double_binary_tree"};
  if (whole_multi_node(group)) candidates.push_back("hierarchical");
  std::string best;
  double best_s = 0;
  for (const std::string& name : candidates) {
    const double t = make_collective(name, tuned_for_)->closed_form_s(group, bytes, tuned_for_);
    if (best.empty() || t < best_s) {
      best = name;
      best_s = t;
    }
  }
  return best;
}

Schedule AutoAllreduce::plan(const Group& group, std::int64_t bytes) const {
  return make_collective(chosen(group, static_cast<double>(bytes)), tuned_for_)->plan(group, bytes);
}

double AutoAllreduce::closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const {
  return make_collective(chosen(group, bytes), tuned_for_)->closed_form_s(group, bytes, costs);
}

}  // namespace dtsim::collectives
