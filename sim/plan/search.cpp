#include "sim/plan/search.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "sim/core/error.hpp"
#include "sim/core/nearest_names.hpp"
#include "sim/core/units.hpp"
#include "sim/plan/candidate.hpp"
#include "sim/plan/layout_neighbours.hpp"
#include "sim/plan/pareto.hpp"
#include "sim/plan/shards.hpp"
#include "sim/plan/simulate.hpp"
#include "sim/run/capacity.hpp"
#include "sim/run/memory_check.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/parallel_section.hpp"

namespace dtsim::plan {
namespace {

/// The candidate's scenario; core::InputError when the template cannot be built so or the loader refuses it.
scenario::Scenario load_candidate(const scenario::PlanSpec& plan, const Candidate& c) {
  if (!c.invalid.empty())
    throw core::InputError(plan.source + ": " + c.label, c.invalid,
                           "choose nodes and oversubscriptions the template can be built with");
  const std::vector<std::string> overrides = candidate_overrides(plan, c);
  try {
    return plan.base.empty() ? scenario::load_default_scenario(overrides) : scenario::load_scenario(plan.base, overrides);
  } catch (const core::InputError& e) {
    throw scenario::at_set_place(plan, e);
  }
}

/// The plan's base with its [set] on its first platform (the model a layout search enumerates for, the global
/// batch's sequences, the dimensions [set] fixes).
scenario::Scenario load_base(const scenario::PlanSpec& plan) {
  std::vector<std::string> overrides = plan.base_settings;
  overrides.push_back("platform=\"" + plan.platforms.front() + "\"");
  try {
    return plan.base.empty() ? scenario::load_default_scenario(overrides) : scenario::load_scenario(plan.base, overrides);
  } catch (const core::InputError& e) {
    throw scenario::at_set_place(plan, e);
  }
}

/// Derives the per-replica batch of a candidate of a plan with a global batch (a layout search's candidates have
/// theirs): loaded once at batch_size = the global batch to learn its data-parallel replicas (every batch a
/// replica's micro-batches and schedule take divides it, so this load refuses only what every batch would), then
/// batch_size = global batch / replicas; invalid, saying so, when they do not divide it.
void derive_batch(const scenario::PlanSpec& plan, int global_batch, Candidate& c) {
  if (global_batch <= 0 || !plan.layout.empty() || !c.invalid.empty()) return;
  Candidate probe = c;
  probe.settings.emplace_back("batch_size", std::to_string(global_batch));
  try {
    const scenario::Scenario s = load_candidate(plan, probe);
    c.data = scenario::uses_layout(s) ? s.parallel.data : s.workers;
  } catch (const core::InputError& e) {
    c.invalid = e.what();
    return;
  }
  if (global_batch % c.data != 0) {
    c.invalid = fmt::format("its {} data-parallel replicas do not divide the global batch of {} samples", c.data,
                            global_batch);
    c.batch_indivisible = true;
    return;
  }
  c.settings.emplace_back("batch_size", std::to_string(global_batch / c.data));
}

/// Refuses a plan whose global batch no candidate's data-parallel replicas divide, at the key that sets it.
void check_global_batch(const scenario::PlanSpec& plan, int global_batch, const std::vector<Candidate>& candidates) {
  if (global_batch <= 0 || candidates.empty()) return;
  std::vector<std::string> which;
  int step = 0;
  for (const Candidate& c : candidates) {
    if (!c.batch_indivisible) return;
    if (which.size() < 3) which.push_back(fmt::format("{} ({} replicas)", c.label, c.data));
    step = step == 0 ? c.data : std::min(step, c.data);
  }
  const std::string key = plan.job.global_batch_unit == "samples" ? "global_batch" : "global_batch_tokens";
  throw core::InputError(plan.job.global_batch_place,
                         fmt::format("{} = {:.0f} ({} samples a step) splits over the data-parallel replicas of no "
                                     "candidate: {}{}",
                                     key, plan.job.global_batch, global_batch, fmt::join(which, ", "),
                                     candidates.size() > which.size() ? ", ..." : ""),
                         fmt::format("a global batch their replicas divide, e.g. {} samples a step (multiples of {})",
                                     core::nearest_multiples(global_batch, step), step));
}

/// Bounds and prices the candidate, and prunes it when the memory model or a lower bound rules it out. A plan
/// that cannot be answered (no price for a GPU, measured kernel times) is refused.
Outcome bound_candidate(const scenario::PlanSpec& plan, const Candidate& c, const scenario::Scenario& s) {
  Outcome o;
  o.candidate = c;
  if (!s.compression.compressor.empty() && s.compression.kernel_time == scenario::KernelTime::measured)
    throw core::InputError(plan.source, "candidate '" + c.label + "' compresses with measured kernel times, so its answer "
                                        "would depend on this machine",
                           "leave compression.kernel_time at \"model\" (the default: the kernel model of the GPU), or "
                           "set a fixed throughput: compression_kernel_time = \"20GBps\" in [search] (the candidates "
                           "that compress), or \"compression.kernel_time\" = \"20GBps\" in [set]");
  o.bounds = bounds(s, plan.job);
  o.rate = rate(o.bounds, plan.costs);
  if (plan.goodput.enabled) {
    o.goodput_inputs = goodput_inputs(o.bounds, plan.goodput);
    o.goodput = goodput(o.goodput_inputs, plan.goodput);
  }
  const scenario::PlanTarget& t = plan.target;
  const Bounds& b = o.bounds;
  const double lb = b.iteration_lb_s();
  if (!b.fits) {
    o.pruned = "memory";
    o.pruned_why = fmt::format("needs {} per GPU, the {} has {}", core::format_bytes(b.memory_peak_bytes), b.gpu,
                               core::format_bytes(b.memory_capacity_bytes));
  } else if (t.time_s && o.time_s() > *t.time_s) {
    o.pruned = "bound";
    o.pruned_why = fmt::format("at least {} ({} bound {:.3f} ms per iteration) > {}", time_text(o.time_s()),
                               b.bandwidth_s > b.compute_s ? "NIC bandwidth" : "compute", lb * 1e3, time_text(*t.time_s));
  } else if (t.budget && o.spend().cost > *t.budget) {
    o.pruned = "bound";
    o.pruned_why = fmt::format("costs at least {:.2f} {} > budget {:.2f}", o.spend().cost, plan.costs.currency, *t.budget);
  } else if (t.samples_per_s && b.global_batch / lb < *t.samples_per_s) {
    o.pruned = "bound";
    o.pruned_why = fmt::format("at most {:.1f} samples/s < {:.1f}", b.global_batch / lb, *t.samples_per_s);
  } else if (t.scaling_efficiency && b.compute_s / lb < *t.scaling_efficiency) {
    o.pruned = "bound";
    o.pruned_why = fmt::format("scaling efficiency at most {:.1f} % < {:.1f} %", 100 * b.compute_s / lb,
                               100 * *t.scaling_efficiency);
  }
  return o;
}

/// The ways out of the memory model's refusal of the candidate closest to fitting (its peak over its GPU's memory
/// the smallest), as `dtsim run` gives them; empty when no candidate was refused for memory.
std::string memory_way_out(const scenario::PlanSpec& plan, const std::vector<Outcome>& outcomes) {
  const Outcome* closest = nullptr;
  const auto over = [](const Outcome& o) { return o.bounds.memory_peak_bytes / o.bounds.memory_capacity_bytes; };
  for (const Outcome& o : outcomes)
    if (o.pruned == "memory" && (!closest || over(o) < over(*closest))) closest = &o;
  if (!closest) return "";
  scenario::Scenario s = load_candidate(plan, closest->candidate);
  s.memory.refuse = true;
  try {
    run::check_memory(s);
  } catch (const core::InputError& e) {
    return e.allowed();
  }
  return "";
}

/// Estimates the CPU time of each of `which`'s flow re-check (run::estimated_cpu_s), prints it, and returns those
/// within [search] recheck_cpu_limit; the others are marked skipped, saying so and how to force them.
std::vector<int> within_recheck_limit(const scenario::PlanSpec& plan, std::vector<Outcome>& outcomes,
                                      const std::vector<int>& which, std::ostream& progress) {
  std::vector<int> out;
  for (int i : which) {
    Outcome& o = outcomes[i];
    scenario::Scenario s = load_candidate(plan, o.candidate);
    s.fidelity = scenario::Fidelity::flow;
    o.flow_cpu_s = run::estimated_cpu_s(s);
    if (!o.flow_cpu_s || *o.flow_cpu_s <= plan.recheck_cpu_limit_s) {
      if (o.flow_cpu_s)
        fmt::print(progress, "re-checking {} at the flow level: about {} of CPU (estimated from bench/RESULTS.md)\n",
                   o.candidate.label, run::cpu_time_text(*o.flow_cpu_s));
      out.push_back(i);
      continue;
    }
    o.recheck_skipped = fmt::format(
        "estimated at {} of CPU, above [search] recheck_cpu_limit = \"{:g}s\", so its answer is the analytic "
        "level's; to re-check it, raise the limit (recheck_cpu_limit = \"{:.0f}min\")",
        run::cpu_time_text(*o.flow_cpu_s), plan.recheck_cpu_limit_s, std::ceil(*o.flow_cpu_s / 60 * 1.2));
    fmt::print(progress, "skipped the flow re-check of {}: {}\n", o.candidate.label, o.recheck_skipped);
  }
  return out;
}

bool feasible(const Outcome& o, const scenario::PlanTarget& t) { return o.simulated() && misses(o, t).empty(); }

/// The feasible simulated candidate with the lowest objective; -1 when none.
int best_feasible(const std::vector<Outcome>& outcomes, const scenario::PlanTarget& t) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(outcomes.size()); ++i)
    if (feasible(outcomes[i], t) && (best < 0 || objective(outcomes[i], t) < objective(outcomes[best], t))) best = i;
  return best;
}

