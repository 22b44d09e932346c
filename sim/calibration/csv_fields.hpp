#pragma once
/// Located parsing of text fields shared by the calibration readers: every failure is a core::InputError
/// "path:line:col: problem; what is allowed".
#include <string>
#include <vector>

#include "models/csv_reader.hpp"

namespace dtsim::calibration {

/// Throws core::InputError at path:line:column.
[[noreturn]] void fail_at(const std::string& path, int line, int column, const std::string& problem,
                          const std::string& allowed);
/// Throws "cannot open the <what>" unless `path` is a readable regular file; `allowed` names the formats.
void require_readable(const std::string& path, const std::string& what, const std::string& allowed);
/// The field as a whole number >= minimum.
long long whole_number(const std::string& path, int line, const models::CsvField& field, const std::string& what,
                       long long minimum);
/// The field as a finite number, > 0 or, when `zero_allowed`, >= 0.
double number(const std::string& path, int line, const models::CsvField& field, const std::string& what,
              bool zero_allowed);
/// The rows of a CSV whose header is `header` (compared in lower case) and which has at least one data row of
/// as many fields; the header row is dropped. `what` names the file in errors, `allowed` says the header.
std::vector<models::CsvRow> csv_rows(const std::string& path, const std::vector<std::string>& header,
                                     const std::string& what, const std::string& allowed);
/// `text` in lower case.
std::string lower(std::string text);

}  // namespace dtsim::calibration
