#include "sim/core/units.hpp"

#include <array>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <utility>

#include "sim/core/error.hpp"
#include "sim/core/nearest_names.hpp"
#include "sim/core/printable.hpp"

namespace dtsim::core {
namespace {

struct Suffix {
  std::string_view name;
  double factor;
};

/// Splits "12.5GBps" into 12.5 and "GBps", then looks the suffix up in `table`.
double parse_with(std::string_view text, const Suffix* table, std::size_t count, std::string_view what,
                  std::string_view allowed) {
  const std::string rule = "a " + std::string(what) + " is a number and a unit such as " + std::string(allowed);
  auto fail = [&](const std::string& problem) { throw InputError(problem, rule); };
  const std::string quoted = "'" + printable(text) + "'";
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  while (begin < end && *begin == ' ') ++begin;
  double value = 0.0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr == begin) fail(quoted + " does not start with a number");
  std::string_view unit(ptr, static_cast<std::size_t>(end - ptr));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (!std::isfinite(value) || value < 0) fail(quoted + " is negative or not finite");
  std::vector<std::string> units;
  for (std::size_t i = 0; i < count; ++i) {
    if (table[i].name == unit) return value * table[i].factor;
    units.emplace_back(table[i].name);
  }
  if (unit.empty()) fail(quoted + " has no unit");
  // Case is not folded away for units alone: "gbps" is as near to Gbps (bits) as to GBps (bytes), and both are named.
  throw InputError(quoted + " has an unknown unit '" + printable(unit) + "'", with_suggestion(unit, units, rule));
}

constexpr std::array kBandwidth{
    Suffix{"bps", 1.0 / 8},        Suffix{"Kbps", 1e3 / 8},      Suffix{"Mbps", 1e6 / 8},
    Suffix{"Gbps", 1e9 / 8},       Suffix{"Tbps", 1e12 / 8},     Suffix{"Bps", 1.0},
    Suffix{"KBps", 1e3},           Suffix{"MBps", 1e6},          Suffix{"GBps", 1e9},
    Suffix{"TBps", 1e12},          Suffix{"KiBps", 1024.0},      Suffix{"MiBps", 1048576.0},
    Suffix{"GiBps", 1073741824.0},
    // As dtsim and nccl-tests print them.
    Suffix{"b/s", 1.0 / 8},        Suffix{"Kb/s", 1e3 / 8},      Suffix{"Mb/s", 1e6 / 8},
    Suffix{"Gb/s", 1e9 / 8},       Suffix{"Tb/s", 1e12 / 8},     Suffix{"B/s", 1.0},
    Suffix{"KB/s", 1e3},           Suffix{"MB/s", 1e6},          Suffix{"GB/s", 1e9},
    Suffix{"TB/s", 1e12},          Suffix{"KiB/s", 1024.0},      Suffix{"MiB/s", 1048576.0},
    Suffix{"GiB/s", 1073741824.0},
};
constexpr std::array kDuration{
    Suffix{"ns", 1e-9}, Suffix{"us", 1e-6},    Suffix{"ms", 1e-3},
    Suffix{"s", 1.0},   Suffix{"min", 60.0},   Suffix{"h", 3600.0}, Suffix{"d", 86400.0},
};
constexpr std::array kSize{
    Suffix{"B", 1.0},   Suffix{"KB", 1e3},          Suffix{"MB", 1e6},          Suffix{"GB", 1e9},
    Suffix{"TB", 1e12}, Suffix{"KiB", 1024.0},      Suffix{"MiB", 1048576.0},   Suffix{"GiB", 1073741824.0},
    Suffix{"TiB", 1099511627776.0},
};
constexpr std::array kFlopRate{
    Suffix{"FLOPS", 1.0}, Suffix{"GFLOPS", 1e9}, Suffix{"TFLOPS", 1e12}, Suffix{"PFLOPS", 1e15},
};

/// The range of values a quantity can plausibly take in a training cluster, wide enough for any hardware from a
/// 1 Kb/s WAN link to a future GPU, narrow enough to refuse a typo's exponent ("1e-300GBps" would give an
/// iteration of 1e301 s): what is outside is a mistake, not a what-if.
struct Plausible {
  double min;  ///< inclusive, in SI units; values below it (but zero where zero is allowed) are refused
  double max;
  const char* range;  ///< the range as a user writes it
};

constexpr Plausible kPlausibleBandwidth{125.0, 1e15, "1Kbps to 1000TBps"};
constexpr Plausible kPlausibleDuration{0.0, 10 * 365 * 86400.0, "0s to 3650d (ten years)"};
constexpr Plausible kPlausibleSize{0.0, 1125899906842624.0, "0B to 1024TiB"};
constexpr Plausible kPlausibleFlopRate{1e9, 1e18, "1GFLOPS to 1000PFLOPS"};

double plausible(double value, std::string_view text, std::string_view what, const Plausible& p) {
  if (value >= p.min && value <= p.max) return value;
  throw InputError(std::string(what) + " '" + printable(text) + "' is " + (value < p.min ? "below" : "above") +
                       " the plausible range",
                   "a " + std::string(what) + " is " + p.range);
}

}  // namespace

