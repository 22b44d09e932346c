#include "sim/core/error.hpp"

namespace dtsim::core {

InputError::InputError(const std::string& where, const std::string& problem, const std::string& allowed)
    : std::runtime_error(where + ": " + problem + "; " + allowed), problem_(problem), allowed_(allowed) {}

InputError::InputError(const std::string& problem, const std::string& allowed)
    : std::runtime_error(problem + "; " + allowed), problem_(problem), allowed_(allowed) {}

InputError unknown_name(std::string_view what, std::string_view name, const std::vector<std::string>& known) {
  std::string list;
  for (const std::string& k : known) {
    if (!list.empty()) list.append(", ");
    list.append(k);
  }
  return InputError("unknown " + std::string(what) + " '" + std::string(name) + "'", "known: " + list);
}

void fail_check(const char* condition, const char* file, int line, const std::string& message) {
  throw InternalError(std::string(file) + ":" + std::to_string(line) + ": internal error: " + message +
                      " (check failed: " + condition + ")");
}

}  // namespace dtsim::core
