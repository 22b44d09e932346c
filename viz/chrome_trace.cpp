#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/core/atomic_file.hpp"
#include "viz/reports.hpp"

namespace dtsim::viz {
namespace {

/// Thread ids of a run's lanes, 1 up: the lanes named here first, in this order (plain data parallelism's
/// compute, comm and compress; a layout's streams, see taskgraph::stream_name), then any other lane of the run in
/// name order, so that a stream added to the task graph gets a lane without an edit here.
std::map<std::string, int> lane_threads(const run::RunResult& r) {
  static constexpr const char* kFirst[] = {"compute", "comm",     "compress", "tensor", "context", "expert",
                                           "data",    "gather",   "pipeline", "server"};
  std::set<std::string> rest;
  for (const run::TraceEvent& e : r.events) rest.insert(e.lane);
  if (!r.messages.empty()) rest.insert("comm");  // message arrows bind to the comm lane
  std::map<std::string, int> threads;
  int next = 1;
  for (const char* lane : kFirst)
    if (rest.erase(lane) > 0) threads[lane] = next++;
  for (const std::string& lane : rest) threads[lane] = next++;
  return threads;
}

/// Perfetto advises against pid 0: worker w is process w + 1, the job's iterations the process after them.
int worker_pid(int worker) { return worker + 1; }

nlohmann::json metadata(const char* name, int pid, const nlohmann::json& args) {
  return {{"ph", "M"}, {"name", name}, {"pid", pid}, {"args", args}};
}

/// One process "job" on top with a slice per iteration, so every lane can be read against the iterations.
void add_iterations(nlohmann::json& events, const run::RunResult& r) {
  const int pid = worker_pid(r.info.workers);
  events.push_back(metadata("process_name", pid, {{"name", "job"}}));
  events.push_back(metadata("process_sort_index", pid, {{"sort_index", -1}}));
  nlohmann::json thread = metadata("thread_name", pid, {{"name", "iterations"}});
  thread["tid"] = 1;
  events.push_back(std::move(thread));
  for (const run::IterationResult& it : r.iterations)
    events.push_back({{"ph", "X"}, {"name", "iteration " + std::to_string(it.index)}, {"cat", "iteration"},
                      {"pid", pid}, {"tid", 1}, {"ts", it.start_s * 1e6}, {"dur", it.time_s * 1e6},
                      {"args", {{"samples_per_s", it.samples_per_s}}}});
}

/// A communication span's two parts as slices nested in it, and their seconds in its args: its start-up latency
/// (every step's alpha, summed; drawn first) and the rest, its bytes over the links' bandwidth.
void add_latency_split(nlohmann::json& events, const run::TraceEvent& e, int pid, int tid) {
  nlohmann::json& parent = events.back();
  const double latency_s = std::min(*e.latency_s, e.end_s - e.start_s);
  parent["args"]["latency_s"] = *e.latency_s;
  parent["args"]["transfer_s"] = e.end_s - e.start_s - latency_s;
  const double ts = parent["ts"].get<double>(), dur = parent["dur"].get<double>(), latency_us = latency_s * 1e6;
  events.push_back({{"ph", "X"}, {"name", "latency"}, {"cat", "comm_latency"}, {"pid", pid}, {"tid", tid},
                    {"ts", ts}, {"dur", latency_us}});
  events.push_back({{"ph", "X"}, {"name", "transfer"}, {"cat", "comm_transfer"}, {"pid", pid}, {"tid", tid},
                    {"ts", ts + latency_us}, {"dur", dur - latency_us}});
}

}  // namespace

void write_chrome_trace(const std::string& path, const run::RunResult& r) {
  nlohmann::json events = nlohmann::json::array();
  // Processes and threads are named only where they have events: no empty tracks.
  const std::map<std::string, int> threads = lane_threads(r);
  const auto lane_thread = [&](const std::string& lane) { return threads.at(lane); };
  std::set<std::pair<int, std::string>> lanes;
  for (const run::TraceEvent& e : r.events) lanes.insert({e.worker, e.lane});
  int named = -1;
  for (const auto& [worker, lane] : lanes) {
    const int pid = worker_pid(worker);
    if (worker != named) {
      events.push_back(metadata("process_name", pid, {{"name", "worker " + std::to_string(worker)}}));
      events.push_back(metadata("process_sort_index", pid, {{"sort_index", worker}}));
      named = worker;
    }
    nlohmann::json name = metadata("thread_name", pid, {{"name", lane}});
    name["tid"] = lane_thread(lane);
    events.push_back(std::move(name));
  }
  add_iterations(events, r);
  for (const run::TraceEvent& e : r.events) {
    nlohmann::json event = {{"ph", "X"},
                            {"name", e.name},
                            {"cat", e.category},
                            {"pid", worker_pid(e.worker)},
                            {"tid", lane_thread(e.lane)},
                            {"ts", e.start_s * 1e6},
                            {"dur", (e.end_s - e.start_s) * 1e6}};
    if (e.bytes > 0) event["args"] = {{"bytes", e.bytes}};
    events.push_back(std::move(event));
    if (e.latency_s) add_latency_split(events, e, worker_pid(e.worker), lane_thread(e.lane));
  }
  // Flow arrows from a message's send to its receive (message level). Each end binds to the slice enclosing
  // it on its comm lane: the bucket exchange the message belongs to.
  std::int64_t id = 0;
  for (const run::MessageArrow& m : r.messages) {
    ++id;
    events.push_back({{"ph", "s"}, {"bp", "e"}, {"name", "message"}, {"cat", "message"}, {"id", id},
                      {"pid", worker_pid(m.from)}, {"tid", lane_thread("comm")}, {"ts", m.start_s * 1e6},
                      {"args", {{"bytes", m.bytes}}}});
    events.push_back({{"ph", "f"}, {"bp", "e"}, {"name", "message"}, {"cat", "message"}, {"id", id},
                      {"pid", worker_pid(m.to)}, {"tid", lane_thread("comm")}, {"ts", m.end_s * 1e6}});
  }
  const nlohmann::json trace = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
  core::write_atomically(path, [&](std::ostream& out) { out << trace.dump() << '\n'; });
}

}  // namespace dtsim::viz
