#pragma once
/// A minimal CSV reader for layer tables: comma-separated, no quoting, blank lines skipped.
#include <string>
#include <vector>

namespace dtsim::models {

/// One field, trimmed of spaces and tabs, with the 1-based column where its text starts.
struct CsvField {
  std::string text;
  int column = 0;
};

/// One non-blank line of the file.
struct CsvRow {
  int line = 0;        ///< 1-based
  int end_column = 0;  ///< 1-based column just past the line's last character
  std::vector<CsvField> fields;
};

/// Reads every non-blank line of `path`; throws core::InputError located "path:line:col".
std::vector<CsvRow> read_csv_rows(const std::string& path);

}  // namespace dtsim::models
