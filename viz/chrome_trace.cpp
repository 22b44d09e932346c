#include <nlohmann/json.hpp>

#include "sim/core/atomic_file.hpp"
#include "viz/reports.hpp"

namespace dtsim::viz {
namespace {

int lane_thread(const std::string& lane) { return lane == "compute" ? 1 : lane == "comm" ? 2 : 3; }

}  // namespace

void write_chrome_trace(const std::string& path, const run::RunResult& r) {
  nlohmann::json events = nlohmann::json::array();
  for (int w = 0; w < r.info.workers; ++w) {
    events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", w}, {"args", {{"name", "worker " + std::to_string(w)}}}});
    events.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", w}, {"args", {{"sort_index", w}}}});
    for (const char* lane : {"compute", "comm", "compress"})
      events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", w}, {"tid", lane_thread(lane)},
                        {"args", {{"name", lane}}}});
  }
  for (const run::TraceEvent& e : r.events) {
    nlohmann::json event = {{"ph", "X"},
                            {"name", e.name},
                            {"cat", e.category},
                            {"pid", e.worker},
                            {"tid", lane_thread(e.lane)},
                            {"ts", e.start_s * 1e6},
                            {"dur", (e.end_s - e.start_s) * 1e6}};
    if (e.bytes > 0) event["args"] = {{"bytes", e.bytes}};
    events.push_back(std::move(event));
  }
  // Flow arrows from a message's send to its receive (message level).
  std::int64_t id = 0;
  for (const run::MessageArrow& m : r.messages) {
    ++id;
    events.push_back({{"ph", "s"}, {"name", "message"}, {"cat", "message"}, {"id", id}, {"pid", m.from},
                      {"tid", lane_thread("comm")}, {"ts", m.start_s * 1e6}, {"args", {{"bytes", m.bytes}}}});
    events.push_back({{"ph", "f"}, {"bp", "e"}, {"name", "message"}, {"cat", "message"}, {"id", id}, {"pid", m.to},
                      {"tid", lane_thread("comm")}, {"ts", m.end_s * 1e6}});
  }
  const nlohmann::json trace = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  core::write_atomically(path, [&](std::ostream& out) { out << trace.dump() << '\n'; });
}

}  // namespace dtsim::viz
