#include "sim/calibration/measurement.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>

#include "sim/calibration/csv_fields.hpp"

namespace dtsim::calibration {
namespace {

using models::CsvField;
using models::CsvRow;

const std::string kWhat = "measurement file";
const std::string kFormats =
    "nccl-tests output, a vTrain CSV (AR_GPU<n>_*, header size(B),count,type,time(ns),busbw(GB/s),time(ns),"
    "busbw(GB/s)) or a CSV with header gpus,gpus_per_node,bytes,time_us";
const std::vector<std::string> kPlainHeader{"gpus", "gpus_per_node", "bytes", "time_us"};
const std::vector<std::string> kVtrainHeader{"size(b)",     "count",    "type",       "time(ns)",
                                             "busbw(gb/s)", "time(ns)", "busbw(gb/s)"};
const std::string kNcclTable = "a table row under the header '#  size count type redop root time algbw busbw ...'";
constexpr std::string_view kBlanks = " \t";
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

/// Every line of the file, without line ends and the UTF-8 byte-order mark.
std::vector<std::string> read_lines(const std::string& path) {
  require_readable(path, kWhat, kFormats);
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lines.empty() && line.starts_with(kUtf8Bom)) line.erase(0, kUtf8Bom.size());
    lines.push_back(std::move(line));
  }
  return lines;
}

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(kBlanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kBlanks) + 1 - first);
}

/// Whitespace-separated words from `from` on, with their 1-based columns.
std::vector<CsvField> words(std::string_view line, std::size_t from = 0) {
  std::vector<CsvField> out;
  std::size_t i = line.find_first_not_of(kBlanks, from);
  while (i != std::string_view::npos) {
    const std::size_t end = std::min(line.find_first_of(kBlanks, i), line.size());
    out.push_back({std::string(line.substr(i, end - i)), static_cast<int>(i) + 1});
    i = line.find_first_not_of(kBlanks, end);
  }
  return out;
}

std::string where(const std::string& path, int line) { return path + ":" + std::to_string(line) + ":1"; }

/// The GPU count in a vTrain file name: AR_GPU<n>_...
int vtrain_gpus(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  constexpr std::string_view prefix = "AR_GPU";
  if (name.starts_with(prefix)) {
    int gpus = 0;
    const char* end = name.data() + name.size();
    const auto [ptr, error] = std::from_chars(name.data() + prefix.size(), end, gpus);
    if (error == std::errc() && (ptr == end || *ptr == '_') && gpus >= 2) return gpus;
  }
  fail_at(path, 1, 1, "the file name '" + name + "' does not give the GPU count",
          "a vTrain file named AR_GPU<n>_..., n >= 2 GPUs");
}

/// The nccl-tests run being read: its ranks, hosts and table columns.
struct NcclRun {
  int ranks = 0;
  std::set<std::string> hosts;
  bool has_table = false;
  std::size_t time_column = 0;  ///< the first "time": out-of-place
  std::size_t columns = 0;

  /// The group of this run's ranks, or a located error at `line` when it cannot be told.
  collectives::Group group(const std::string& path, int line) const {
    if (ranks == 0)
      fail_at(path, line, 1, "no '#  Rank' line before the table: the GPU count is unknown",
              "the whole nccl-tests output, with its '#  Rank <r> ... on <host> ...' lines");
    if (ranks < 2) fail_at(path, line, 1, "the run has 1 GPU", "a run over at least 2 GPUs");
    const int nodes = static_cast<int>(hosts.size());
    if (ranks % nodes != 0)
      fail_at(path, line, 1,
              std::to_string(ranks) + " ranks are spread unevenly over " + std::to_string(nodes) + " hosts",
              "the same number of GPUs on every host");
    return {ranks, ranks / nodes};
  }
};

}  // namespace

