#include "sim/scenario/plan_spec.hpp"

#include <cctype>
#include <filesystem>
#include <utility>

#include <toml++/toml.h>

#include "sim/core/error.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/section.hpp"
#include "sim/scenario/toml_file.hpp"

namespace dtsim::scenario {
namespace fs = std::filesystem;
namespace {

/// The non-empty array `key` of `table` (read through `section`), each element checked by `element`.
template <class Element>
void for_each_value(Section& section, const toml::table& table, const std::string& key, const std::string& example,
                    Element element) {
  if (!section.has(key)) return;
  const toml::node* list = table.get(key);
  if (!list->is_array() || list->as_array()->empty())
    throw core::InputError(where(list->source()), "'" + key + "' must be a non-empty array", "e.g. " + example);
  for (const toml::node& v : *list->as_array()) element(v);
}

/// A platform template: a built-in name as it is, a file relative to the plan made absolute.
std::string platform_ref(const toml::node& v, const fs::path& folder) {
  if (!v.is_string())
    throw core::InputError(where(v.source()), "a platform template must be a string",
                           "a built-in platform name or a platform file relative to the plan");
  const std::string ref = *v.value<std::string>();
  if (ref.find('/') == std::string::npos && !ref.ends_with(".toml")) return ref;
  const fs::path path = fs::absolute(folder / ref).lexically_normal();
  if (!fs::exists(path))
    throw core::InputError(where(v.source()), "platform file '" + path.string() + "' does not exist",
                           "give a built-in platform name or a platform file relative to the plan");
  return path.string();
}

/// A named choice of [search] that sets one scenario key; `none_value` (if any) leaves the base's setting.
void read_choice(Section& search, const toml::table& table, const std::string& name, const std::string& key,
                 const std::string& example, const std::string& none_value, std::vector<PlanAxis>& axes) {
  PlanAxis axis{name, key, {}};
  for_each_value(search, table, name, example, [&](const toml::node& v) {
    if (!v.is_string())
      throw core::InputError(where(v.source()), "'search." + name + "' holds a " +
                                                    std::string(toml::impl::node_type_friendly_names[static_cast<int>(v.type())]),
                             "strings, e.g. " + example);
    const bool none = !none_value.empty() && *v.value<std::string>() == none_value;
    axis.values.push_back(none ? "" : toml_text(v));
  });
  if (!axis.values.empty()) axes.push_back(std::move(axis));
}

PlanJob read_job(Section& job) {
  job.allow({"samples", "tokens", "iterations", "accuracy", "global_batch", "global_batch_tokens"});
  PlanJob out;
  for (const char* unit : {"global_batch", "global_batch_tokens"})
    if (job.has(unit)) {
      if (out.global_batch > 0)
        throw core::InputError(job.where_key(unit), "[job] gives both global_batch and global_batch_tokens",
                               "one of them: global_batch = 1024 (sequences a step) or global_batch_tokens = 4194304");
      out.global_batch = static_cast<double>(job.integer(unit, 1, 1, std::int64_t{1} << 40));
      out.global_batch_unit = std::string(unit) == "global_batch" ? "samples" : "tokens";
      out.global_batch_place = job.where_key(unit);
    }
  int given = 0;
  for (const char* unit : {"samples", "tokens", "iterations", "accuracy"})
    if (job.has(unit)) {
      out.unit = unit;
      out.amount = out.unit == "accuracy" ? job.number(unit, 0, 1) : job.number(unit, 1, 1e21);
      ++given;
    }
  if (given != 1)
    throw core::InputError(job.where_table(), "[job] needs exactly one of samples, tokens, iterations, accuracy (" +
                                                  std::to_string(given) + " given)",
                           "e.g. samples = 115305030 (ImageNet-1k, 90 epochs), or accuracy = 0.85 with [numerics]");
  job.finish();
  return out;
}

PlanTarget read_target(Section& target) {
  target.allow({"time", "budget", "throughput", "scaling_efficiency", "minimise"});
  PlanTarget out;
  out.time_s = target.optional_duration("time");
  if (target.has("budget")) out.budget = target.number("budget", 0, 1e15);
  if (target.has("throughput")) out.samples_per_s = target.number("throughput", 0, 1e15);
  if (target.has("scaling_efficiency")) out.scaling_efficiency = target.number("scaling_efficiency", 0, 1);
  out.minimise = target.choice("minimise", "cost", {"cost", "time", "energy"});
  target.finish();
  return out;
}

PlanGoodput read_goodput(Section& g) {
  g.allow({"gpu_failure_rate", "node_failure_rate", "nic_failure_rate", "switch_failure_rate", "checkpoint_write_bandwidth",
           "checkpoint_read_bandwidth", "restart_time", "checkpoint_interval"});
  PlanGoodput out;
  out.enabled = true;
  const std::pair<const char*, double*> rates[] = {{"gpu_failure_rate", &out.gpu_per_hour},
                                                   {"node_failure_rate", &out.node_per_hour},
                                                   {"nic_failure_rate", &out.nic_per_hour},
                                                   {"switch_failure_rate", &out.switch_per_hour}};
  for (const auto& [key, rate] : rates)
    if (g.has(key)) *rate = g.number(key, 0, 1);
  if (auto bw = g.optional_bandwidth("checkpoint_write_bandwidth")) out.write_Bps = *bw;
  if (auto bw = g.optional_bandwidth("checkpoint_read_bandwidth")) out.read_Bps = *bw;
  if (auto t = g.optional_duration("restart_time")) out.restart_s = *t;
  if (g.has("checkpoint_interval")) {
    const std::string text = g.string("checkpoint_interval", "optimal");
    if (text == "optimal" || text == "young_daly") {
      out.interval = text;
    } else if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.')) {
      throw core::InputError(g.where_key("checkpoint_interval"), "checkpoint_interval = \"" + text + "\" is not known",
                             "\"optimal\" (default), \"young_daly\" or a duration such as \"30min\"");
    } else {
      out.interval = "fixed";
      out.interval_s = g.duration("checkpoint_interval");
      if (out.interval_s <= 0)
        throw core::InputError(g.where_key("checkpoint_interval"), "checkpoint_interval must be longer than 0",
                               "\"optimal\" (default), \"young_daly\" or a duration such as \"30min\"");
    }
  }
  g.finish();
  return out;
}

void read_search(Section& search, const toml::table& table, const fs::path& folder, PlanSpec& spec) {
  search.allow({"platforms", "nodes", "oversubscription", "nic", "scheduler", "collective", "sync", "precision", "compression",
                "compression_kernel_time", "recheck_cpu_limit", "axis", "layout"});
  if (auto limit = search.optional_duration("recheck_cpu_limit")) spec.recheck_cpu_limit_s = *limit;
  for_each_value(search, table, "platforms", "[\"v100_4x4_100gbib\", \"my_cluster.toml\"]",
                 [&](const toml::node& v) { spec.platforms.push_back(platform_ref(v, folder)); });
  if (spec.platforms.empty())
    throw core::InputError(search.where_table(), "[search] needs 'platforms'",
                           "platform templates to build the clusters from, e.g. platforms = [\"v100_4x4_100gbib\"]");
  for_each_value(search, table, "nodes", "[1, 2, 4, 8]", [&](const toml::node& v) {
    if (!v.is_integer() || *v.value<std::int64_t>() < 1 || *v.value<std::int64_t>() > 65536)
      throw core::InputError(where(v.source()), "'search.nodes' holds something other than a node count",
                             "integers from 1 to 65536");
    spec.nodes.push_back(static_cast<int>(*v.value<std::int64_t>()));
  });
  if (spec.nodes.empty())
    throw core::InputError(search.where_table(), "[search] needs 'nodes'",
                           "node counts to try, e.g. nodes = [1, 2, 4, 8] (workers = nodes x GPUs per node)");
  for_each_value(search, table, "oversubscription", "[1, 2, 4]", [&](const toml::node& v) {
    if (!v.is_number() || *v.value<double>() < 1 || *v.value<double>() > 1024)
      throw core::InputError(where(v.source()), "'search.oversubscription' holds something other than a ratio",
                             "numbers from 1 (full bisection) to 1024, e.g. 2 for 2:1 at the leaves");
    spec.oversubscription.push_back(*v.value<double>());
  });
  read_choice(search, table, "nic", "platform.inter_link.bandwidth", "[\"25Gbps\", \"100Gbps\"]", "", spec.axes);
  read_choice(search, table, "scheduler", "strategy.scheduler", "[\"wfbp\", \"ddp\"]", "", spec.axes);
  read_choice(search, table, "collective", "strategy.collective", "[\"ring\", \"nccl\"]", "", spec.axes);
  read_choice(search, table, "sync", "strategy.sync", "[\"bsp\", \"local_sgd\"]", "", spec.axes);
  read_choice(search, table, "precision", "gpu.precision", "[\"fp32\", \"fp16\"]", "", spec.axes);
  read_choice(search, table, "compression", "compression.compressor", "[\"none\", \"fp16\"]", "none", spec.axes);
  if (search.has("compression_kernel_time")) {
    search.bandwidth("compression_kernel_time");  // validated here, set on each candidate that compresses
    spec.compression_kernel_time = toml_text(*table.get("compression_kernel_time"));
  }
  if (search.has("layout")) {
    const toml::node& layout = *table.get("layout");
    const std::string allowed = "layout = \"auto\" (every layout dimension), or the dimensions to search, e.g. "
                                "layout = [\"tensor\", \"pipeline\", \"micro_batch\"]";
    if (layout.is_string() && *layout.value<std::string>() == "auto") {
      spec.layout = {"auto"};
      spec.layout_places = {where(layout.source())};
    } else if (layout.is_array() && !layout.as_array()->empty()) {
      for (const toml::node& v : *layout.as_array()) {
        if (!v.is_string()) throw core::InputError(where(v.source()), "'search.layout' holds something other than a name", allowed);
        spec.layout.push_back(*v.value<std::string>());
        spec.layout_places.push_back(where(v.source()));
      }
    } else {
      throw core::InputError(where(layout.source()), "'search.layout' is neither \"auto\" nor a list of dimensions", allowed);
    }
  }
  std::size_t index = 0;
  for (Section& axis : search.tables("axis")) {
    axis.allow({"key", "values"});
    PlanAxis a;
    a.key = a.name = axis.required_string("key");
    const toml::table& entry = *table.get("axis")->as_array()->get(index++)->as_table();
    for_each_value(axis, entry, "values", "values = [\"ddp\", \"fusion\"]", [&](const toml::node& v) {
      if (v.is_array())
        throw core::InputError(where(v.source()), "axis '" + a.key + "' has an array value",
                               "strings, numbers, booleans or inline tables");
      a.values.push_back(toml_text(v));
    });
    if (a.values.empty())
      throw core::InputError(axis.where_table(), "axis '" + a.key + "' needs 'values'", "e.g. values = [4, 8]");
    axis.finish();
    spec.axes.push_back(std::move(a));
  }
  for (std::size_t i = 0; i < spec.axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (spec.axes[i].key == spec.axes[j].key)
        throw core::InputError(search.where_table(), "the scenario key '" + spec.axes[i].key + "' is searched twice ('" +
                                                         spec.axes[j].name + "' and '" + spec.axes[i].name + "')",
                               "search each key once");
  for (const PlanAxis& a : spec.axes)
    if (a.key == "workers" || a.key == "platform" || a.key == "platform.nodes")
      throw core::InputError(search.where_table(), "[[search.axis]] sets '" + a.key + "'",
                             "the cluster comes from 'platforms' and 'nodes' (workers = nodes x GPUs per node)");
  search.finish();
}

}  // namespace

PlanSpec load_plan(const std::string& path) {
  toml::table root = parse_toml_file(path, "plan file");
  PlanSpec spec;
  spec.source = path;
  const fs::path folder = fs::path(path).parent_path();
  Section top(root, "");
  top.allow({"base", "output", "jobs", "recheck", "cost_file", "set", "job", "target", "search", "costs", "goodput"});
  spec.base = base_scenario(top, path, "plan file");
  spec.output_dir = fs::path(top.string("output", fs::path(path).stem().string() + "-plan")).lexically_normal().string();
  spec.jobs = static_cast<int>(top.integer("jobs", 0, 1, 256));
  spec.recheck = static_cast<int>(top.integer("recheck", 3, 0, 1000));
  spec.base_settings = set_overrides(root, top, &spec.set_places);
  std::optional<Section> job = top.table("job");
  if (!job) throw core::InputError(top.where_table(), "missing table [job]", "how much to train: samples, tokens or iterations");
  spec.job = read_job(*job);
  for (std::size_t i = 0; i < spec.base_settings.size() && spec.job.global_batch > 0; ++i)
    if (spec.base_settings[i].starts_with("batch_size="))
      throw core::InputError(spec.set_places[i], "[set] batch_size fixes the batch of a replica, and [job] " +
                                                     std::string(spec.job.global_batch_unit == "samples" ? "global_batch"
                                                                                                       : "global_batch_tokens") +
                                                     " the batch of a step, from which each candidate derives its own",
                             "leave batch_size out ([job] global_batch sets it: global batch / data-parallel replicas), "
                             "or leave out the global batch (every replica then trains batch_size)");
  if (spec.job.unit == "accuracy") {  // numerics mode reports the simulated time to reach it
    const toml::node& accuracy = *root.at_path("job.accuracy").node();
    Scenario base;
    try {
      base = spec.base.empty() ? load_default_scenario(spec.base_settings) : load_scenario(spec.base, spec.base_settings);
    } catch (const core::InputError& e) {
      throw at_set_place(spec, e);
    }
    if (!base.numerics.enabled)
      throw core::InputError(where(accuracy.source()), "[job] accuracy needs numerics mode, but the base scenario trains no "
                                                       "model (no [numerics])",
                             "give a base scenario with a [numerics] table of a small model, or train samples, tokens or "
                             "iterations");
    spec.base_settings.push_back("numerics.target_accuracy=" + toml_text(accuracy));
  }
  if (std::optional<Section> target = top.table("target")) spec.target = read_target(*target);
  std::optional<Section> search = top.table("search");
  if (!search) throw core::InputError(top.where_table(), "missing table [search]", "the choices to search: platforms, nodes, nic, ...");
  read_search(*search, *root.get("search")->as_table(), folder, spec);
  if (!spec.layout.empty() && spec.job.global_batch <= 0)
    throw core::InputError(spec.layout_places.front(), "search.layout changes the data-parallel replicas, and [job] fixes "
                                                       "no global batch for them to split",
                           "[job] global_batch = sequences a step (or global_batch_tokens = tokens a step)");
  std::string cost_file;
  if (auto file = top.optional_string("cost_file")) {
    cost_file = (folder / *file).lexically_normal().string();
    if (!fs::exists(cost_file))
      throw core::InputError(top.where_key("cost_file"), "cost file '" + cost_file + "' does not exist",
                             "give a cost table relative to the plan file, or leave cost_file out for the built-in "
                             "platforms/costs.toml");
  }
  spec.costs = load_cost_table(cost_file);
  if (std::optional<Section> costs = top.table("costs")) {
    apply_cost_overrides(*costs, spec.costs);
    spec.costs.source += " with " + path + " [costs]";
  }
  if (std::optional<Section> goodput = top.table("goodput")) spec.goodput = read_goodput(*goodput);
  top.finish();
  return spec;
}

core::InputError at_set_place(const PlanSpec& plan, const core::InputError& e) {
  const std::string_view what = e.what();
  for (std::size_t i = 0; i < plan.base_settings.size(); ++i)
    if (what.starts_with("--set " + plan.base_settings[i] + ": ")) return e.at(plan.set_places[i]);
  return e;
}

}  // namespace dtsim::scenario
