#include "sim/sweep/point_check.hpp"

#include "sim/core/error.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::sweep {
namespace {

/// The error of `point`, which does not load: the first of its overrides that makes it fail, at that value's
/// place in the sweep file.
core::InputError point_error(const scenario::SweepSpec& spec, const scenario::SweepPoint& point) {
  const std::vector<std::string> overrides = point_overrides(spec, point);
  const std::size_t fixed = overrides.size() - spec.base_settings.size() - point.settings.size();
  for (std::size_t k = 0; k <= overrides.size(); ++k) {
    try {
      load_point(spec, std::vector<std::string>(overrides.begin(), overrides.begin() + static_cast<long>(k)));
    } catch (const core::InputError& e) {
      if (k <= fixed) return e;  // the base scenario itself
      const std::size_t i = k - 1 - fixed;
      if (i < spec.base_settings.size()) {
        const std::string& set = spec.base_settings[i];
        const std::string where = i < spec.base_setting_locations.size() ? spec.base_setting_locations[i] : "";
        if (where.empty()) return e;
        return core::InputError(where, "[set] " + set.substr(0, set.find('=')) + " = " + set.substr(set.find('=') + 1) +
                                           " (every point): " + e.problem(),
                                e.allowed());
      }
      const std::size_t a = i - spec.base_settings.size();
      const auto& [key, value] = point.settings[a];
      if (point.locations[a].empty()) return e;
      return core::InputError(point.locations[a],
                              "axis '" + key + "' value " + value + " (point " + std::to_string(point.index) +
                                  "): " + e.problem(),
                              e.allowed());
    }
  }
  // Unreachable: the point was refused when loaded, so one of its settings fails again. fail_check is noreturn
  // (GCC's Debug build warned -Wreturn-type past a DTSIM_CHECK(false, ...)).
  core::fail_check("the point fails again", __FILE__, __LINE__,
                   "point " + std::to_string(point.index) + " of " + spec.source + " loads when checked again");
}

}  // namespace

scenario::Scenario load_point(const scenario::SweepSpec& spec, const std::vector<std::string>& overrides) {
  return spec.base.empty() ? scenario::load_default_scenario(overrides) : scenario::load_scenario(spec.base, overrides);
}

std::vector<PointKey> checked_point_keys(const scenario::SweepSpec& spec, const std::string& dtsim_binary) {
  std::vector<PointKey> keys = point_keys(spec, dtsim_binary);
  for (const scenario::SweepPoint& p : spec.points())
    if (keys[static_cast<std::size_t>(p.index)].scenario_digest.empty()) throw point_error(spec, p);
  return keys;
}

}  // namespace dtsim::sweep
