#include "sim/sweep/sweep_runner.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/core/error.hpp"
#include "sim/sweep/point_result.hpp"
#include "sim/core/atomic_file.hpp"

namespace dtsim::sweep {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

/// The point's earlier record, if it is a success under the same content key.
bool has_successful_result(const scenario::SweepSpec& spec, const PointKey& key) {
  std::ifstream in(point_dir(spec, key) + "/point.json");
  if (!in) return false;
  const nlohmann::json point = nlohmann::json::parse(in, nullptr, false);
  return point.is_object() && point.value("status", "") == "ok" && point.value("key", "") == key.key;
}

/// A point to run: its settings and content key.
struct Todo {
  scenario::SweepPoint point;
  PointKey key;
};

/// Starts `dtsim run` for one point with stdout to run.log and stderr to error.log in its folder. The child dies
/// with the sweep (PR_SET_PDEATHSIG), even a SIGKILLed one, so no point is left writing into a folder that a
/// restarted sweep clears.
pid_t start_point(const scenario::SweepSpec& spec, const Todo& todo, const std::string& binary) {
  const std::string dir = point_dir(spec, todo.key);
  std::error_code ec;
  fs::remove_all(dir, ec);  // what a failed or interrupted earlier attempt left
  if (!ec) fs::create_directories(dir, ec);
  if (ec)
    throw core::InputError(dir, "cannot clear the point's folder: " + ec.message(),
                           "make the sweep's output folder writable, or give the sweep another output");
  std::vector<std::string> args{binary, "run"};
  if (!spec.base.empty()) args.push_back(spec.base);
  args.insert(args.end(), {"--out", dir});
  for (const std::string& s : point_overrides(spec, todo.point)) args.insert(args.end(), {"--set", s});
  const pid_t sweep = getpid();
  const pid_t pid = fork();
  DTSIM_CHECK(pid >= 0, "fork failed");
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != sweep) _exit(127);  // the sweep died before prctl took effect
    const int out = open((dir + "/run.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open((dir + "/error.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out >= 0) dup2(out, STDOUT_FILENO);
    if (err >= 0) dup2(err, STDERR_FILENO);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

/// Records a finished point's result from its report.json or its error.log.
bool record_point(const scenario::SweepSpec& spec, const Todo& todo, int status) {
  const std::string dir = point_dir(spec, todo.key);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  nlohmann::json result = code == 0 ? successful_point(todo.point, todo.key, dir + "/report.json")
                                    : failed_point(todo.point, todo.key, code, read_all(dir + "/error.log"));
  core::write_atomically(dir + "/point.json", [&](std::ostream& out) { out << result.dump(2) << '\n'; });
  return code == 0;
}

std::string describe(const scenario::SweepPoint& point) {
  std::string text;
  for (const auto& [key, value] : point.settings) text += (text.empty() ? "" : " ") + key + "=" + value;
  return text.empty() ? "base scenario" : text;
}

/// A CSV field, quoted when it holds a separator, a quote or a line break (RFC 4180).
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string format_eta(double seconds) {
  const int s = static_cast<int>(seconds + 0.5);
  return s >= 60 ? fmt::format("{}m{:02d}s", s / 60, s % 60) : fmt::format("{}s", s);
}

/// The points running now; any still running when the sweep leaves run_sweep (an exception) are killed and reaped.
struct Running : std::map<pid_t, Todo> {
  Running() = default;
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;
  ~Running() {
    for (const auto& [pid, todo] : *this) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

}  // namespace

int run_sweep(const scenario::SweepSpec& spec, const std::vector<PointKey>& keys, const RunOptions& options,
              std::ostream& progress, bool terminal) {
  const std::vector<scenario::SweepPoint> points = spec.points();
  // Points with equal keys share one folder: the first of them runs (in its shard), the others share its result.
  std::map<std::string, int> first;
  for (const scenario::SweepPoint& p : points) first.emplace(keys[static_cast<std::size_t>(p.index)].key, p.index);
  std::vector<Todo> todo;
  int reused = 0, in_shard = 0, repeats = 0;
  for (const scenario::SweepPoint& p : points) {
    const PointKey& key = keys[static_cast<std::size_t>(p.index)];
    const int owner = first.at(key.key);
    if (owner % options.shards != options.shard) continue;
    if (owner != p.index) {
      ++repeats;
      continue;
    }
    ++in_shard;
    if (has_successful_result(spec, key)) {
      ++reused;
      continue;
    }
    todo.push_back({p, key});
  }
  if (reused > 0)
    fmt::print(progress,
               "reusing {} of {} points: an earlier result has the same resolved scenario (every key, defaults and "
               "input files) and the same dtsim build; running {} (new, changed or failed before)\n",
               reused, in_shard, todo.size());
  if (repeats > 0)
    fmt::print(progress, "{} points repeat the resolved scenario of an earlier point and share its result\n",
               repeats);
  const auto started = Clock::now();
  Running running;
  std::size_t next = 0;
  int done = 0, failed = 0;
  const int total = static_cast<int>(todo.size());
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && static_cast<int>(running.size()) < options.jobs) {
      running.emplace(start_point(spec, todo[next], options.dtsim_binary), todo[next]);
      ++next;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    DTSIM_CHECK(pid > 0, "waitpid failed");
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    bool ok = false;
    try {
      ok = record_point(spec, it->second, status);
    } catch (const core::InputError& e) {  // the folder went read-only or full: the other points go on
      fmt::print(progress, "\npoint {}: its result could not be recorded: {}\n", it->second.point.index, e.what());
    }
    ++done;
    failed += ok ? 0 : 1;
    const double elapsed = std::chrono::duration<double>(Clock::now() - started).count();
    const double eta = elapsed / done * (total - done);
    if (terminal) {
      const int width = 30, filled = total > 0 ? width * done / total : width;
      fmt::print(progress, "\r[{}{}] {}/{} points, {} failed, ETA {}   ", std::string(filled, '#'),
                 std::string(width - filled, '.'), done, total, failed, format_eta(eta));
      if (done == total) fmt::print(progress, "\n");
    } else {
      fmt::print(progress, "point {} ({}/{}) {}: {}\n", it->second.point.index, done, total, ok ? "ok" : "FAILED",
                 describe(it->second.point));
    }
    progress.flush();
    running.erase(it);
  }
  return failed;
}

std::pair<int, int> merge_results(const scenario::SweepSpec& spec, const std::vector<PointKey>& keys) {
  std::vector<nlohmann::json> results;
  int failed = 0;
  for (const scenario::SweepPoint& p : spec.points()) {
    const PointKey& key = keys[static_cast<std::size_t>(p.index)];
    std::ifstream in(point_dir(spec, key) + "/point.json");
    if (!in) continue;
    nlohmann::json point = nlohmann::json::parse(in, nullptr, false);
    if (!point.is_object() || point.value("key", "") != key.key) continue;
    // A reused result may have been made under another index or with the same settings written otherwise.
    point["point"] = p.index;
    point["keys"] = settings_json(p);
    failed += point.value("status", "") == "ok" ? 0 : 1;
    results.push_back(std::move(point));
  }
  core::write_atomically(spec.output_dir + "/results.jsonl", [&](std::ostream& out) {
    for (const nlohmann::json& r : results) out << r.dump() << '\n';
  });
  core::write_atomically(spec.output_dir + "/results.csv", [&](std::ostream& out) {
    out << "point";
    for (const scenario::Axis& a : spec.axes) out << ',' << a.key;
    out << ",status";
    for (const std::string& m : metric_names()) out << ',' << m;
    out << ",error,key\n";
    for (const nlohmann::json& r : results) {
      out << r["point"].get<int>();
      for (const scenario::Axis& a : spec.axes) {
        const nlohmann::json& v = r["keys"][a.key];
        out << ',' << csv_field(v.is_string() ? v.get<std::string>() : v.dump());
      }
      out << ',' << r["status"].get<std::string>();
      for (const std::string& m : metric_names()) {
        out << ',';
        if (r.contains("metrics")) out << r["metrics"][m].dump();
      }
      out << ',' << csv_field(r.value("error", "")) << ',' << r["key"].get<std::string>() << '\n';
    }
  });
  return {static_cast<int>(results.size()), failed};
}

}  // namespace dtsim::sweep
