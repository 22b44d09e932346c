#include "sim/plan/plan_report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/core/units.hpp"
#include "sim/plan/provenance.hpp"

namespace dtsim::plan {
namespace {

std::string ms(double s) { return fmt::format("{:.3f} ms", s * 1e3); }

/// `value` with `decimals` decimals, or 3 significant digits when that would show less (a small job's cost).
std::string amount(double value, int decimals) {
  return value != 0 && std::abs(value) < 0.1 ? fmt::format("{:.3g}", value) : fmt::format("{:.{}f}", value, decimals);
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

/// "2 x 8 a100 GPUs, 7.12 h (21,000 iterations of 1.220 ms, flow level), 512.40 USD, 250.1 kWh".
std::string summary(const scenario::PlanSpec& plan, const Outcome& o) {
  const Spend s = o.spend();
  std::string goal = "to train";
  if (o.bounds.to_accuracy)
    goal = fmt::format("{} accuracy {:.3f}", o.reaches() ? "to reach" : "trained without reaching", o.bounds.accuracy);
  return fmt::format("{} {} GPUs in {} node{}: {} {} ({:.0f} iterations of {}, {} level), {} {}, {} kWh",
                     o.bounds.gpus, o.bounds.gpu, o.bounds.nodes, o.bounds.nodes == 1 ? "" : "s", time_text(o.time_s()),
                     goal, o.iterations(), ms(o.best().iteration_s), o.flow ? "flow" : "analytic", amount(s.cost, 2),
                     plan.costs.currency, amount(s.energy_kwh, 1));
}

/// What bounds the candidate's iteration: exposed communication when at least a fifth of it, else compute.
std::string bound_sentence(const Outcome& o) {
  const Evaluation& e = o.best();
  const Bounds& b = o.bounds;
  if (e.exposed_comm_s >= 0.2 * e.iteration_s)
    return fmt::format("Communication bounds it: {} of its {} iteration is exposed communication{}.", ms(e.exposed_comm_s),
                       ms(e.iteration_s),
                       b.bandwidth_s > 0 ? fmt::format("; moving the gradients through a node's {:.0f} Gb/s NIC alone takes at "
                                                       "least {}", b.nic_Bps * 8 / 1e9, ms(b.bandwidth_s))
                                         : "");
  return fmt::format("Compute bounds it: {} {} of its {} iteration ({:.1f} %); {} is exposed communication.",
                     b.layout ? "a GPU's share of its replica's forward and backward takes" : "one GPU's forward, backward and update take",
                     ms(b.compute_s), ms(e.iteration_s), 100 * b.compute_s / e.iteration_s, ms(e.exposed_comm_s));
}

/// "Goodput 91.2 %: ..." with the failure rate, the checkpoint and where the lost hours go.
std::string goodput_sentence(const scenario::PlanSpec& plan, const Outcome& o) {
  const Goodput& g = o.goodput;
  const GoodputInputs& in = o.goodput_inputs;
  const Bounds& b = o.bounds;
  if (std::isinf(g.interval_s))
    return fmt::format("Goodput 100 %: with these failure rates nothing fails, so it writes no checkpoint.");
  if (std::isinf(g.mtbf_s))
    return fmt::format("Goodput {:.1f} %: nothing fails, but a checkpoint of {} written in {} every {} of training takes "
                       "{:.2f} % of the wall time.",
                       100 * g.fraction, core::format_bytes(b.checkpoint_bytes), time_text(in.checkpoint_s),
                       time_text(g.interval_s), 100 * g.checkpoint);
  const std::string interval = plan.goodput.interval == "fixed" ? "the interval asked for"
                               : plan.goodput.interval == "young_daly" ? "Young/Daly's interval" : "the optimal interval";
  return fmt::format(
      "Goodput {:.1f} %: a failure every {} ({} GPUs, {} nodes, {} NICs, {:.0f} switches); a checkpoint of {} written in {} "
      "every {} of training ({}; Young/Daly {}, optimum {}), {} to restart and restore; of the wall time {:.2f} % goes "
      "to checkpoints, {:.2f} % to work lost since the last checkpoint, {:.2f} % to restarts and restores; {} training "
      "take {} of wall time.",
      100 * g.fraction, time_text(g.mtbf_s), b.gpus, b.nodes, b.nodes * b.fabric.nics_per_node, b.fabric.switches,
      core::format_bytes(b.checkpoint_bytes), time_text(in.checkpoint_s), time_text(g.interval_s), interval,
      time_text(g.young_daly_s), time_text(g.optimum_s), time_text(in.restart_s), 100 * g.checkpoint, 100 * g.lost_work,
      100 * g.restart, time_text(o.training_s()), time_text(o.time_s()));
}

/// How far the flow level moved the iteration from the analytic one, in percent (0 below 0.005 %).
double moved_percent(const Outcome& o) {
  const double moved = 100 * (o.flow->iteration_s - o.analytic.iteration_s) / o.analytic.iteration_s;
  return std::abs(moved) < 0.005 ? 0.0 : moved;
}

/// "cheaper", "faster" or "more frugal": better in what the plan minimises.
std::string better_word(const scenario::PlanTarget& t) {
  return t.minimise == "cost" ? "cheaper" : t.minimise == "time" ? "faster" : "more frugal";
}

nlohmann::json evaluation_json(const Evaluation& e) {
  if (!e.ok) return {{"ok", false}, {"error", e.error}};
  nlohmann::json out = {{"ok", true}, {"mean_iteration_s", e.iteration_s}, {"samples_per_s", e.samples_per_s},
                        {"scaling_efficiency", e.scaling_efficiency}, {"exposed_comm_s", e.exposed_comm_s}, {"idle_s", e.idle_s},
                        {"run", e.run}};
  if (e.trained)
    out["training"] = {{"time_to_accuracy_s", e.time_to_accuracy_s ? nlohmann::json(*e.time_to_accuracy_s) : nlohmann::json()},
                       {"steps_to_accuracy", e.time_to_accuracy_s ? nlohmann::json(e.steps_to_accuracy) : nlohmann::json()},
                       {"steps_run", e.steps_run}, {"trained_s", e.trained_s}, {"best_accuracy", e.best_accuracy}};
  return out;
}

/// A table of the candidates `front` lists.
void print_front(std::ostream& out, const scenario::PlanSpec& plan, const PlanResult& r, const std::vector<int>& front) {
  fmt::print(out, "  {:<56} {:>6} {:>10} {:>12} {:>10} {:>12} {:>8}  {}\n", "candidate", "GPUs", "time",
             "cost (" + plan.costs.currency + ")", "kWh", "iteration", "level", "target");
  for (int i : front) {
    const Outcome& o = r.outcomes[i];
    const Spend s = o.spend();
    const std::vector<std::string> missed = misses(o, plan.target);
    fmt::print(out, "  {:<56} {:>6} {:>10} {:>12} {:>10} {:>12} {:>8}  {}\n", o.candidate.label, o.bounds.gpus,
               time_text(o.time_s()), amount(s.cost, 2), amount(s.energy_kwh, 1), ms(o.best().iteration_s),
               o.flow ? "flow" : "analytic", i == r.recommended ? "met, recommended" : missed.empty() ? "met" : "missed");
  }
}

/// How far `o` is from the targets: the largest of its time and cost over their limits and the throughput and
/// efficiency targets over its own (its lower bounds' when not simulated); below 1 when it meets them all.
double shortfall(const Outcome& o, const scenario::PlanTarget& t) {
  double worst = 0;
  if (t.time_s) worst = std::max(worst, o.time_s() / *t.time_s);
  if (t.budget) worst = std::max(worst, o.spend().cost / *t.budget);
  const double lb = o.bounds.iteration_lb_s();
  if (t.samples_per_s) worst = std::max(worst, *t.samples_per_s / (o.bounds.global_batch / lb));
  if (t.scaling_efficiency) worst = std::max(worst, *t.scaling_efficiency / (o.bounds.compute_s / lb));
  return worst;
}

/// Why the candidates that were not simulated (or whose run failed) were rejected, reason by reason, the closest
/// few of each first, and the way out of each reason.
std::vector<std::string> rejected(const scenario::PlanSpec& plan, const PlanResult& r) {
  struct Reason {
    const char* pruned;
    const char* what;
  };
  constexpr Reason kReasons[] = {{"memory", "do not fit in memory (needed vs available per GPU)"},
                                 {"bound", "cannot meet the target by their lower bounds"},
                                 {"failed", "failed when simulated"},
                                 {"invalid", "are refused by the scenario loader"}};
  constexpr std::size_t kShown = 3;
  const scenario::PlanTarget& t = plan.target;
  std::vector<std::string> out;
  for (const Reason& reason : kReasons) {
    std::vector<const Outcome*> these;
    for (const Outcome& o : r.outcomes)
      if (o.pruned == reason.pruned) these.push_back(&o);
    if (these.empty()) continue;
    const auto closeness = [&](const Outcome* o) {
      if (o->pruned == "memory") return o->bounds.memory_peak_bytes / o->bounds.memory_capacity_bytes;
      return o->pruned == "bound" ? shortfall(*o, t) : 0.0;
    };
    std::stable_sort(these.begin(), these.end(), [&](const Outcome* a, const Outcome* b) { return closeness(a) < closeness(b); });
    std::string lines = fmt::format("{} of {} candidates {}{}:", these.size(), r.outcomes.size(), reason.what,
                                    these.size() > 1 && closeness(these.front()) > 0 ? ", the closest first" : "");
    for (std::size_t k = 0; k < std::min(kShown, these.size()); ++k)
      lines += fmt::format("\n  {}: {}", these[k]->candidate.label, these[k]->pruned_why);
    if (these.size() > kShown)
      lines += fmt::format("\n  ... and {} more ({}/plan.json gives each one's reason)", these.size() - kShown, plan.output_dir);
    out.push_back(lines);
    const std::string closest = these.front()->candidate.label;
    if (reason.pruned == std::string("memory") && !r.memory_way_out.empty())
      out.push_back(fmt::format("To fit the closest, {}: {}\n  (keys go in the plan's [set], or are searched with "
                                "[[search.axis]]; a larger GPU is another platform in [search] platforms)",
                                closest, r.memory_way_out));
    else if (reason.pruned == std::string("bound"))
      out.push_back(fmt::format("The closest, {}, would need a looser [target] (a longer time, a larger budget, a lower "
                                "throughput or efficiency), or the search more of what it lacks ([search] nodes, faster "
                                "GPUs in platforms, a faster nic).", closest));
    else
      out.push_back(fmt::format("Their errors are above; correct the [set] keys or [search] choices that cause them "
                                "(a failed run's output is in its point's folder under {}/points).", plan.output_dir));
  }
  return out;
}

}  // namespace

std::vector<std::string> recommendation(const scenario::PlanSpec& plan, const PlanResult& r) {
  std::vector<std::string> out;
  const scenario::PlanTarget& t = plan.target;
  if (r.recommended < 0) {
    int closest = -1;
    for (int i = 0; i < static_cast<int>(r.outcomes.size()); ++i)
      if (r.outcomes[i].simulated() && (closest < 0 || r.outcomes[i].time_s() < r.outcomes[closest].time_s())) closest = i;
    out.push_back("No candidate meets the target.");
    if (closest >= 0)
      out.push_back(fmt::format("The fastest simulated, {} ({}), misses: {}.", r.outcomes[closest].candidate.label,
                                summary(plan, r.outcomes[closest]), join(misses(r.outcomes[closest], t), "; ")));
    for (std::string& line : rejected(plan, r)) out.push_back(std::move(line));
    return out;
  }
  const Outcome& o = r.outcomes[r.recommended];
  out.push_back(fmt::format("Recommended: {}: {}.", o.candidate.label, summary(plan, o)));
  out.push_back(bound_sentence(o));
  if (plan.goodput.enabled) out.push_back(goodput_sentence(plan, o));
  std::vector<std::string> margins;
  if (t.time_s) margins.push_back(fmt::format("it finishes in {} of the {} allowed", time_text(o.time_s()), time_text(*t.time_s)));
  if (t.budget)
    margins.push_back(fmt::format("it costs {:.2f} of the {:.2f} {} budget", o.spend().cost, *t.budget, plan.costs.currency));
  if (!margins.empty()) out.push_back("Target: " + join(margins, ", ") + ".");
  if (o.rate.network_priced) {
    const Fabric& f = o.bounds.fabric;
    double ports = 0;
    for (const PortGroup& g : f.switch_ports) ports += g.count;
    out.push_back(fmt::format("Its network, {} NICs and {:.0f} switch ports in {:.0f} switch{}, costs {} of its {} {} per hour ({}).",
                              o.bounds.nodes * f.nics_per_node, ports, f.switches, f.switches == 1 ? "" : "es",
                              amount(o.rate.network_per_hour, 2), amount(o.rate.per_hour, 2), plan.costs.currency,
                              plan.costs.network_pricing == "rented"
                                  ? "rented"
                                  : fmt::format("list prices amortised over {:g} years", plan.costs.amortisation_years)));
  }
  if (!o.recheck_skipped.empty()) out.push_back("Its flow re-check was skipped: " + o.recheck_skipped + ".");
  if (o.flow && o.analytic.ok)
    out.push_back(fmt::format("At the flow level (contention) its iteration moved {:+.2f} %, from {} (analytic) to {}.",
                              moved_percent(o),
                              ms(o.analytic.iteration_s), ms(o.flow->iteration_s)));
  if (!r.runner_up_why.empty()) out.push_back(r.runner_up_why);
  if (r.next_cheaper >= 0) {
    const Outcome& n = r.outcomes[r.next_cheaper];
    out.push_back(fmt::format("The next {} option, {} ({} {}, {}), misses: {}.", better_word(t), n.candidate.label,
                              amount(n.spend().cost, 2), plan.costs.currency, time_text(n.time_s()), join(misses(n, t), "; ")));
  } else {
    out.push_back(fmt::format("No simulated option is {}.", better_word(t)));
  }
  return out;
}

void print_plan(std::ostream& out, const scenario::PlanSpec& plan, const PlanResult& r) {
  for (const std::string& s : recommendation(plan, r)) fmt::print(out, "{}\n", s);
  if (r.front.empty()) {
    fmt::print(out, "\nNo Pareto front: no candidate was simulated to its end.\n");
    return;
  }
  fmt::print(out, "\nPareto front (time to train vs cost; {} per GPU-hour from {}):\n", plan.costs.currency,
             plan.costs.source);
  print_front(out, plan, r, r.front);
  if (r.energy_front == r.front) {
    fmt::print(out, "The Pareto front of time to train vs energy is the same.\n");
    return;
  }
  fmt::print(out, "Pareto front (time to train vs energy):\n");
  print_front(out, plan, r, r.energy_front);
}

nlohmann::json plan_json(const scenario::PlanSpec& plan, const PlanResult& r, const std::string& command_line) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const Outcome& o : r.outcomes) {
    nlohmann::json settings = nlohmann::json::object();
    for (const auto& [key, value] : o.candidate.settings) {
      const nlohmann::json parsed = nlohmann::json::parse(value, nullptr, false);
      settings[key] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
    }
    nlohmann::json c = {{"index", o.candidate.index}, {"label", o.candidate.label}, {"settings", settings},
                        {"pruned", o.pruned}, {"pruned_why", o.pruned_why}};
    if (o.pruned != "invalid") {
      const Bounds& b = o.bounds;
      const Spend s = o.spend();
      double ports = 0;
      for (const PortGroup& g : b.fabric.switch_ports) ports += g.count;
      c["cluster"] = {{"gpu", b.gpu}, {"gpus", b.gpus}, {"nodes", b.nodes}, {"nic_Bps", b.nic_Bps},
                      {"nics", b.nodes * b.fabric.nics_per_node}, {"switch_ports", ports}, {"switches", b.fabric.switches},
                      {"per_hour", o.rate.per_hour}, {"watts", o.rate.watts},
                      {"network_per_hour", o.rate.network_per_hour}, {"network_watts", o.rate.network_watts}};
      c["bounds"] = {{"iterations", b.iterations}, {"fits", b.fits}, {"memory_peak_bytes", b.memory_peak_bytes},
                     {"memory_capacity_bytes", b.memory_capacity_bytes}, {"compute_s", b.compute_s},
                     {"bandwidth_s", b.bandwidth_s}};
      c["iterations"] = o.iterations();
      if (plan.goodput.enabled) {
        const Goodput& g = o.goodput;
        const auto finite = [](double v) { return std::isinf(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
        c["goodput"] = {{"fraction", g.fraction}, {"failures_per_hour", 3600 * o.goodput_inputs.failures_per_s},
                        {"mtbf_s", finite(g.mtbf_s)}, {"checkpoint_bytes", b.checkpoint_bytes},
                        {"checkpoint_node_bytes", b.checkpoint_node_bytes}, {"checkpoint_s", o.goodput_inputs.checkpoint_s},
                        {"restart_s", o.goodput_inputs.restart_s}, {"interval_s", finite(g.interval_s)},
                        {"young_daly_s", finite(g.young_daly_s)}, {"optimum_s", finite(g.optimum_s)},
                        {"lost", {{"checkpoint", g.checkpoint}, {"lost_work", g.lost_work}, {"restart", g.restart}}},
                        {"training_s", o.training_s()}};
      }
      c["time_s"] = o.time_s();
      c["cost"] = s.cost;
      c["energy_kwh"] = s.energy_kwh;
      c["estimate"] = o.simulated() ? (o.flow ? "flow" : "analytic") : "lower bound";
      c["misses"] = misses(o, plan.target);
    }
    if (o.flow_cpu_s) c["flow_cpu_s_estimate"] = *o.flow_cpu_s;
    if (!o.recheck_skipped.empty()) c["recheck_skipped"] = o.recheck_skipped;
    if (o.analytic.ok || !o.analytic.error.empty()) c["analytic"] = evaluation_json(o.analytic);
    if (o.flow) c["flow"] = evaluation_json(*o.flow);
    candidates.push_back(std::move(c));
  }
  nlohmann::json target = nlohmann::json::object();
  if (plan.target.time_s) target["time_s"] = *plan.target.time_s;
  if (plan.target.budget) target["budget"] = *plan.target.budget;
  if (plan.target.samples_per_s) target["samples_per_s"] = *plan.target.samples_per_s;
  if (plan.target.scaling_efficiency) target["scaling_efficiency"] = *plan.target.scaling_efficiency;
  target["minimise"] = plan.target.minimise;
  nlohmann::json costs = {{"source", plan.costs.source}, {"currency", plan.costs.currency},
                           {"network_pricing", plan.costs.network_pricing}};
  if (plan.costs.network_pricing == "amortised") costs["amortisation_years"] = plan.costs.amortisation_years;
  return {{"schema", "dtsim.plan/1"},
          {"provenance", plan_provenance(plan, command_line)},
          {"job", {{"unit", plan.job.unit}, {"amount", plan.job.amount}, {"global_batch", plan.job.global_batch},
                   {"global_batch_unit", plan.job.global_batch_unit}, {"layout", plan.layout}}},
          {"target", target},
          {"costs", costs},
          {"candidates", candidates},
          {"front", r.front},
          {"energy_front", r.energy_front},
          {"recommended", r.recommended},
          {"next_cheaper", r.next_cheaper},
          {"timeline", r.timeline},
          {"runner_up", r.runner_up},
          {"recommendation", recommendation(plan, r)}};
}

}  // namespace dtsim::plan
