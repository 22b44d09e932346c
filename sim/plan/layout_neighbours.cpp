#include "sim/plan/layout_neighbours.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/memory/recomputation.hpp"
#include "sim/parallel/gradient_dtype.hpp"
#include "sim/run/memory_check.hpp"
#include "sim/scenario/keys.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/parallel_section.hpp"
#include "viz/path_kinds.hpp"
#include "viz/quantity_text.hpp"

namespace dtsim::plan {
namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

/// The run's layout and the quantities every neighbour keeps.
struct Run {
  const scenario::Scenario& s;
  parallel::Layout layout;  ///< micro-batch resolved
  int global_batch;         ///< samples per iteration over all replicas
};

/// `to` (tensor, pipeline, sharding and micro-batch changed from the run's) as settings: data follows from the
/// workers, batch_size from the global batch, and the gradient dtype stays the run's. `what` names the change; the
/// why adds the layout it makes when data or the micro-batches change.
LayoutWhatIf relayout(const Run& r, parallel::Layout to, const std::string& what) {
  const parallel::Layout& from = r.layout;
  LayoutWhatIf w;
  const auto refuse = [&](std::string reason) {
    w.not_run = std::move(reason);
    return w;
  };
  if (to.tensor != from.tensor) w.settings.emplace_back("parallel.tensor", std::to_string(to.tensor));
  if (to.pipeline != from.pipeline) w.settings.emplace_back("parallel.pipeline", std::to_string(to.pipeline));
  const int model_parallel = to.tensor * to.pipeline;
  if (r.s.workers % model_parallel != 0)
    return refuse(fmt::format("tensor x pipeline = {} does not divide the {} workers", model_parallel, r.s.workers));
  to.data = r.s.workers / model_parallel;
  if (to.data != from.data) w.settings.emplace_back("parallel.data", std::to_string(to.data));
  if (r.global_batch % to.data != 0)
    return refuse(fmt::format("the global batch of {} samples does not split over {} replicas", r.global_batch,
                              to.data));
  const int batch = r.global_batch / to.data;
  if (batch != r.s.batch_size) w.settings.emplace_back("batch_size", std::to_string(batch));
  if (to.micro_batch != from.micro_batch) w.settings.emplace_back("parallel.micro_batch", std::to_string(to.micro_batch));
  if (batch % to.micro_batch != 0)
    return refuse(fmt::format("micro-batches of {} do not divide the {} samples of a replica", to.micro_batch, batch));
  if (to.sharding != from.sharding)
    w.settings.emplace_back("parallel.sharding", std::string(parallel::sharding_name(to.sharding)));
  // --set cannot remove a key: one that the change makes inapplicable must not be in the scenario.
  if (to.tensor == 1 && from.sequence_parallel)
    return refuse("parallel.sequence_parallel = true needs tensor > 1; without it in the scenario, this can be run");
  const scenario::KeySpec& schedule = scenario::key_spec("parallel", "schedule");
  if (to.pipeline == 1 && (from.schedule != schedule.default_text || from.virtual_stages != 1))
    return refuse("parallel.schedule and virtual_stages need pipeline > 1; without them in the scenario, this can "
                  "be run");
  if (to.pipeline != from.pipeline && !from.layers_per_stage.empty())
    return refuse(fmt::format("parallel.layers_per_stage lists the layers of {} stages; without it in the scenario, "
                              "this can be run", from.pipeline));
  if (parallel::default_gradient_dtype(to, r.s.precision) != r.s.gradient_dtype)
    w.settings.emplace_back("strategy.gradient_dtype", std::string(models::precision_name(r.s.gradient_dtype)));
  w.why = what;
  if (to.data != from.data)
    w.why += fmt::format(": {}, {} samples a replica", parallel::extents_name(to), batch);
  if (to.micro_batch != from.micro_batch)
    w.why += fmt::format(", {} a replica instead of {}", batch / to.micro_batch, batch / from.micro_batch);
  return w;
}

void tensor_steps(const Run& r, std::vector<LayoutWhatIf>& out) {
  parallel::Layout to = r.layout;
  const int gpus_per_node = r.s.platform.gpus_per_node;
  to.tensor = 2 * r.layout.tensor;
  if (to.tensor <= gpus_per_node)
    out.push_back(relayout(r, to, "tensor groups twice as wide"));
  else
    out.push_back({{{"parallel.tensor", std::to_string(to.tensor)}},
                   "",
                   fmt::format("tensor {} would span nodes of {} GPUs; Megatron-LM keeps a tensor group, whose "
                               "all-reduces run at every layer, inside a node (Narayanan et al. 2021, section 3)",
                               to.tensor, gpus_per_node)});
  if (r.layout.tensor % 2 == 0) {
    to.tensor = r.layout.tensor / 2;
    out.push_back(relayout(r, to, "tensor groups half as wide"));
  }
}

void pipeline_steps(const Run& r, std::vector<LayoutWhatIf>& out) {
  parallel::Layout to = r.layout;
  to.pipeline = 2 * r.layout.pipeline;
  out.push_back(relayout(r, to, "twice the pipeline stages"));
  if (r.layout.pipeline % 2 == 0) {
    to.pipeline = r.layout.pipeline / 2;
    out.push_back(relayout(r, to, "half the pipeline stages"));
  }
}

void micro_batch_steps(const Run& r, std::vector<LayoutWhatIf>& out) {
  parallel::Layout to = r.layout;
  const auto text = [&] { return fmt::format("micro-batches of {} samples", to.micro_batch); };
  to.micro_batch = 2 * r.layout.micro_batch;
  if (to.micro_batch <= r.s.batch_size) out.push_back(relayout(r, to, text()));
  if (r.layout.micro_batch > 1) {
    to.micro_batch = r.layout.micro_batch / 2;
    if (r.layout.micro_batch % 2 == 0)
      out.push_back(relayout(r, to, text()));
    else
      out.push_back({{{"parallel.micro_batch", std::to_string(to.micro_batch)}}, "",
                     fmt::format("micro-batches of {} samples have no half", r.layout.micro_batch)});
  }
}

void recomputation_steps(const Run& r, std::vector<LayoutWhatIf>& out) {
  const std::string now(memory::recomputation_name(r.s.memory.recomputation));
  for (const std::string& name : memory::recomputation_names())
    if (name != now)
      out.push_back({{{"memory.activation_recomputation", name}},
                     fmt::format("activation recomputation {} instead of {}", name, now),
                     ""});
}

/// What each sharding keeps on a GPU (parallel::Sharding, in its order).
constexpr std::string_view kShardingWords[] = {
    "every replica holds every model state",
    "optimizer state sharded over the data group (ZeRO-1)",
    "optimizer state and gradients sharded over the data group (ZeRO-2)",
    "parameters sharded too, gathered for each layer's forward and backward (ZeRO-3 / FSDP)",
    "ZeRO-3 inside each node, replicas across nodes (FSDP hybrid)",
};

void sharding_steps(const Run& r, std::vector<LayoutWhatIf>& out) {
  const auto now = static_cast<int>(r.layout.sharding);
  const auto count = static_cast<int>(parallel::sharding_names().size());
  for (const int step : {1, -1}) {
    if (now + step < 0 || now + step >= count) continue;
    parallel::Layout to = r.layout;
    to.sharding = static_cast<parallel::Sharding>(now + step);
    out.push_back(relayout(r, to, fmt::format("sharding {}: {}", parallel::sharding_name(to.sharding),
                                              kShardingWords[now + step])));
  }
}

void gradient_dtype_steps(const Run& r, std::vector<LayoutWhatIf>& out) {
  using models::Precision;
  const Precision sixteen = models::non_gemm_precision(r.s.precision);  // fp8 trains bf16 gradients
  const bool half = sixteen == Precision::bf16 || sixteen == Precision::fp16;
  const Precision now = r.s.gradient_dtype;
  const Precision other = now != Precision::fp32 ? Precision::fp32 : half ? sixteen : now;
  if (other == now) return;
  out.push_back({{{"strategy.gradient_dtype", std::string(models::precision_name(other))}},
                 fmt::format("data-parallel gradients kept and reduced in {} instead of {}",
                             models::precision_name(other), models::precision_name(now)),
                 ""});
}

/// The data dimension's own knobs; the loader refuses those a layout does not run yet (combination_refusal), and
/// explain lists them as not run with its reason, so that each one joins the ranking once layouts run it.
void data_parallel_steps(const Run& r, std::vector<LayoutWhatIf>& out) {
  for (const char* scheduler : {"ddp", "mg_wfbp"})
    if (r.s.scheduler != scheduler)
      out.push_back({{{"strategy.scheduler", scheduler}}, std::string("the ") + scheduler + " scheduler's buckets", ""});
  if (r.s.compression.compressor.empty())
    out.push_back({{{"compression.compressor", "topk"}, {"compression.error_feedback", "residual"}},
                   "the data-parallel gradients' largest 1 % sent, with error feedback",
                   ""});
}

/// The knobs, in the order explain lists their neighbours.
constexpr void (*kKnobs[])(const Run&, std::vector<LayoutWhatIf>&) = {
    tensor_steps,  pipeline_steps,       micro_batch_steps,   recomputation_steps,
    sharding_steps, gradient_dtype_steps, data_parallel_steps,
};

/// The kinds of task of a critical path as explain names them: computation (forward, backward, optimizer step),
/// recomputation, and each kind of communication.
std::vector<std::pair<std::string, double>> path_parts(const nlohmann::json& report) {
  const viz::PathKinds path = viz::path_kinds(report["critical_path"]);
  std::vector<std::pair<std::string, double>> parts{{"computation", 0}};
  for (const viz::PathKind& k : path.kinds) {
    if (viz::is_compute(k.category) && k.category != "recompute") {
      parts.front().second += k.seconds;
      continue;
    }
    parts.emplace_back(k.category == "recompute" ? "recomputation" : viz::communication_text(k.category), k.seconds);
  }
  return parts;
}

double mean_exposed_s(const nlohmann::json& report) {
  double total = 0;
  for (const auto& it : report["iterations"]) total += it["breakdown_mean"]["exposed_comm_s"].get<double>();
  return total / static_cast<double>(report["iterations"].size());
}

}  // namespace

