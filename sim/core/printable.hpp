#pragma once
/// Values quoted in error messages, made safe to print.
#include <string>
#include <string_view>

namespace dtsim::core {

/// `text` with its control characters written as escapes (\0, \t, \n, \r, \x7f), so that a value quoted in a
/// message neither cuts the message (an embedded NUL ends what()) nor breaks its line.
std::string printable(std::string_view text);

}  // namespace dtsim::core
