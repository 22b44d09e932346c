#include "models/layer_table.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "models/csv_reader.hpp"
#include "sim/core/error.hpp"
#include "sim/core/nearest_names.hpp"
#include "sim/core/printable.hpp"

namespace dtsim::models {
namespace {

enum Column {
  name_column,
  parameters_column,
  flops_column,
  forward_ms_column,
  backward_ms_column,
  column_count
};

constexpr std::array<std::string_view, column_count> column_names = {"name", "parameters", "forward_flops",
                                                                     "forward_ms", "backward_ms"};
const std::string allowed_columns =
    "columns name, parameters and either forward_flops or forward_ms, backward_ms";
const std::string allowed_timing = "either forward_flops, or forward_ms and backward_ms";

class TableReader {
 public:
  explicit TableReader(std::string path) : path_(std::move(path)) {}

  Model read() {
    const std::vector<CsvRow> rows = read_csv_rows(path_);
    if (rows.empty()) fail(1, 1, "the layer table is empty", "a header row of " + allowed_columns);
    read_header(rows.front());
    if (rows.size() == 1) {
      fail(rows.front().line + 1, 1, "the layer table has no layers", "at least one row after the header");
    }
    Model model;
    model.name = std::filesystem::path(path_).stem().string();
    model.source = "user table " + path_;
    std::map<std::string, int> first_line;
    for (std::size_t i = 1; i < rows.size(); ++i) {
      model.layers.push_back(read_row(rows[i]));
      const auto [it, fresh] = first_line.emplace(model.layers.back().name, rows[i].line);
      if (!fresh) {
        fail(rows[i].line, field(rows[i], name_column).column,
             "duplicate layer name '" + it->first + "' (first on line " + std::to_string(it->second) + ")",
             "unique layer names");
      }
    }
    return model;
  }

 private:
  [[noreturn]] void fail(int line, int column, const std::string& problem, const std::string& allowed) const {
    throw core::InputError(path_ + ":" + std::to_string(line) + ":" + std::to_string(column), problem,
                           allowed);
  }

  void read_header(const CsvRow& header) {
    for (std::size_t i = 0; i < header.fields.size(); ++i) {
      const CsvField& f = header.fields[i];
      const auto* it = std::find(column_names.begin(), column_names.end(), f.text);
      if (it == column_names.end()) {
        fail(header.line, f.column, "unknown column '" + core::printable(f.text) + "'",
             core::with_suggestion(f.text, {column_names.begin(), column_names.end()}, allowed_columns));
      }
      std::optional<std::size_t>& slot = index_[static_cast<std::size_t>(it - column_names.begin())];
      if (slot) fail(header.line, f.column, "column '" + f.text + "' appears twice", "each column once");
      slot = i;
    }
    for (Column c : {name_column, parameters_column}) {
      if (!index_[c]) {
        fail(header.line, 1, "missing column '" + std::string(column_names[c]) + "'", allowed_columns);
      }
    }
    measured_ = index_[forward_ms_column] || index_[backward_ms_column];
    if (measured_ && index_[flops_column]) {
      const Column c = index_[forward_ms_column] ? forward_ms_column : backward_ms_column;
      fail(header.line, header.fields[*index_[c]].column,
           "column '" + std::string(column_names[c]) + "' cannot be combined with forward_flops",
           allowed_timing);
    }
    if (!measured_ && !index_[flops_column]) fail(header.line, 1, "no timing column", allowed_timing);
    for (Column c : {forward_ms_column, backward_ms_column}) {
      if (measured_ && !index_[c]) {
        fail(header.line, 1, "missing column '" + std::string(column_names[c]) + "'", allowed_timing);
      }
    }
    columns_ = header.fields.size();
  }

  const CsvField& field(const CsvRow& row, Column c) const { return row.fields[*index_[c]]; }

  Layer read_row(const CsvRow& row) const {
    if (row.fields.size() != columns_) {
      const int column = row.fields.size() > columns_ ? row.fields[columns_].column : row.end_column;
      fail(row.line, column,
           std::to_string(row.fields.size()) + " fields, the header has " + std::to_string(columns_),
           "one field per column");
    }
    Layer layer;
    layer.name = field(row, name_column).text;
    if (layer.name.empty()) {
      fail(row.line, field(row, name_column).column, "empty layer name", "a non-empty name");
    }
    const std::int64_t parameters = whole_number(row, parameters_column);
    if (parameters > 0) layer.tensors.push_back({layer.name + ".weight", {parameters}});
    if (measured_) {
      layer.measured =
          MeasuredTime{number(row, forward_ms_column) / 1000, number(row, backward_ms_column) / 1000};
    } else {
      layer.forward_flops = number(row, flops_column);
    }
    return layer;
  }

  std::int64_t whole_number(const CsvRow& row, Column c) const {
    const CsvField& f = field(row, c);
    const std::string problem = std::string(column_names[c]) + " '" + f.text + "'";
    const std::string allowed = "a whole number >= 0";
    std::int64_t value = 0;
    const char* end = f.text.data() + f.text.size();
    const auto [ptr, error] = std::from_chars(f.text.data(), end, value);
    if (error == std::errc::result_out_of_range) fail(row.line, f.column, problem + " is too large", allowed);
    if (error != std::errc() || ptr != end) {
      fail(row.line, f.column, problem + " is not a whole number", allowed);
    }
    if (value < 0) fail(row.line, f.column, problem + " is negative", allowed);
    return value;
  }

  double number(const CsvRow& row, Column c) const {
    const CsvField& f = field(row, c);
    const std::string problem = std::string(column_names[c]) + " '" + f.text + "'";
    const std::string allowed =
        c == flops_column ? "a number of FLOPs per sample >= 0" : "a number of milliseconds >= 0";
    double value = 0;
    const char* end = f.text.data() + f.text.size();
    const auto [ptr, error] = std::from_chars(f.text.data(), end, value);
    if (error == std::errc::result_out_of_range) {
      fail(row.line, f.column, problem + " is out of range", allowed);
    }
    if (error != std::errc() || ptr != end) fail(row.line, f.column, problem + " is not a number", allowed);
    if (!std::isfinite(value)) fail(row.line, f.column, problem + " is not finite", allowed);
    if (value < 0) fail(row.line, f.column, problem + " is negative", allowed);
    return value;
  }

  std::string path_;
  std::array<std::optional<std::size_t>, column_count> index_;
  std::size_t columns_ = 0;
  bool measured_ = false;
};

}  // namespace

Model read_layer_table_csv(const std::string& path) { return TableReader(path).read(); }

}  // namespace dtsim::models