/// Why `winner` beats `runner_up`: their simulations' critical paths, exposed communication and memory compared
/// (plan::simulated_difference) at the most faithful level both have.
std::string why_it_wins(const Outcome& winner, const Outcome& runner_up) {
  const bool flow = winner.flow && winner.flow->ok && runner_up.flow && runner_up.flow->ok;
  const Evaluation& w = flow ? *winner.flow : winner.analytic;
  const Evaluation& r = flow ? *runner_up.flow : runner_up.analytic;
  const auto report = [](const Evaluation& e) { return nlohmann::json::parse(std::ifstream(e.report_path)); };
  return fmt::format("Against the runner-up, {} ({} iteration, {} to train; {} level), from its simulation to this "
                     "one's: {}.", runner_up.candidate.label,
                     time_text(r.iteration_s), time_text(runner_up.time_s()), flow ? "flow" : "analytic",
                     simulated_difference(report(r), report(w)));
}

}  // namespace

std::string time_text(double s) {
  if (s >= 3600) return fmt::format("{:.2f} h", s / 3600);
  if (s >= 60) return fmt::format("{:.1f} min", s / 60);
  return s >= 1 ? fmt::format("{:.2f} s", s) : fmt::format("{:.3f} ms", s * 1e3);
}

double Outcome::iterations() const {
  if (!bounds.to_accuracy || !simulated()) return bounds.iterations;
  return best().time_to_accuracy_s ? best().steps_to_accuracy : best().steps_run;
}

