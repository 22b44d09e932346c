#include "viz/path_kinds.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace dtsim::viz {

double PathKinds::seconds(std::string_view category) const {
  const auto it = std::find_if(kinds.begin(), kinds.end(), [&](const PathKind& k) { return k.category == category; });
  return it == kinds.end() ? 0.0 : it->seconds;
}

double PathKinds::compute_s() const {
  double total = 0;
  for (const PathKind& k : kinds)
    if (is_compute(k.category)) total += k.seconds;
  return total;
}

PathKinds path_kinds(const nlohmann::json& critical_path) {
  PathKinds path;
  if (critical_path.empty()) return path;
  double previous_end = critical_path.front()["start_s"].get<double>();
  for (const auto& e : critical_path) {
    const std::string category = e["category"];
    const double end = e["end_s"].get<double>();
    auto it = std::find_if(path.kinds.begin(), path.kinds.end(),
                           [&](const PathKind& k) { return k.category == category; });
    if (it == path.kinds.end()) it = path.kinds.insert(path.kinds.end(), {category, 0.0});
    it->seconds += end - previous_end;
    previous_end = end;
  }
  path.length_s = previous_end - critical_path.front()["start_s"].get<double>();
  return path;
}

bool is_compute(std::string_view category) {
  return category == "forward" || category == "backward" || category == "recompute" || category == "update";
}

std::string communication_text(std::string_view category) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> words{{
      {"comm", "gradient exchanges"},
      {"compress", "gradient compression"},
      {"framework", "the framework's negotiation and bucket copies (Horovod, DDP)"},
      {"dp", "data-parallel gradient reductions"},
      {"gather", "parameter all-gathers (ZeRO / FSDP sharding)"},
      {"tp", "tensor-parallel collectives"},
      {"cp", "context-parallel key/value exchanges (attention)"},
      {"pp", "pipeline sends and waiting for other stages (the bubble)"},
  }};
  for (const auto& [c, text] : words)
    if (c == category) return std::string(text);
  return std::string(category);
}

}  // namespace dtsim::viz
