#include "viz/quantity_text.hpp"

#include <cmath>

#include <fmt/format.h>

namespace dtsim::viz {
namespace {

/// `value` with three significant digits (no exponent) for 1 <= value < 1000.
std::string three_digits(double value) {
  const int decimals = value >= 99.95 ? 0 : value >= 9.995 ? 1 : 2;
  return fmt::format("{:.{}f}", value, decimals);
}

}  // namespace

std::string duration_text(double seconds) {
  if (seconds == 0) return "0 s";
  if (seconds < 0) return "-" + duration_text(-seconds);
  if (seconds >= 0.9995) return three_digits(seconds) + " s";
  if (seconds >= 0.9995e-3) return three_digits(seconds * 1e3) + " ms";
  if (seconds >= 0.9995e-6) return three_digits(seconds * 1e6) + " us";
  return three_digits(seconds * 1e9) + " ns";
}

std::string percent_text(double fraction) {
  const double p = 100 * fraction;
  return fmt::format("{:.{}f} %", p, p >= 9.95 || p == 0 ? 0 : p >= 0.995 ? 1 : 2);
}

std::string bandwidth_setting(double bytes_per_s) {
  const double gbps = bytes_per_s * 8 / 1e9;
  return fmt::format("{}Gbps", std::round(gbps * 100) / 100);
}

std::string parts_text(const std::vector<std::pair<std::string, double>>& parts) {
  double total = 0;
  for (const auto& [name, seconds] : parts) total += seconds;
  std::string out;
  for (const auto& [name, seconds] : parts)
    out += (out.empty() ? "" : ", ") + name + " " + duration_text(seconds) + " (" + percent_text(seconds / total) + ")";
  return out;
}

std::string link_class_text(const std::string& name, std::int64_t count) {
  return count == 1 ? name : fmt::format("{} x{}", name, count);
}

}  // namespace dtsim::viz