BytesPerSecond parse_bandwidth(std::string_view text) {
  double v = parse_with(text, kBandwidth.data(), kBandwidth.size(), "bandwidth",
                        "\"10Gbps\" or \"10Gb/s\" (bit/s), \"12.5GBps\" or \"12.5GB/s\" (byte/s); units bps Kbps "
                        "Mbps Gbps Tbps Bps KBps MBps GBps TBps KiBps MiBps GiBps, each also as b/s, Gb/s, GB/s, ...");
  if (v <= 0) throw InputError("bandwidth '" + printable(text) + "' is zero", "a bandwidth must be positive");
  return plausible(v, text, "bandwidth", kPlausibleBandwidth);
}

Seconds parse_duration(std::string_view text) {
  return plausible(parse_with(text, kDuration.data(), kDuration.size(), "duration",
                              "\"5us\", \"1.2ms\", \"8h\", \"14d\"; units ns us ms s min h d"),
                   text, "duration", kPlausibleDuration);
}

Bytes parse_size(std::string_view text) {
  double v = parse_with(text, kSize.data(), kSize.size(), "size",
                        "\"25MiB\", \"1MB\", \"512B\"; units B KB MB GB TB KiB MiB GiB TiB");
  if (v != std::floor(v))
    throw InputError("size '" + printable(text) + "' is not a whole number of bytes", "a size is a whole number of bytes");
  return static_cast<Bytes>(plausible(v, text, "size", kPlausibleSize));
}

Bytes parse_nccl_size(std::string_view text) {
  constexpr std::array<std::pair<char, Bytes>, 4> kLetters{
      {{'\0', 1}, {'K', Bytes{1} << 10}, {'M', Bytes{1} << 20}, {'G', Bytes{1} << 30}}};
  const char* end = text.data() + text.size();
  std::uint64_t count = 0;
  auto [ptr, ec] = std::from_chars(text.data(), end, count);
  if (ec == std::errc() && ptr != text.data() && end - ptr <= 1) {
    const char letter = ptr == end ? '\0' : static_cast<char>(std::toupper(static_cast<unsigned char>(*ptr)));
    for (auto [name, factor] : kLetters)
      if (name == letter && count <= static_cast<std::uint64_t>(9.0e18) / static_cast<std::uint64_t>(factor))
        return static_cast<Bytes>(plausible(static_cast<double>(count * static_cast<std::uint64_t>(factor)), text,
                                            "size", kPlausibleSize));
  }
  try {
    return parse_size(text);
  } catch (const InputError& e) {
    throw InputError(e.problem(), "a size is a number of bytes (\"8\"), nccl-tests' K, M or G (powers of 1024: "
                                  "\"1K\", \"128M\", \"1G\") or a number and a unit such as \"25MiB\", \"1MB\"");
  }
}

FlopsPerSecond parse_flop_rate(std::string_view text) {
  double v = parse_with(text, kFlopRate.data(), kFlopRate.size(), "compute rate",
                        "\"15.7TFLOPS\"; units FLOPS GFLOPS TFLOPS PFLOPS");
  if (v <= 0) throw InputError("compute rate '" + printable(text) + "' is zero", "a rate must be positive");
  return plausible(v, text, "compute rate", kPlausibleFlopRate);
}

std::string format_count(std::int64_t n) {
  std::string digits = std::to_string(n);
  for (auto at = static_cast<std::ptrdiff_t>(digits.size()) - (n < 0 ? 4 : 3); at > 0; at -= 3)
    digits.insert(static_cast<std::size_t>(at + (n < 0 ? 1 : 0)), ",");
  return digits;
}

std::string format_bytes(double bytes) {
  constexpr std::array<std::pair<double, const char*>, 4> units{
      {{1099511627776.0, "TiB"}, {1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}}};
  char buf[64];
  for (auto [factor, name] : units) {
    if (bytes >= factor) {
      std::snprintf(buf, sizeof buf, "%.2f %s", bytes / factor, name);
      return buf;
    }
  }
  std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

std::string format_duration(Seconds s) {
  char buf[64];
  if (s >= 1.0)
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  else if (s >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3f us", s * 1e6);
  return buf;
}

}  // namespace dtsim::core
