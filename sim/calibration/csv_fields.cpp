#include "sim/calibration/csv_fields.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"

namespace dtsim::calibration {

void fail_at(const std::string& path, int line, int column, const std::string& problem, const std::string& allowed) {
  throw core::InputError(path + ":" + std::to_string(line) + ":" + std::to_string(column), problem, allowed);
}

void require_readable(const std::string& path, const std::string& what, const std::string& allowed) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error) || !std::ifstream(path))
    fail_at(path, 1, 1, "cannot open the " + what, "a readable file: " + allowed);
}

long long whole_number(const std::string& path, int line, const models::CsvField& f, const std::string& what,
                       long long minimum) {
  const std::string allowed = "a whole number >= " + std::to_string(minimum);
  long long value = 0;
  const char* end = f.text.data() + f.text.size();
  const auto [ptr, error] = std::from_chars(f.text.data(), end, value);
  if (error != std::errc() || ptr != end)
    fail_at(path, line, f.column, what + " '" + f.text + "' is not a whole number", allowed);
  if (value < minimum)
    fail_at(path, line, f.column, what + " " + f.text + " is below " + std::to_string(minimum), allowed);
  return value;
}

double number(const std::string& path, int line, const models::CsvField& f, const std::string& what,
              bool zero_allowed) {
  const std::string allowed = zero_allowed ? "a finite number >= 0" : "a finite number > 0";
  double value = 0;
  const char* end = f.text.data() + f.text.size();
  const auto [ptr, error] = std::from_chars(f.text.data(), end, value);
  if (error != std::errc() || ptr != end)
    fail_at(path, line, f.column, what + " '" + f.text + "' is not a number", allowed);
  if (!std::isfinite(value) || value < 0 || (value == 0 && !zero_allowed))
    fail_at(path, line, f.column, what + " " + f.text + " is out of range", allowed);
  return value;
}

std::vector<models::CsvRow> csv_rows(const std::string& path, const std::vector<std::string>& header_names,
                                     const std::string& what, const std::string& allowed) {
  require_readable(path, what, allowed);
  std::vector<models::CsvRow> rows = models::read_csv_rows(path);
  if (rows.empty()) fail_at(path, 1, 1, "the " + what + " is empty", allowed);
  const models::CsvRow& header = rows.front();
  const std::size_t columns = header_names.size();
  for (std::size_t i = 0; i < std::max(header.fields.size(), columns); ++i) {
    if (i >= header.fields.size())
      fail_at(path, header.line, header.end_column, "the header ends after " + std::to_string(i) + " columns", allowed);
    const models::CsvField& f = header.fields[i];
    if (i >= columns) fail_at(path, header.line, f.column, "unexpected column '" + f.text + "'", allowed);
    if (lower(f.text) != header_names[i])
      fail_at(path, header.line, f.column, "column " + std::to_string(i + 1) + " is '" + f.text + "'", allowed);
  }
  if (rows.size() == 1) fail_at(path, header.line + 1, 1, "no rows after the header", "at least one row");
  rows.erase(rows.begin());
  for (const models::CsvRow& row : rows) {
    if (row.fields.size() != columns) {
      const int column = row.fields.size() > columns ? row.fields[columns].column : row.end_column;
      fail_at(path, row.line, column,
              std::to_string(row.fields.size()) + " fields, the header has " + std::to_string(columns),
              "one field per column");
    }
  }
  return rows;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

}  // namespace dtsim::calibration