std::vector<LayoutWhatIf> layout_what_ifs(const scenario::Scenario& s) {
  const Run r{s, scenario::layout_of(s), s.batch_size * s.parallel.data};
  std::vector<LayoutWhatIf> out;
  for (const auto knob : kKnobs) knob(r, out);
  return out;
}

std::vector<std::string> inapplicable_defaults(const scenario::Scenario& s) {
  std::vector<std::string> keys;
  const parallel::Layout& l = s.parallel;
  if (l.tensor > 1 && !l.sequence_parallel) keys.push_back("parallel.sequence_parallel");
  if (l.pipeline > 1 && l.schedule == scenario::key_spec("parallel", "schedule").default_text && l.virtual_stages == 1)
    keys.insert(keys.end(), {"parallel.schedule", "parallel.virtual_stages"});
  return keys;
}

WhatIfCheck check_what_if(const std::string& base, const Settings& settings) {
  std::vector<std::string> overrides;
  for (const auto& [key, value] : settings) overrides.push_back(key + "=" + value);
  WhatIfCheck check;
  try {
    scenario::Scenario s = scenario::load_scenario(base, overrides);
    check.digest = s.provenance.digest;
    const bool refuse = s.memory.refuse;
    s.memory.refuse = false;  // the breakdown, to say by how much
    const memory::MemoryBreakdown b = run::check_memory(s);
    if (refuse && !b.fits())
      check.does_not_fit = fmt::format("does not fit: needs {} of the {}'s {} per GPU ({})",
                                       core::format_bytes(b.total_bytes()), b.gpu, core::format_bytes(b.capacity_bytes),
                                       b.where);
  } catch (const core::InputError& e) {
    check.refused = e.problem().substr(0, e.problem().find('\n'));
  }
  return check;
}

