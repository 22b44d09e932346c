#include "sim/plan/candidate.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "sim/core/error.hpp"
#include "sim/core/nearest_names.hpp"
#include "sim/core/units.hpp"
#include "sim/plan/layout_space.hpp"

namespace dtsim::plan {
namespace {

/// "100Gbps" from the TOML text "\"100Gbps\"".
std::string unquoted(const std::string& value) {
  const bool quoted = value.size() >= 2 && value.front() == '"';
  return quoted ? value.substr(1, value.size() - 2) : value;
}

/// Adds the settings that build template `t` with `nodes` nodes, at `oversubscription` (0: the template's) and
/// with NICs of `nic` (TOML text; empty: the template's); says in `c.invalid` when it cannot be built so.
void build_cluster(const platform::PlatformSpec& t, int nodes, double oversubscription, const std::string& nic,
                   Candidate& c) {
  c.settings.emplace_back("workers", std::to_string(nodes * t.gpus_per_node));
  using platform::Topology;
  if (t.topology == Topology::torus || t.topology == Topology::dragonfly || t.topology == Topology::graph) {
    c.invalid = fmt::format("a {} template's size is set by its own keys (dims, groups, switches), not by a node count",
                            platform::topology_name(t.topology));
    return;
  }
  if (t.topology != Topology::fat_tree) {
    c.settings.emplace_back(t.topology == Topology::star ? "platform.hosts" : "platform.nodes", std::to_string(nodes));
    return;
  }
  const std::vector<int>& down = t.fat_tree.down;
  if (down.size() != 2) {
    c.invalid = fmt::format("plans build fat trees of two switch levels; {} has {}", t.name, down.size());
    return;
  }
  if (nodes % down[0] != 0) {
    c.invalid = fmt::format("{} nodes are not whole leaves of {} nodes", nodes, down[0]);
    return;
  }
  c.settings.emplace_back("platform.down", fmt::format("[{}, {}]", down[0], nodes / down[0]));
  const double nic_Bps = nic.empty() ? t.inter.bandwidth_Bps : core::parse_bandwidth(unquoted(nic));
  const double switch_Bps = nic.empty() ? t.network.bandwidth_Bps : nic_Bps;  // switch links as fast as the NICs
  if (!nic.empty()) c.settings.emplace_back("platform.network_link.bandwidth", nic);
  if (oversubscription <= 0) return;
  // Oversubscription at the leaves = down[0] x NIC bandwidth / (uplinks x switch link bandwidth).
  const double uplinks = down[0] * nic_Bps / (oversubscription * switch_Bps);
  if (std::round(uplinks) < 1 || std::abs(uplinks - std::round(uplinks)) > 1e-9 * uplinks) {
    c.invalid = fmt::format("oversubscription {}:1 needs {:.3f} uplinks per leaf of {} nodes, not a whole number",
                            oversubscription, uplinks, down[0]);
    return;
  }
  c.settings.emplace_back("platform.up", fmt::format("[1, {}]", std::lround(uplinks)));
  c.settings.emplace_back("platform.parallel", "[1, 1]");
}

/// `c` (a cluster) once per layout of the dimensions of `listed` that apply to the model (applicable_dimensions) on it,
/// appended to `out`; once, invalid, when it has none.
void push_layouts(const scenario::PlanSpec& plan, const scenario::Scenario& base, const std::vector<std::string>& listed,
                  int workers, int gpus_per_node, Candidate c, std::vector<Candidate>& out) {
  LayoutSpace space{&base, workers, gpus_per_node, global_batch_samples(plan, base.model)};
  const std::vector<std::string> searched = applicable_dimensions(listed, base.model);
  const std::vector<LayoutPoint> points = c.invalid.empty() ? enumerate_layouts(space, searched) : std::vector<LayoutPoint>{};
  if (points.empty()) {
    if (c.invalid.empty()) {
      space.global_batch *= workers;  // every data extent divides it: is the batch what rules every layout out?
      c.batch_indivisible = !enumerate_layouts(space, searched).empty();
      c.invalid = c.batch_indivisible
                      ? fmt::format("no layout of {} GPUs has data-parallel replicas (workers / tensor x context x "
                                    "pipeline) that divide the global batch of {} samples",
                                    workers, space.global_batch / workers)
                      : fmt::format("no layout of {} GPUs is valid for model '{}' with the dimensions the plan fixes",
                                    workers, base.model.name);
    }
    c.data = workers;  // a global batch that the workers divide, every layout's replicas divide
    c.index = static_cast<int>(out.size());
    out.push_back(std::move(c));
    return;
  }
  for (const LayoutPoint& point : points) {
    Candidate l = c;
    l.index = static_cast<int>(out.size());
    for (auto& setting : layout_settings(point, searched)) l.settings.push_back(std::move(setting));
    l.label += ", " + layout_label(point);
    l.data = point.layout.data;
    out.push_back(std::move(l));
  }
}

}  // namespace

int global_batch_samples(const scenario::PlanSpec& plan, const models::Model& model) {
  const scenario::PlanJob& job = plan.job;
  if (job.global_batch <= 0) return 0;
  if (job.global_batch_unit == "samples") return static_cast<int>(job.global_batch);
  const auto tokens = static_cast<std::int64_t>(job.global_batch);
  if (model.tokens <= 0)
    throw core::InputError(job.global_batch_place, "global_batch_tokens: model '" + model.name + "' has no sequence length",
                           "global_batch = samples a step, for a model that is not a transformer");
  if (tokens % model.tokens != 0)
    throw core::InputError(job.global_batch_place,
                           fmt::format("global_batch_tokens = {} is not a whole number of model '{}''s sequences of {} "
                                       "tokens",
                                       tokens, model.name, model.tokens),
                           fmt::format("a multiple of {}: global_batch_tokens = {}", model.tokens,
                                       core::nearest_multiples(static_cast<int>(std::min<std::int64_t>(tokens, 1 << 30)),
                                                               static_cast<int>(model.tokens))));
  return static_cast<int>(tokens / model.tokens);
}

std::vector<std::string> searched_dimensions(const scenario::PlanSpec& plan) {
  if (plan.layout.empty()) return {};
  const std::vector<std::string> known = layout_dimension_names();
  const bool all = plan.layout == std::vector<std::string>{"auto"};
  // The key of [set] or of an axis that fixes `e`; empty when none does.
  const auto fixed_by = [&](const DimensionEnumerator& e) -> std::string {
    for (std::string_view key : e.keys) {
      for (const std::string& setting : plan.base_settings)
        if (setting.starts_with(std::string(key) + "=")) return "[set] " + std::string(key);
      for (const scenario::PlanAxis& a : plan.axes)
        if (a.key == key) return "[[search.axis]] " + std::string(key);
    }
    return "";
  };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < plan.layout.size() && !all; ++i)
    if (std::find(known.begin(), known.end(), plan.layout[i]) == known.end() || plan.layout[i] == "auto")
      throw core::InputError(plan.layout_places[i], "search.layout names '" + plan.layout[i] + "', not a layout dimension",
                             "\"auto\", or a list of " + core::join_names({known.begin() + 1, known.end()}));
  for (const DimensionEnumerator& e : layout_enumerators()) {
    if (e.derived) continue;
    const auto listed = std::find(plan.layout.begin(), plan.layout.end(), e.name);
    if (!all && listed == plan.layout.end()) continue;
    const std::string fixed = fixed_by(e);
    if (!fixed.empty() && !all)
      throw core::InputError(plan.layout_places[static_cast<std::size_t>(listed - plan.layout.begin())],
                             "search.layout searches '" + std::string(e.name) + "', which " + fixed + " fixes",
                             "search it or fix it, not both (with layout = \"auto\", what [set] fixes is not searched)");
    if (fixed.empty()) out.emplace_back(e.name);
  }
  return out;
}