double Outcome::training_s() const {
  if (!simulated()) return bounds.iterations * bounds.iteration_lb_s();
  if (!bounds.to_accuracy) return bounds.iterations * best().iteration_s;
  return best().time_to_accuracy_s ? *best().time_to_accuracy_s : best().trained_s;
}

std::vector<std::string> misses(const Outcome& o, const scenario::PlanTarget& t) {
  std::vector<std::string> out;
  const auto over = [](double value, double limit) { return 100.0 * (value - limit) / limit; };
  if (!o.reaches())
    out.push_back(fmt::format("accuracy {:.3f} not reached in {:.0f} steps ({}; best {:.3f})", o.bounds.accuracy,
                              o.best().steps_run, time_text(o.best().trained_s), o.best().best_accuracy));
  const double time = o.time_s();
  if (t.time_s && time > *t.time_s)
    out.push_back(fmt::format("time {} > {} (+{:.1f} %)", time_text(time), time_text(*t.time_s), over(time, *t.time_s)));
  const double cost = o.spend().cost;
  if (t.budget && cost > *t.budget)
    out.push_back(fmt::format("cost {:.2f} > budget {:.2f} (+{:.1f} %)", cost, *t.budget, over(cost, *t.budget)));
  // Not simulated: the best its lower bound allows.
  const double lb = o.bounds.iteration_lb_s();
  const double rate = o.simulated() ? o.best().samples_per_s : o.bounds.global_batch / lb;
  const double efficiency = o.simulated() ? o.best().scaling_efficiency : o.bounds.compute_s / lb;
  if (t.samples_per_s && rate < *t.samples_per_s)
    out.push_back(fmt::format("throughput {:.1f} < {:.1f} samples/s ({:.1f} %)", rate, *t.samples_per_s,
                              over(rate, *t.samples_per_s)));
  if (t.scaling_efficiency && efficiency < *t.scaling_efficiency)
    out.push_back(fmt::format("scaling efficiency {:.1f} % < {:.1f} %", 100 * efficiency, 100 * *t.scaling_efficiency));
  return out;
}

