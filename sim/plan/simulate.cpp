#include "sim/plan/simulate.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/plan/pareto.hpp"

namespace dtsim::plan {
namespace {

/// Time, cost and energy of simulated `o`: the values that drop a candidate whose lower bounds they beat.
std::vector<double> criteria(const Outcome& o) {
  const Spend s = o.spend();
  return {o.time_s(), s.cost, s.energy_kwh};
}

/// Time, cost and energy of `o` by its lower bounds, simulated or not (as Outcome::time_s of one not simulated).
std::vector<double> bound_criteria(const Outcome& o) {
  const double time_s = o.bounds.iterations * o.bounds.iteration_lb_s() / o.goodput.fraction;
  const Spend s = spend(o.rate, time_s);
  return {time_s, s.cost, s.energy_kwh};
}

/// Whether one of `kept` dominates the lower bounds of `o`.
bool dominated(const std::vector<Outcome>& outcomes, const std::vector<int>& kept, const Outcome& o) {
  const std::vector<double> mine = bound_criteria(o);
  return std::any_of(kept.begin(), kept.end(), [&](int k) { return dominates(criteria(outcomes[k]), mine); });
}

/// Drops `o`, whose lower bounds a kept candidate dominates; a result simulated in the same round is discarded.
void drop(Outcome& o) {
  o.analytic = Evaluation{};
  o.pruned = "dominated";
}

/// Names, for each dropped candidate, the first kept one before it in the order that dominates it: the same
/// whichever kept one happened to drop it (that depends on the rounds).
void name_dominators(std::vector<Outcome>& outcomes, const std::vector<int>& order, const std::vector<int>& kept) {
  std::vector<std::size_t> position(outcomes.size());
  for (std::size_t p = 0; p < order.size(); ++p) position[static_cast<std::size_t>(order[p])] = p;
  for (int i : order) {
    Outcome& o = outcomes[static_cast<std::size_t>(i)];
    if (o.pruned != "dominated") continue;
    const std::vector<double> mine = bound_criteria(o);
    for (int k : kept)
      if (position[static_cast<std::size_t>(k)] < position[static_cast<std::size_t>(i)] &&
          dominates(criteria(outcomes[static_cast<std::size_t>(k)]), mine)) {
        o.pruned_why = "its lower bounds are dominated by " + outcomes[static_cast<std::size_t>(k)].candidate.label;
        break;
      }
  }
}

}  // namespace

void simulate(const scenario::PlanSpec& plan, const EvaluateOptions& options, const std::string& fidelity,
              std::vector<Outcome>& outcomes, const std::vector<int>& which, std::ostream& progress, bool terminal) {
  std::vector<const Candidate*> candidates;
  for (int i : which) candidates.push_back(&outcomes[i].candidate);
  EvaluateOptions at = options;
  at.fidelity = fidelity;
  at.timeline = fidelity == "flow";
  const std::vector<Evaluation> results = evaluate(plan, candidates, at, progress, terminal);
  for (std::size_t k = 0; k < which.size(); ++k) {
    Outcome& o = outcomes[which[k]];
    if (fidelity == "flow")
      o.flow = results[k];
    else
      o.analytic = results[k];
    if (!results[k].ok) {
      o.pruned = "failed";
      o.pruned_why = results[k].error;
    }
  }
}

std::vector<int> simulate_in_order(const scenario::PlanSpec& plan, const EvaluateOptions& options,
                                   std::vector<Outcome>& outcomes, const std::vector<int>& order, bool prune_dominated,
                                   std::ostream& progress, bool terminal) {
  std::vector<int> kept;
  int rounds = 0, dropped = 0;
  const std::size_t round_size = static_cast<std::size_t>(std::max(8, 4 * options.jobs));
  const auto started = std::chrono::steady_clock::now();
  const auto decided = [&](int i) {  // every candidate before `i` in the order is decided
    if (prune_dominated && dominated(outcomes, kept, outcomes[i])) {
      drop(outcomes[i]);
      ++dropped;
      return false;
    }
    return true;
  };
  std::size_t next = 0;
  int ran = 0;
  while (next < order.size()) {
    std::vector<int> round;
    for (; next < order.size() && round.size() < round_size; ++next)
      if (decided(order[next])) round.push_back(order[next]);
    if (round.empty()) break;
    simulate(plan, options, "analytic", outcomes, round, progress, terminal);
    ++rounds;
    ran += static_cast<int>(round.size());
    for (int i : round)
      if (decided(i) && outcomes[i].simulated() && outcomes[i].reaches()) kept.push_back(i);
    const std::size_t left = order.size() - next;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (left > 0)
      fmt::print(progress, "round {}: {} candidates simulated in {:.1f} s; at most {} to go, ETA {:.0f} s at most\n",
                 rounds, ran, elapsed, left, elapsed / ran * static_cast<double>(left));
  }
  name_dominators(outcomes, order, kept);
  if (dropped > 0)
    fmt::print(progress, "{} candidates dropped: a simulated one before them in the order is faster, cheaper and uses "
                         "less energy than their lower bounds\n", dropped);
  return kept;
}

std::string recommended_timeline(const scenario::PlanSpec& plan, const EvaluateOptions& options, const PlanResult& r,
                                 std::ostream& progress, bool terminal) {
  if (r.recommended < 0) return "";
  const Outcome& o = r.outcomes[static_cast<std::size_t>(r.recommended)];
  if (o.flow) return o.flow->run;
  EvaluateOptions at = options;
  at.fidelity = "analytic";
  at.timeline = true;
  const Evaluation e = evaluate(plan, {&o.candidate}, at, progress, terminal).front();
  return e.ok ? e.run : "";
}

}  // namespace dtsim::plan
