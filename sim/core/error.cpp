#include "sim/core/error.hpp"

#include "sim/core/nearest_names.hpp"
#include "sim/core/printable.hpp"

namespace dtsim::core {
namespace {

/// `text` with each NUL written "\0": what() is a C string, and a NUL from a value quoted without printable() would
/// end the message there, before what is allowed.
std::string without_nul(std::string text) {
  for (std::size_t at = text.find('\0'); at != std::string::npos; at = text.find('\0', at + 2)) text.replace(at, 1, "\\0");
  return text;
}

}  // namespace

InputError::InputError(const std::string& where, const std::string& problem, const std::string& allowed)
    : std::runtime_error(without_nul(where + ": " + problem + "; " + allowed)),
      problem_(without_nul(problem)),
      allowed_(without_nul(allowed)) {}

InputError::InputError(const std::string& problem, const std::string& allowed)
    : std::runtime_error(without_nul(problem + "; " + allowed)),
      problem_(without_nul(problem)),
      allowed_(without_nul(allowed)) {}

std::string join_names(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) {
    if (!list.empty()) list.append(", ");
    list.append(n);
  }
  return list;
}

InputError unknown_name(std::string_view what, std::string_view name, const std::vector<std::string>& known) {
  return InputError("unknown " + std::string(what) + " '" + printable(name) + "'",
                    with_suggestion(name, known, "known: " + join_names(known)));
}

void fail_check(const char* condition, const char* file, int line, const std::string& message) {
  throw InternalError(std::string(file) + ":" + std::to_string(line) + ": internal error: " + message +
                      " (check failed: " + condition + ")");
}

}  // namespace dtsim::core