std::string simulated_difference(const nlohmann::json& run, const nlohmann::json& neighbour) {
  const double now_s = run["summary"]["mean_iteration_s"].get<double>();
  const auto before = path_parts(run), after = path_parts(neighbour);
  std::vector<std::tuple<double, std::string, double, double>> moved;  // |change|, part, before, after
  const auto seconds = [](const auto& parts, const std::string& name) {
    const auto it = std::find_if(parts.begin(), parts.end(), [&](const auto& p) { return p.first == name; });
    return it == parts.end() ? 0.0 : it->second;
  };
  std::vector<std::string> names;
  for (const auto& parts : {before, after})
    for (const auto& [name, s] : parts)
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  for (const std::string& name : names) {
    const double was = seconds(before, name), is = seconds(after, name);
    if (std::abs(is - was) >= 0.01 * now_s) moved.emplace_back(std::abs(is - was), name, was, is);
  }
  std::stable_sort(moved.begin(), moved.end(), [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
  std::string parts;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, moved.size()); ++i)
    parts += fmt::format("{}{} {} -> {}", i ? ", " : "", std::get<1>(moved[i]), viz::duration_text(std::get<2>(moved[i])),
                         viz::duration_text(std::get<3>(moved[i])));
  std::string text = parts.empty() ? "the critical path's parts within 1 % of the iteration each"
                                   : "on the critical path " + parts;
  const double exposed_was = mean_exposed_s(run), exposed_is = mean_exposed_s(neighbour);
  if (std::abs(exposed_is - exposed_was) >= 0.01 * now_s)
    text += fmt::format("; exposed communication {} -> {}", viz::duration_text(exposed_was),
                        viz::duration_text(exposed_is));
  const nlohmann::json &m0 = run["memory"], &m1 = neighbour["memory"];
  if (m0.contains("peak_bytes") && m1.contains("peak_bytes") &&
      m0["peak_bytes"].get<double>() != m1["peak_bytes"].get<double>())
    text += fmt::format("; memory {} -> {} of {}", core::format_bytes(m0["peak_bytes"].get<double>()),
                        core::format_bytes(m1["peak_bytes"].get<double>()),
                        core::format_bytes(m1["capacity_bytes"].get<double>()));
  return text;
}

}  // namespace dtsim::plan
