#include <functional>
#include <utility>

#include "sim/collectives/collective.hpp"
#include "sim/collectives/ring_allreduce.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

using Factory = std::function<std::unique_ptr<Collective>()>;

const std::vector<std::pair<std::string, Factory>>& registry() {
  static const std::vector<std::pair<std::string, Factory>> table{
      {"ring", [] { return std::make_unique<RingAllreduce>(); }},
  };
  return table;
}

}  // namespace

std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : registry()) names.push_back(name);
  return names;
}

std::unique_ptr<Collective> make_collective(std::string_view name) {
  for (const auto& [key, factory] : registry())
    if (key == name) return factory();
  throw core::unknown_name("collective", name, collective_names());
}

}  // namespace dtsim::collectives
