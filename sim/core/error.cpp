#include "sim/core/error.hpp"

namespace dtsim::core {

InputError::InputError(const std::string& where, const std::string& problem, const std::string& allowed)
    : std::runtime_error(where + ": " + problem + "; " + allowed), problem_(problem), allowed_(allowed) {}

InputError::InputError(const std::string& problem, const std::string& allowed)
    : std::runtime_error(problem + "; " + allowed), problem_(problem), allowed_(allowed) {}

std::string join_names(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) {
    if (!list.empty()) list.append(", ");
    list.append(n);
  }
  return list;
}

InputError unknown_name(std::string_view what, std::string_view name, const std::vector<std::string>& known) {
  return InputError("unknown " + std::string(what) + " '" + std::string(name) + "'", "known: " + join_names(known));
}

void fail_check(const char* condition, const char* file, int line, const std::string& message) {
  throw InternalError(std::string(file) + ":" + std::to_string(line) + ": internal error: " + message +
                      " (check failed: " + condition + ")");
}

}  // namespace dtsim::core
