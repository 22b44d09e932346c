#include "sim/scenario/stragglers_section.hpp"

#include <fstream>
#include <sstream>


#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scenario/key_hints.hpp"
#include "sim/scenario/keys.hpp"

namespace dtsim::scenario {
namespace {

/// An array of worker indices of this scenario.
std::vector<int> worker_list(Section& t, const toml::table& table, const std::string& key, int workers) {
  std::vector<int> list;
  const toml::node* node = table.get(key);
  if (!node) return list;
  t.has(key);
  if (!node->is_array())
    throw core::InputError(where(node->source()), "'" + key + "' is not an array", "e.g. " + key + " = [3, 7]");
  for (const toml::node& w : *node->as_array()) {
    if (!w.is_integer() || *w.value<std::int64_t>() < 0 || *w.value<std::int64_t>() >= workers)
      throw core::InputError(where(w.source()), key + ": not a worker of this scenario",
                             "worker indices 0 to " + std::to_string(workers - 1));
    list.push_back(static_cast<int>(*w.value<std::int64_t>()));
  }
  return list;
}

Interference load_interference(Section& t, const toml::table& table, int workers) {
  allow_keys(t, "stragglers.interference");
  Interference i;
  i.period_s = t.duration("period");
  i.duration_s = t.duration("duration");
  if (i.period_s <= 0 || i.duration_s <= 0 || i.duration_s > i.period_s)
    throw core::InputError(t.where_key(i.period_s <= 0 ? "period" : "duration"),
                           "interference needs 0 < duration <= period", "e.g. period = \"1s\", duration = \"100ms\"");
  if (auto offset = t.optional_duration("offset")) i.offset_s = *offset;
  if (t.has("factor")) i.factor = t.number("factor", 1, 1000);
  i.workers = worker_list(t, table, "workers", workers);
  t.finish();
  return i;
}

/// A number as a person writes it, e.g. "0.5".
std::string number_text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

/// CSV `worker,time_s,speed` with a header line; times ascending per worker; speeds in (0, 100].
std::map<int, std::vector<SpeedStep>> load_profiles(const std::string& path, const std::string& at, int workers) {
  std::ifstream in(path);
  if (!in) throw core::InputError(at, "cannot read speed profile '" + path + "'", "give a CSV worker,time_s,speed relative to the scenario");
  std::map<int, std::vector<SpeedStep>> profiles;
  std::string line;
  std::getline(in, line);
  if (line.rfind("worker,time_s,speed", 0) != 0)
    throw core::InputError(path + ":1:1", "the header is '" + line + "'", "the first line is worker,time_s,speed");
  for (int row = 2; std::getline(in, line); ++row) {
    if (line.empty()) continue;
    std::istringstream fields(line);
    int worker = -1;
    double time_s = -1, speed = 0;
    char c1 = 0, c2 = 0;
    const std::string here = path + ":" + std::to_string(row) + ":1";
    if (!(fields >> worker >> c1 >> time_s >> c2 >> speed) || c1 != ',' || c2 != ',')
      throw core::InputError(here, "cannot read '" + line + "'", "rows are worker,time_s,speed, e.g. 3,0.5,0.8");
    if (worker < 0 || worker >= workers)
      throw core::InputError(here, "worker " + std::to_string(worker) + " is not a worker of this scenario",
                             "worker indices 0 to " + std::to_string(workers - 1));
    auto& steps = profiles[worker];
    if (time_s < 0 || (!steps.empty() && time_s <= steps.back().time_s))
      throw core::InputError(here, "worker " + std::to_string(worker) + "'s step at " + number_text(time_s) +
                                       " s does not come after its previous step",
                             "times are >= 0 and ascending per worker");
    if (!(speed > 0 && speed <= 100))
      throw core::InputError(here, "speed must be in (0, 100]", "1 is nominal, 0.5 half speed (a stopped worker is a failure)");
    steps.push_back({time_s, speed});
  }
  return profiles;
}

}  // namespace

void load_stragglers(Section& t, const toml::table& table, const std::filesystem::path& base, Scenario& s) {
  allow_keys(t, "stragglers");
  Stragglers& k = s.stragglers;
  k.slow_workers = worker_list(t, table, "slow_workers", s.workers);
  if (t.has("slow_factor")) k.slow_factor = t.number("slow_factor", 1, 1000);
  k.noise = choice_key(t, "stragglers", "noise");
  if (t.has("noise_scale")) k.noise_scale = t.number("noise_scale", 0, 10);
  const KeySpec& seed = key_spec("stragglers", "seed");
  k.seed = static_cast<std::uint64_t>(t.integer("seed", 0, seed.min, seed.max));
  if (auto interference = t.table("interference"))
    k.interference = load_interference(*interference, *table.get("interference")->as_table(), s.workers);
  if (const toml::node* links = table.get("slow_links")) {
    t.has("slow_links");
    const double factor = t.has("slow_link_factor") ? t.number("slow_link_factor", 1, 1e6) : 2.0;
    const platform::Fabric fabric(s.platform);
    if (!links->is_array())
      throw core::InputError(where(links->source()), "'slow_links' is not an array", "e.g. slow_links = [\"nic3_UP\"]");
    for (const toml::node& l : *links->as_array()) {
      const auto name = l.value<std::string>();
      if (!name || fabric.graph().find_link(*name) < 0)
        throw core::InputError(where(l.source()), "platform '" + s.platform.name + "' has no such link",
                               "directed link names such as \"" + fabric.link_name(0) + "\" (dtsim platform show lists them)");
      s.platform.link_slowdown[*name] = factor;
    }
  } else if (t.has("slow_link_factor")) {
    throw core::InputError(t.where_key("slow_link_factor"), "slow_link_factor without slow_links",
                           "name the links: slow_links = [\"nic3_UP\"]");
  }
  if (auto file = t.optional_string("speed_profiles"))
    k.speed_profiles = load_profiles((base / *file).lexically_normal().string(), t.where_key("speed_profiles"), s.workers);
  t.finish();
}

}  // namespace dtsim::scenario