std::vector<Candidate> enumerate_candidates(const scenario::PlanSpec& plan,
                                            const std::vector<platform::PlatformSpec>& templates,
                                            const scenario::Scenario* base) {
  const std::vector<std::string> searched = searched_dimensions(plan);
  if (!plan.layout.empty() && !base) throw core::InternalError("enumerate_candidates: a layout search needs the base");
  std::vector<Candidate> out;
  const auto nic = std::find_if(plan.axes.begin(), plan.axes.end(),
                                [](const scenario::PlanAxis& a) { return a.key == "platform.inter_link.bandwidth"; });
  const std::size_t nic_axis = static_cast<std::size_t>(nic - plan.axes.begin());
  const std::vector<double> ratios = plan.oversubscription.empty() ? std::vector<double>{0} : plan.oversubscription;
  for (std::size_t p = 0; p < plan.platforms.size(); ++p) {
    const bool fat_tree = templates[p].topology == platform::Topology::fat_tree;
    for (int n : plan.nodes)
      for (std::size_t r = 0; r < ratios.size(); ++r) {
        if (r > 0 && !fat_tree) continue;  // one switch: no oversubscription to choose
        std::vector<std::size_t> digit(plan.axes.size(), 0);
        while (true) {
          const bool uses_nic = n > 1;  // one node uses no NIC: its NIC speeds are one candidate
          if (uses_nic || nic == plan.axes.end() || digit[nic_axis] == 0) {
            Candidate c;
            c.index = static_cast<int>(out.size());
            const std::string& ref = plan.platforms[p];
            c.settings.emplace_back("platform", "\"" + ref + "\"");
            c.label = std::filesystem::path(ref).filename().string() + " x " + std::to_string(n) +
                      (n == 1 ? " node" : " nodes");
            if (fat_tree && ratios[r] > 0) c.label += fmt::format(", {}:1 at the leaves", ratios[r]);
            build_cluster(templates[p], n, ratios[r], nic == plan.axes.end() ? "" : plan.axes[nic_axis].values[digit[nic_axis]],
                          c);
            for (std::size_t a = 0; a < plan.axes.size(); ++a) {
              const std::string& value = plan.axes[a].values[digit[a]];
              const bool star_nic = a == nic_axis && templates[p].topology == platform::Topology::star;
              if (!value.empty()) c.settings.emplace_back(star_nic ? "platform.link.bandwidth" : plan.axes[a].key, value);
              if (!value.empty() && plan.axes[a].key == "compression.compressor" && !plan.compression_kernel_time.empty())
                c.settings.emplace_back("compression.kernel_time", plan.compression_kernel_time);
              if (a == nic_axis && !uses_nic) continue;
              c.label += ", " + plan.axes[a].name + "=" + (value.empty() ? "none" : unquoted(value));
            }
            if (plan.layout.empty())
              out.push_back(std::move(c));
            else
              push_layouts(plan, *base, searched, n * templates[p].gpus_per_node, templates[p].gpus_per_node,
                           std::move(c), out);
          }
          std::size_t a = plan.axes.size();
          while (a > 0 && ++digit[a - 1] == plan.axes[a - 1].values.size()) digit[--a] = 0;
          if (a == 0) break;
        }
      }
  }
  return out;
}

std::vector<std::string> candidate_overrides(const scenario::PlanSpec& plan, const Candidate& c) {
  std::vector<std::string> out = plan.base_settings;
  for (const auto& [key, value] : c.settings) out.push_back(key + "=" + value);
  return out;
}

}  // namespace dtsim::plan