double objective(const Outcome& o, const scenario::PlanTarget& t) {
  if (t.minimise == "time") return o.time_s();
  return t.minimise == "energy" ? o.spend().energy_kwh : o.spend().cost;
}

PlanResult search(const scenario::PlanSpec& plan, const EvaluateOptions& options, std::ostream& progress,
                  bool terminal) {
  std::vector<platform::PlatformSpec> templates;
  for (const std::string& ref : plan.platforms) templates.push_back(scenario::load_platform_reference(ref));
  PlanResult result;
  std::optional<core::InputError> first_error;
  const bool needs_base = !plan.layout.empty() || plan.job.global_batch > 0;
  const std::optional<scenario::Scenario> base = needs_base ? std::optional(load_base(plan)) : std::nullopt;
  const int global_batch = base ? global_batch_samples(plan, base->model) : 0;
  std::vector<Candidate> candidates = enumerate_candidates(plan, templates, base ? &*base : nullptr);
  for (Candidate& c : candidates) derive_batch(plan, global_batch, c);
  check_global_batch(plan, global_batch, candidates);
  for (const Candidate& c : candidates) {
    std::optional<scenario::Scenario> s;
    try {
      s = load_candidate(plan, c);
    } catch (const core::InputError& e) {  // a combination the loader refuses (asp with all-reduce, ...)
      if (!first_error) first_error = e;
      Outcome o;
      o.candidate = c;
      o.pruned = "invalid";
      o.pruned_why = e.what();
      result.outcomes.push_back(std::move(o));
      continue;
    }
    result.outcomes.push_back(bound_candidate(plan, c, *s));
  }
  std::vector<Outcome>& outcomes = result.outcomes;
  std::vector<int> todo;
  int by_memory = 0, by_bound = 0, invalid = 0;
  for (int i = 0; i < static_cast<int>(outcomes.size()); ++i) {
    by_memory += outcomes[i].pruned == "memory";
    by_bound += outcomes[i].pruned == "bound";
    invalid += outcomes[i].pruned == "invalid";
    if (outcomes[i].pruned.empty()) todo.push_back(i);
  }
  if (invalid == static_cast<int>(outcomes.size())) throw *first_error;
  fmt::print(progress, "{} candidates: {} do not fit in memory, {} cannot meet the target by their lower bounds, {} are "
                       "refused by the loader; {} to simulate at the analytic level\n",
             outcomes.size(), by_memory, by_bound, invalid, todo.size());
  // Cheapest lower bound first; a candidate an evaluated one dominates in time, cost and energy cannot be on
  // the front nor the recommendation (unless a throughput or efficiency target, which time does not order).
  const scenario::PlanTarget& t = plan.target;
  std::stable_sort(todo.begin(), todo.end(),
                   [&](int a, int b) { return objective(outcomes[a], t) < objective(outcomes[b], t); });
  const bool prune_dominated = !t.samples_per_s && !t.scaling_efficiency;
  if (options.shards > 1) todo = shard_of(todo, options.shard, options.shards);
  const std::vector<int> simulated = simulate_in_order(plan, options, outcomes, todo, prune_dominated, progress, terminal);
  // Re-check the best at the flow level, then until the best feasible candidate has been re-checked.
  std::vector<int> ranked;
  for (int i : simulated)
    if (feasible(outcomes[i], t)) ranked.push_back(i);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](int a, int b) { return objective(outcomes[a], t) < objective(outcomes[b], t); });
  if (plan.recheck > 0) {
    std::vector<int> first(ranked.begin(), ranked.begin() + std::min<std::ptrdiff_t>(plan.recheck, ranked.size()));
    if (!first.empty()) {
      fmt::print(progress, "re-checking the best {} at the flow level\n", first.size());
      first = within_recheck_limit(plan, outcomes, first, progress);
      if (!first.empty()) simulate(plan, options, "flow", outcomes, first, progress, terminal);
    }
    for (int best = best_feasible(outcomes, t); best >= 0 && !outcomes[best].flow && outcomes[best].recheck_skipped.empty();
         best = best_feasible(outcomes, t))
      if (const std::vector<int> one = within_recheck_limit(plan, outcomes, {best}, progress); !one.empty())
        simulate(plan, options, "flow", outcomes, one, progress, terminal);
  }
  std::vector<std::pair<double, double>> by_cost, by_energy;
  std::vector<int> index;
  for (int i = 0; i < static_cast<int>(outcomes.size()); ++i)
    if (outcomes[i].simulated() && outcomes[i].reaches()) {  // one that did not reach its accuracy has no time to train
      by_cost.emplace_back(outcomes[i].time_s(), outcomes[i].spend().cost);
      by_energy.emplace_back(outcomes[i].time_s(), outcomes[i].spend().energy_kwh);
      index.push_back(i);
    }
  for (int f : pareto_front(by_cost)) result.front.push_back(index[f]);
  for (int f : pareto_front(by_energy)) result.energy_front.push_back(index[f]);
  result.recommended = best_feasible(outcomes, t);
  if (options.shards == 1) result.timeline = recommended_timeline(plan, options, result, progress, terminal);
  if (result.recommended < 0) result.memory_way_out = memory_way_out(plan, outcomes);
  if (result.recommended >= 0 && !plan.layout.empty()) {
    for (int i : ranked)
      if (i != result.recommended && (result.runner_up < 0 || objective(outcomes[i], t) < objective(outcomes[result.runner_up], t)))
        result.runner_up = i;
    if (result.runner_up >= 0) result.runner_up_why = why_it_wins(outcomes[result.recommended], outcomes[result.runner_up]);
  }
  if (result.recommended >= 0) {
    const double mine = objective(outcomes[result.recommended], t);
    for (int i = 0; i < static_cast<int>(outcomes.size()); ++i)
      if (outcomes[i].simulated() && !feasible(outcomes[i], t) && objective(outcomes[i], t) < mine &&
          (result.next_cheaper < 0 || objective(outcomes[i], t) > objective(outcomes[result.next_cheaper], t)))
        result.next_cheaper = i;
  }
  return result;
}

}  // namespace dtsim::plan
