#include "sim/plan/candidate.hpp"

#include <algorithm>
#include <filesystem>

namespace dtsim::plan {

std::vector<Candidate> enumerate_candidates(const scenario::PlanSpec& plan, const std::vector<int>& gpus_per_node) {
  std::vector<Candidate> out;
  // One node uses no NIC: its NIC speeds are one candidate.
  const auto nic = std::find_if(plan.axes.begin(), plan.axes.end(),
                                [](const scenario::PlanAxis& a) { return a.key == "platform.inter_link.bandwidth"; });
  for (std::size_t p = 0; p < plan.platforms.size(); ++p)
    for (int n : plan.nodes) {
      std::vector<std::size_t> digit(plan.axes.size(), 0);
      while (true) {
        const bool same_as_first = n == 1 && nic != plan.axes.end() && digit[nic - plan.axes.begin()] > 0;
        Candidate c;
        c.index = static_cast<int>(out.size());
        const std::string& ref = plan.platforms[p];
        c.settings.emplace_back("platform", "\"" + ref + "\"");
        c.label = std::filesystem::path(ref).filename().string();
        c.settings.emplace_back("platform.nodes", std::to_string(n));
        c.settings.emplace_back("workers", std::to_string(n * gpus_per_node[p]));
        c.label += " x " + std::to_string(n) + (n == 1 ? " node" : " nodes");
        for (std::size_t a = 0; a < plan.axes.size(); ++a) {
          const std::string& value = plan.axes[a].values[digit[a]];
          if (!value.empty()) c.settings.emplace_back(plan.axes[a].key, value);
          const bool quoted = value.size() >= 2 && value.front() == '"';
          if (n == 1 && nic != plan.axes.end() && a == static_cast<std::size_t>(nic - plan.axes.begin())) continue;
          c.label += ", " + plan.axes[a].name + "=" +
                     (value.empty() ? "none" : quoted ? value.substr(1, value.size() - 2) : value);
        }
        if (!same_as_first) out.push_back(std::move(c));
        std::size_t a = plan.axes.size();
        while (a > 0 && ++digit[a - 1] == plan.axes[a - 1].values.size()) digit[--a] = 0;
        if (a == 0) break;
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
