#include "compressors/options.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/nearest_names.hpp"
#include "sim/core/printable.hpp"

namespace dtsim::compressors {
namespace {

std::string show(const OptionValue& value) {
  std::ostringstream out;
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          out << (v ? "true" : "false");
        } else if constexpr (std::is_same_v<T, std::string>) {
          out << '"' << core::printable(v) << '"';
        } else {
          out << v;
        }
      },
      value);
  return out.str();
}

std::string number(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

}  // namespace

OptionReader::OptionReader(std::string owner, const Options& options) : owner_(std::move(owner)), options_(options) {}

const OptionValue* OptionReader::find(std::string_view key) {
  known_.emplace_back(key);
  const auto it = options_.find(key);
  return it == options_.end() ? nullptr : &it->second;
}

void OptionReader::fail(std::string_view key, const std::string& problem, const std::string& allowed) const {
  throw core::InputError(owner_ + ": parameter '" + std::string(key) + "' " + problem, allowed);
}

double OptionReader::real(std::string_view key, double fallback, double lo, double hi, bool lo_open) {
  const OptionValue* value = find(key);
  if (value == nullptr) return fallback;
  double x = 0.0;
  if (const auto* d = std::get_if<double>(value)) {
    x = *d;
  } else if (const auto* i = std::get_if<std::int64_t>(value)) {
    x = static_cast<double>(*i);
  }
  const std::string range = std::string(lo_open ? "(" : "[") + number(lo) + ", " + number(hi) + "]";
  if (!std::holds_alternative<double>(*value) && !std::holds_alternative<std::int64_t>(*value)) {
    fail(key, "= " + show(*value) + " is not a number", "allowed: a number in " + range);
  }
  if (!std::isfinite(x) || x < lo || x > hi || (lo_open && x == lo)) {
    fail(key, "= " + show(*value) + " is out of range", "allowed: a number in " + range);
  }
  return x;
}

std::int64_t OptionReader::integer(std::string_view key, std::int64_t fallback, std::int64_t lo, std::int64_t hi) {
  const OptionValue* value = find(key);
  if (value == nullptr) return fallback;
  const std::string allowed = "allowed: an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  const auto* i = std::get_if<std::int64_t>(value);
  if (i == nullptr) fail(key, "= " + show(*value) + " is not an integer", allowed);
  if (*i < lo || *i > hi) fail(key, "= " + show(*value) + " is out of range", allowed);
  return *i;
}

bool OptionReader::boolean(std::string_view key, bool fallback) {
  const OptionValue* value = find(key);
  if (value == nullptr) return fallback;
  const auto* b = std::get_if<bool>(value);
  if (b == nullptr) fail(key, "= " + show(*value) + " is not a boolean", "allowed: true or false");
  return *b;
}

std::string OptionReader::choice(std::string_view key, std::string_view fallback,
                                 const std::vector<std::string_view>& allowed) {
  const OptionValue* value = find(key);
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  if (value == nullptr) return std::string(fallback);
  const auto* s = std::get_if<std::string>(value);
  if (s == nullptr || std::find(allowed.begin(), allowed.end(), *s) == allowed.end()) {
    fail(key, "= " + show(*value) + " is not known",
         s == nullptr ? "allowed: " + list : core::with_suggestion(*s, {allowed.begin(), allowed.end()}, "allowed: " + list));
  }
  return *s;
}

void OptionReader::finish() const {
  for (const auto& [key, value] : options_) {
    if (std::find(known_.begin(), known_.end(), key) != known_.end()) continue;
    throw core::InputError(owner_ + ": unknown parameter '" + core::printable(key) + "'",
                           core::with_suggestion(key, known_, "known: " + (known_.empty() ? std::string("none")
                                                                                           : core::join_names(known_))));
  }
}

}  // namespace dtsim::compressors
