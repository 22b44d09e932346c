#include "sim/sync/architecture_traits.hpp"

#include <array>
#include <functional>

#include "sim/core/error.hpp"

namespace dtsim::sync {
namespace {

constexpr std::array<ArchitectureTraits, 4> kRows{{
    {"allreduce", Meets::kCollective, "", 0, false, 0},
    {"ps", Meets::kServers, "ps", 0, false, 0},
    {"byteps", Meets::kServers, "ps", 4096000, true, 76.8e9 / 3},
    {"gossip", Meets::kNeighbours, "gossip", 0, false, 0},
}};

}  // namespace

std::span<const ArchitectureTraits> architecture_rows() { return kRows; }

const ArchitectureTraits& architecture_named(std::string_view name) {
  for (const ArchitectureTraits& a : kRows)
    if (a.name == name) return a;
  DTSIM_CHECK(false, "unknown architecture " + std::string(name));
}

std::vector<std::string> architecture_names() {
  std::vector<std::string> names;
  for (const ArchitectureTraits& a : kRows) names.emplace_back(a.name);
  return names;
}

std::string quoted_names(const std::function<bool(const ArchitectureTraits&)>& taken) {
  std::vector<std::string> names;
  for (const ArchitectureTraits& a : kRows)
    if (taken(a)) names.push_back("\"" + std::string(a.name) + "\"");
  std::string words;
  for (std::size_t i = 0; i < names.size(); ++i)
    words += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return words;
}

std::string architectures_meeting(Meets meets) {
  return quoted_names([meets](const ArchitectureTraits& a) { return a.meets == meets; });
}

std::string architectures_taking(std::string_view table) {
  return quoted_names([table](const ArchitectureTraits& a) { return a.options == table; });
}

}  // namespace dtsim::sync