std::vector<Measurement> read_nccl_tests(const std::string& path) {
  const std::vector<std::string> lines = read_lines(path);
  std::vector<Measurement> out;
  NcclRun run;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& text = lines[i];
    const int line = static_cast<int>(i) + 1;
    const std::size_t first = text.find_first_not_of(kBlanks);
    if (first == std::string::npos) continue;
    if (text[first] == '#') {
      const std::vector<CsvField> w = words(text, first + 1);
      const auto find = [&](std::string_view word) {
        return std::find_if(w.begin(), w.end(), [&](const CsvField& f) { return f.text == word; });
      };
      if (w.empty()) continue;
      if (w[0].text == "nThread") {
        run = NcclRun{};
      } else if (w[0].text == "Rank") {
        const auto on = find("on");
        if (on == w.end() || on + 1 == w.end())
          fail_at(path, line, w[0].column, "a rank line without 'on <host>'",
                  "'#  Rank <r> Group <g> Pid <p> on <host> ...'");
        ++run.ranks;
        run.hosts.insert((on + 1)->text);
      } else if (w[0].text == "size") {
        const auto time = find("time");
        if (time == w.end()) fail_at(path, line, w[0].column, "a table header without a 'time' column", kNcclTable);
        run.has_table = true;
        run.time_column = static_cast<std::size_t>(time - w.begin());
        run.columns = w.size();
      }
      continue;
    }
    if (text.find(" NCCL INFO ") != std::string::npos || text.find(" NCCL WARN ") != std::string::npos) continue;
    if (!run.has_table)
      fail_at(path, line, static_cast<int>(first) + 1, "a line outside the nccl-tests table", kNcclTable);
    const std::vector<CsvField> w = words(text);
    if (w.size() != run.columns) {
      const int column = w.size() > run.columns ? w[run.columns].column : static_cast<int>(text.size()) + 1;
      fail_at(path, line, column, std::to_string(w.size()) + " fields, the header has " + std::to_string(run.columns),
              "one field per column");
    }
    out.push_back({run.group(path, line), static_cast<double>(whole_number(path, line, w[0], "size", 1)),
                   number(path, line, w[run.time_column], "time", false) * 1e-6, where(path, line)});
  }
  if (out.empty()) fail_at(path, 1, 1, "no nccl-tests table rows", kNcclTable);
  return out;
}

std::vector<Measurement> read_vtrain_csv(const std::string& path) {
  const int gpus = vtrain_gpus(path);
  std::vector<Measurement> out;
  for (const CsvRow& row : csv_rows(path, kVtrainHeader, kWhat,
                                    "the vTrain header size(B),count,type,time(ns),busbw(GB/s),time(ns),busbw(GB/s)")) {
    out.push_back({{gpus, gpus},
                   static_cast<double>(whole_number(path, row.line, row.fields[0], "size(B)", 1)),
                   number(path, row.line, row.fields[3], "time(ns)", false) * 1e-9,
                   where(path, row.line)});
  }
  return out;
}

std::vector<Measurement> read_plain_csv(const std::string& path) {
  std::vector<Measurement> out;
  for (const CsvRow& row : csv_rows(path, kPlainHeader, kWhat, "the header gpus,gpus_per_node,bytes,time_us")) {
    const auto gpus = static_cast<int>(whole_number(path, row.line, row.fields[0], "gpus", 2));
    const auto per_node = static_cast<int>(whole_number(path, row.line, row.fields[1], "gpus_per_node", 1));
    out.push_back({{gpus, per_node},
                   static_cast<double>(whole_number(path, row.line, row.fields[2], "bytes", 1)),
                   number(path, row.line, row.fields[3], "time_us", false) * 1e-6,
                   where(path, row.line)});
  }
  return out;
}

std::vector<Measurement> read_measurements(const std::string& path) {
  const std::vector<std::string> lines = read_lines(path);
  const auto first = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return !trim(l).empty(); });
  if (first == lines.end()) fail_at(path, 1, 1, "the measurement file is empty", kFormats);
  const std::string_view text = trim(*first);
  if (text.front() == '#' || text.find(',') == std::string_view::npos) return read_nccl_tests(path);
  const bool vtrain = lower(std::string(trim(text.substr(0, text.find(','))))) == kVtrainHeader.front();
  return vtrain ? read_vtrain_csv(path) : read_plain_csv(path);
}

}  // namespace dtsim::calibration
