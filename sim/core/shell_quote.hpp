#pragma once
/// Quoting for POSIX shells: command lines dtsim records (report.json) or runs (plots, sweeps).
#include <string>

namespace dtsim::core {

/// `text` as one shell word: as it is when it holds only safe characters, otherwise in single quotes.
std::string shell_quote(const std::string& text);

}  // namespace dtsim::core
