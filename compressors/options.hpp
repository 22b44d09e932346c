#pragma once
/// Parameters of compressors and error-feedback layers: a plain key -> value map (the scenario
/// layer maps TOML tables onto it) and a reader that checks names, types and ranges.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace dtsim::compressors {

/// One parameter value as written in a scenario (TOML bool, integer, float or string).
using OptionValue = std::variant<bool, std::int64_t, double, std::string>;
/// Parameters by name; a missing key means "use the documented default".
using Options = std::map<std::string, OptionValue, std::less<>>;

/// Reads typed parameters for one owner ("compressor 'topk'"); InputError on anything invalid.
class OptionReader {
 public:
  /// Reads `options` on behalf of `owner` (used in error messages).
  OptionReader(std::string owner, const Options& options);
  /// A number in [lo, hi] (or (lo, hi] when lo_open); integers are accepted.
  double real(std::string_view key, double fallback, double lo, double hi, bool lo_open = false);
  /// An integer in [lo, hi].
  std::int64_t integer(std::string_view key, std::int64_t fallback, std::int64_t lo, std::int64_t hi);
  /// A boolean.
  bool boolean(std::string_view key, bool fallback);
  /// A string from `allowed`.
  std::string choice(std::string_view key, std::string_view fallback, const std::vector<std::string_view>& allowed);
  /// Throws InputError naming the first key that no read asked for, listing the known ones.
  void finish() const;

 private:
  const OptionValue* find(std::string_view key);
  [[noreturn]] void fail(std::string_view key, const std::string& problem, const std::string& allowed) const;

  std::string owner_;
  const Options& options_;
  std::vector<std::string> known_;
};

}  // namespace dtsim::compressors
