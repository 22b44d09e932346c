#include "sim/scenario/sweep_spec.hpp"

#include <filesystem>

#include <toml++/toml.h>

#include "sim/core/error.hpp"
#include "sim/scenario/section.hpp"
#include "sim/scenario/toml_file.hpp"

namespace dtsim::scenario {
namespace fs = std::filesystem;

namespace {

/// Adds value `i` of `axis` to `point`.
void add_setting(SweepPoint& point, const Axis& axis, std::size_t i) {
  point.settings.emplace_back(axis.key, axis.values[i]);
  point.locations.push_back(i < axis.locations.size() ? axis.locations[i] : "");
}

}  // namespace

std::vector<SweepPoint> SweepSpec::points() const {
  std::vector<SweepPoint> out;
  if (axes.empty()) return {SweepPoint{0, {}, {}}};
  if (zip) {
    for (std::size_t i = 0; i < axes.front().values.size(); ++i) {
      SweepPoint p{static_cast<int>(i), {}, {}};
      for (const Axis& a : axes) add_setting(p, a, i);
      out.push_back(std::move(p));
    }
    return out;
  }
  std::vector<std::size_t> digit(axes.size(), 0);
  for (int index = 0;; ++index) {
    SweepPoint p{index, {}, {}};
    for (std::size_t a = 0; a < axes.size(); ++a) add_setting(p, axes[a], digit[a]);
    out.push_back(std::move(p));
    std::size_t a = axes.size();
    while (a > 0 && ++digit[a - 1] == axes[a - 1].values.size()) digit[--a] = 0;
    if (a == 0) return out;
  }
}

SweepSpec load_sweep(const std::string& path) {
  toml::table root = parse_toml_file(path, "sweep file");
  SweepSpec spec;
  spec.source = path;
  Section top(root, "");
  top.allow({"base", "mode", "jobs", "output", "set", "axis"});
  spec.base = base_scenario(top, path, "sweep file");
  spec.zip = top.choice("mode", "grid", {"grid", "zip"}) == "zip";
  spec.jobs = static_cast<int>(top.integer("jobs", 1, 1, 256));
  spec.output_dir = fs::path(top.string("output", fs::path(path).stem().string() + "-out")).lexically_normal().string();
  spec.base_settings = set_overrides(root, top);
  if (const toml::table* set = root["set"].as_table())  // in set_overrides' order: the table's
    for (const auto& [key, value] : *set) spec.base_setting_locations.push_back(where(value.source()));
  for (Section& axis : top.tables("axis")) {
    axis.allow({"key", "values"});
    Axis a;
    a.key = axis.required_string("key");
    const toml::node* values = root.get("axis")->as_array()->get(spec.axes.size());
    const toml::node* list = values->as_table()->get("values");
    axis.has("values");
    if (!list || !list->is_array() || list->as_array()->empty())
      throw core::InputError(list ? where(list->source()) : axis.where_table(),
                             "axis '" + a.key + "' needs a non-empty array 'values'", "e.g. values = [4, 8, 16]");
    for (const toml::node& v : *list->as_array()) {
      if (v.is_array())
        throw core::InputError(where(v.source()), "axis '" + a.key + "' has an array value",
                               "values are strings, numbers, booleans or inline tables (merged into the table the "
                               "key names)");
      a.values.push_back(toml_text(v));
      a.locations.push_back(where(v.source()));
    }
    for (const Axis& other : spec.axes)
      if (other.key == a.key) throw core::InputError(axis.where_key("key"), "axis '" + a.key + "' appears twice", "sweep each key once");
    if (spec.zip && !spec.axes.empty() && a.values.size() != spec.axes.front().values.size())
      throw core::InputError(axis.where_key("values"),
                             "zip axis '" + a.key + "' has " + std::to_string(a.values.size()) + " values but '" +
                                 spec.axes.front().key + "' has " + std::to_string(spec.axes.front().values.size()),
                             "in zip mode every axis has the same number of values");
    axis.finish();
    spec.axes.push_back(std::move(a));
  }
  top.finish();
  return spec;
}

}  // namespace dtsim::scenario
