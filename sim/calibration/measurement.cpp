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

/// Bytes per element of nccl-tests' data types.
std::optional<long long> type_bytes(const std::string& type) {
  static const std::vector<std::pair<std::string, long long>> kTypes{
      {"int8", 1},  {"uint8", 1},  {"int32", 4},    {"uint32", 4}, {"int64", 8},  {"uint64", 8},
      {"half", 2},  {"float", 4},  {"double", 8},   {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
  for (const auto& [name, bytes] : kTypes)
    if (name == type) return bytes;
  return std::nullopt;
}

/// True when the text is a whole number: a table row starts with one (its size).
bool whole(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// The nccl-tests run being read: its ranks, hosts and table columns.
struct NcclRun {
  int ranks = 0;
  std::set<std::string> hosts;
  bool in_table = false;        ///< between the header and the first '#' line after a row
  int rows = 0;                 ///< rows of the current table
  std::size_t time_column = 0;  ///< the first "time": out-of-place
  std::size_t columns = 0;
  std::optional<std::size_t> count_column, type_column, redop_column, root_column;

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

  /// Refuses a row of another collective's test (all_gather_perf, reduce_scatter_perf, ...): the fit is of an
  /// all-reduce, which reduces (redop), has no root and a count of size / type bytes.
  void check_all_reduce(const std::string& path, int line, const std::vector<CsvField>& w) const {
    const std::string redop = redop_column ? w[*redop_column].text : "sum";
    const std::string root = root_column ? w[*root_column].text : "-1";
    const auto bytes = type_column ? type_bytes(w[*type_column].text) : std::nullopt;
    const bool whole_count = !count_column || !bytes ||
                             whole_number(path, line, w[*count_column], "count", 0) * *bytes ==
                                 whole_number(path, line, w[0], "size", 1);
    std::string test;
    if (redop == "none")
      test = root == "-1" ? "all_gather_perf, alltoall_perf or sendrecv_perf" : "broadcast_perf";
    else if (root != "-1")
      test = "reduce_perf";
    else if (!whole_count)
      test = "reduce_scatter_perf";
    if (test.empty()) return;
    fail_at(path, line, w[redop_column.value_or(0)].column,
            "a row of " + test + " (redop " + redop + ", root " + root + (whole_count ? "" : ", count below size") +
                "), not of an all-reduce",
            "all_reduce_perf output for an all-reduce fit: redop sum, root -1, count x type bytes = size");
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
        const auto column = [&](std::string_view word) -> std::optional<std::size_t> {
          const auto at = find(word);
          if (at == w.end()) return std::nullopt;
          return static_cast<std::size_t>(at - w.begin());
        };
        run.in_table = true;
        run.rows = 0;
        run.time_column = static_cast<std::size_t>(time - w.begin());
        run.columns = w.size();
        run.count_column = column("count");
        run.type_column = column("type");
        run.redop_column = column("redop");
        run.root_column = column("root");
      } else if (run.rows > 0) {
        run.in_table = false;  // "# Out of bounds values", "# Avg bus bandwidth": the table ended
      }
      continue;
    }
    if (text.find(" NCCL INFO ") != std::string::npos || text.find(" NCCL WARN ") != std::string::npos) continue;
    const std::vector<CsvField> w = words(text);
    if (!run.in_table || !whole(w[0].text)) continue;  // ssh and mpirun banners, warnings: not table rows
    if (w.size() != run.columns) {
      const int column = w.size() > run.columns ? w[run.columns].column : static_cast<int>(text.size()) + 1;
      fail_at(path, line, column, std::to_string(w.size()) + " fields, the header has " + std::to_string(run.columns),
              "one field per column");
    }
    run.check_all_reduce(path, line, w);
    ++run.rows;
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
  const bool nccl_tests = std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    const std::string_view t = trim(l);
    if (!t.starts_with('#')) return false;
    const std::vector<CsvField> w = words(t, 1);
    return !w.empty() && (w[0].text == "nThread" || w[0].text == "size");
  });
  if (nccl_tests || text.front() == '#' || text.find(',') == std::string_view::npos) return read_nccl_tests(path);
  const bool vtrain = lower(std::string(trim(text.substr(0, text.find(','))))) == kVtrainHeader.front();
  return vtrain ? read_vtrain_csv(path) : read_plain_csv(path);
}

}  // namespace dtsim::calibration
