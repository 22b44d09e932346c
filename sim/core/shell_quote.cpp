#include "sim/core/shell_quote.hpp"

namespace dtsim::core {

std::string shell_quote(const std::string& text) {
  constexpr const char* kSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:=+@%";
  if (!text.empty() && text.find_first_not_of(kSafe) == std::string::npos) return text;
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

}  // namespace dtsim::core
