#pragma once
/// The outputs of `dtsim run`: console table, report.json, summary.csv and timeline.json.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/results/run_result.hpp"

namespace dtsim::viz {

/// A human-readable summary: setup, per-iteration table, breakdown of worker 0, traffic, and the diagnosis of
/// `report` (report_json of `result`: built once for the console and the file, 10 % of a 100,000-GPU run).
void print_console_summary(std::ostream& out, const run::RunResult& result, const nlohmann::json& report);
/// The content of report.json (below), in memory.
nlohmann::json report_json(const run::RunResult& result, const std::vector<std::string>& outputs);
/// report.json: the whole result except the timeline, with its provenance and the run's `outputs` (file names
/// in the run folder; readers use only these) (schema in README.md).
void write_report_json(const std::string& path, const nlohmann::json& report);
/// summary.csv: one row per iteration with the breakdown averaged over workers (first a "# NOT REPRODUCIBLE: why"
/// line when the run timed kernels on the host).
void write_summary_csv(const std::string& path, const run::RunResult& result);
/// timeline.json in Chrome trace-event format (Perfetto, chrome://tracing): a process per worker,
/// a thread per lane (compute, comm, compress), one complete ("X") event per layer phase and bucket, and
/// flow arrows ("s" to "f") for the messages of the message level. A communication span whose latency part is
/// known (TraceEvent::latency_s) holds two nested slices, "latency" then "transfer", and both seconds in its args.
void write_chrome_trace(const std::string& path, const run::RunResult& result);

}  // namespace dtsim::viz
