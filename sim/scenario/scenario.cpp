#include "sim/scenario/scenario.hpp"

#include <array>
#include <utility>

#include "sim/core/error.hpp"

namespace dtsim::scenario {

namespace {

constexpr std::array kFidelities{std::pair{Fidelity::analytic, "analytic"}, std::pair{Fidelity::flow, "flow"},
                                 std::pair{Fidelity::message, "message"}};

}  // namespace

std::vector<std::string> fidelity_names() {
  std::vector<std::string> names;
  for (const auto& [f, name] : kFidelities) names.emplace_back(name);
  return names;
}

std::string fidelity_name(Fidelity f) {
  for (const auto& [value, name] : kFidelities)
    if (value == f) return name;
  DTSIM_CHECK(false, "fidelity without a name");
}

Fidelity parse_fidelity(const std::string& name) {
  for (const auto& [value, n] : kFidelities)
    if (n == name) return value;
  throw core::unknown_name("fidelity", name, fidelity_names());
}

}  // namespace dtsim::scenario
