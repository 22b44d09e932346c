#include "models/csv_reader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "sim/core/error.hpp"

namespace dtsim::models {
namespace {

constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";
constexpr std::string_view blanks = " \t";

std::string where(const std::string& path, int line, int column) {
  return path + ":" + std::to_string(line) + ":" + std::to_string(column);
}

CsvRow split(const std::string& path, int line_number, std::string_view line) {
  CsvRow row;
  row.line = line_number;
  row.end_column = static_cast<int>(line.size()) + 1;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = std::min(line.find(',', start), line.size());
    std::string_view field = line.substr(start, end - start);
    const std::size_t first = field.find_first_not_of(blanks);
    const std::size_t lead = first == std::string_view::npos ? 0 : first;
    field = field.substr(lead, field.find_last_not_of(blanks) + 1 - lead);
    const int column = static_cast<int>(start + lead) + 1;
    if (field.find('"') != std::string_view::npos) {
      throw core::InputError(where(path, line_number, column), "quotes are not supported",
                             "plain fields without quotes or commas");
    }
    row.fields.push_back({std::string(field), column});
    if (end == line.size()) return row;
    start = end + 1;
  }
}

}  // namespace

std::vector<CsvRow> read_csv_rows(const std::string& path) {
  std::error_code error;
  std::ifstream in(path, std::ios::binary);
  if (!std::filesystem::is_regular_file(path, error) || !in) {
    throw core::InputError(where(path, 1, 1), "cannot open the layer table", "a readable CSV file");
  }
  std::vector<CsvRow> rows;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string_view text = line;
    if (number == 1 && text.starts_with(utf8_bom)) text.remove_prefix(utf8_bom.size());
    if (text.find_first_not_of(blanks) == std::string_view::npos) continue;
    rows.push_back(split(path, number, text));
  }
  return rows;
}

}  // namespace dtsim::models
