#include "viz/sweep_page.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "sim/core/units.hpp"
#include "viz/html.hpp"
#include "viz/quantity_text.hpp"

namespace dtsim::viz {
namespace {

/// The cells of one CSV line (RFC 4180 quoting).
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cell += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  return cells;
}

std::string trimmed(const std::string& text) {
  const auto begin = text.find_first_not_of(' ');
  const auto end = text.find_last_not_of(' ');
  return begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

/// A metric column's value with its unit: times, rates, shares and sizes; anything else as written.
std::string metric_text(const std::string& column, const std::string& value) {
  if (value.empty()) return value;
  double x = 0;
  std::size_t used = 0;
  try {
    x = std::stod(value, &used);
  } catch (const std::exception&) {
    return value;
  }
  if (used != value.size()) return value;  // a key such as "5c58..." is text
  if (column == "scaling_efficiency") return percent_text(x);
  if (column == "samples_per_s") return fmt::format("{:.0f}", x);
  if (column.find("bytes") != std::string::npos) return core::format_bytes(x);
  if (column.size() > 2 && column.compare(column.size() - 2, 2, "_s") == 0) return duration_text(x);
  return value;
}

/// "mean iteration" for "mean_iteration_s": a column header in words.
std::string header_text(const std::string& column) {
  if (column == "samples_per_s") return "samples/s";
  if (column == "single_worker_iteration_s") return "1 GPU iteration";
  std::string words = column.size() > 2 && column.compare(column.size() - 2, 2, "_s") == 0
                          ? column.substr(0, column.size() - 2)
                          : column;
  for (char& c : words)
    if (c == '_') c = ' ';
  return words;
}

}  // namespace

std::string axis_value_name(const std::string& value) {
  const std::string v = trimmed(value);
  if (v.empty() || v.front() != '{') return v.size() >= 2 && v.front() == '"' && v.back() == '"' ? v.substr(1, v.size() - 2) : v;
  // Walk the inline table: "key = {" opens a prefix, "}" closes it, "key = value" is one name.
  std::vector<std::string> prefixes;
  std::string names, token;
  std::string key;
  bool in_string = false;
  int in_array = 0;
  auto flush = [&] {
    const std::string value_text = trimmed(token);
    if (!key.empty() && !value_text.empty()) {
      std::string path;
      for (const std::string& p : prefixes) path += p + ".";
      names += (names.empty() ? "" : ", ") + path + key + "=" + value_text;
    }
    key.clear();
    token.clear();
  };
  for (std::size_t i = 1; i < v.size(); ++i) {
    const char c = v[i];
    if (c == '"') {
      in_string = !in_string;
    } else if (in_string) {
      token += c;
    } else if (in_array > 0 || c == '[') {
      in_array += c == '[' ? 1 : c == ']' ? -1 : 0;
      token += c;
    } else if (c == '=') {
      key = trimmed(token);
      token.clear();
    } else if (c == '{') {
      prefixes.push_back(key);
      key.clear();
      token.clear();
    } else if (c == ',' || c == '}') {
      flush();
      if (c == '}' && !prefixes.empty() && i + 1 < v.size()) prefixes.pop_back();
    } else {
      token += c;
    }
  }
  return names;
}

std::string sweep_table(const std::string& csv) {
  std::istringstream lines(csv);
  std::string line;
  if (!std::getline(lines, line)) return "";
  const std::vector<std::string> columns = csv_cells(line);
  std::size_t status = 0;
  while (status < columns.size() && columns[status] != "status") ++status;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(lines, line)) {
    std::vector<std::string> cells = csv_cells(line);
    cells.resize(columns.size());
    for (std::size_t i = 0; i < cells.size(); ++i)
      cells[i] = i < status ? axis_value_name(cells[i]) : metric_text(columns[i], cells[i]);
    rows.push_back(std::move(cells));
  }
  // A result column with the same value at every point is said once above the table, not repeated per row.
  std::vector<std::size_t> shown;
  std::string same;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const bool constant = i >= status && std::all_of(rows.begin(), rows.end(), [&](const auto& r) {
      return r[i] == rows.front()[i];
    });
    if (!constant || rows.size() < 2) {
      shown.push_back(i);
    } else if (!rows.front()[i].empty()) {
      same += (same.empty() ? "" : ", ") + header_text(columns[i]) + " " + rows.front()[i];
    }
  }
  std::string html = "<h2>Results</h2>\n";
  if (!same.empty()) html += "<p>At every point: " + html::escape(same) + ".</p>\n";
  html += "<div class=\"wide\"><table class=\"results\">\n<tr>";
  for (std::size_t i : shown) html += "<th>" + html::escape(i <= status ? columns[i] : header_text(columns[i])) + "</th>";
  html += "</tr>\n";
  for (const auto& r : rows) {
    html += "<tr>";
    for (std::size_t i : shown) html += "<td>" + html::escape(r[i]) + "</td>";
    html += "</tr>\n";
  }
  return html + "</table></div>\n";
}

}  // namespace dtsim::viz
