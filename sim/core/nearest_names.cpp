#include "sim/core/nearest_names.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace dtsim::core {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the Wagner-Fischer table: the swap of two neighbours looks two rows back.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::string folded_name(std::string_view name) {
  std::string out;
  for (char c : name)
    if (c != '-' && c != '_' && c != '.' && c != ' ') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> nearest_names(std::string_view name, const std::vector<std::string>& known) {
  constexpr std::size_t kMostNamed = 8;
  const std::string typed = folded_name(name);
  std::vector<std::string> same, beginning, nearest;
  const std::size_t limit = std::max<std::size_t>(2, typed.size() / 3);
  std::size_t best = std::numeric_limits<std::size_t>::max();
  for (const std::string& k : known) {
    const std::string candidate = folded_name(k);
    if (candidate.empty() || typed.empty()) continue;
    if (candidate == typed) same.push_back(k);
    if (typed.size() >= 3 && candidate.rfind(typed, 0) == 0) beginning.push_back(k);
    const std::size_t d = edit_distance(typed, candidate);
    if (d > limit || d >= typed.size() || d >= candidate.size() || d > best) continue;
    if (d < best) nearest.clear();
    best = d;
    nearest.push_back(k);
  }
  std::vector<std::string>& chosen = !same.empty() ? same : !beginning.empty() ? beginning : nearest;
  if (chosen.size() > kMostNamed) chosen.resize(kMostNamed);
  return chosen;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& known) {
  const std::vector<std::string> nearest = nearest_names(name, known);
  if (nearest.empty()) return "";
  std::string list;
  for (std::size_t i = 0; i < nearest.size(); ++i)
    list += (i == 0 ? "" : i + 1 == nearest.size() ? " or " : ", ") + ("'" + nearest[i] + "'");
  return "did you mean " + list + "?";
}

std::string with_suggestion(std::string_view name, const std::vector<std::string>& known, const std::string& allowed) {
  const std::string suggestion = did_you_mean(name, known);
  return suggestion.empty() ? allowed : suggestion + " " + allowed;
}

std::string nearest_multiples(int value, int step) {
  const int below = value / step * step;
  const std::string above = std::to_string(below + step);
  return below > 0 ? std::to_string(below) + " or " + above : above;
}

std::string nearest_divisors(int value, int total) {
  int below = std::min(value, total);
  while (below > 0 && total % below != 0) --below;
  int above = value;
  while (above < total && total % above != 0) ++above;
  if (below > 0 && above <= total && above != below) return std::to_string(below) + " or " + std::to_string(above);
  return std::to_string(below > 0 ? below : total);
}

}  // namespace dtsim::core
