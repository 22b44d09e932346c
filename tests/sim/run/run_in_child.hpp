#pragma once
// SimGrid allows one engine per process: tests that compare several simulated runs run each in a forked child
// and get back the parts of the result they check (times, per-worker breakdowns, traffic, worker and server
// summaries, staleness).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "sim/run/run_simulation.hpp"

namespace dtsim::testing {

namespace detail {

inline void put(std::vector<double>& out, const std::vector<double>& section) {
  out.push_back(static_cast<double>(section.size()));
  out.insert(out.end(), section.begin(), section.end());
}

inline std::vector<double> take(const std::vector<double>& in, std::size_t& at) {
  const auto n = static_cast<std::size_t>(in[at++]);
  std::vector<double> section(in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(at + n));
  at += n;
  return section;
}

}  // namespace detail

/// run_simulation(s) in a child process.
inline run::RunResult run_in_child(const scenario::Scenario& s) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const run::RunResult r = run::run_simulation(s);
    std::vector<double> out{r.mean_iteration_s};
    std::vector<double> ends, breakdowns, traffic, workers, servers, staleness;
    for (const auto& it : r.iterations) {
      ends.push_back(it.end_s);
      for (const auto& b : it.per_worker)
        breakdowns.insert(breakdowns.end(), {b.forward_s, b.backward_s, b.update_s, b.exposed_comm_s, b.idle_s});
    }
    for (const auto& t : r.traffic) traffic.insert(traffic.end(), {double(t.bytes_sent), double(t.bytes_received)});
    for (const auto& w : r.workers) workers.insert(workers.end(), {double(w.iterations), double(w.dropped), w.waiting_s});
    for (const auto& v : r.servers)
      servers.insert(servers.end(), {double(v.host), double(v.bytes_in), double(v.bytes_out), v.busy_s});
    for (auto count : r.staleness) staleness.push_back(double(count));
    for (const auto* section : {&ends, &breakdowns, &traffic, &workers, &servers, &staleness}) detail::put(out, *section);
    const auto* bytes = reinterpret_cast<const char*>(out.data());
    std::size_t left = out.size() * sizeof(double);
    while (left > 0) {
      const ssize_t n = write(fds[1], bytes, left);
      if (n <= 0) _exit(1);
      bytes += n;
      left -= static_cast<std::size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  std::vector<char> bytes;
  char buffer[65536];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) bytes.insert(bytes.end(), buffer, buffer + n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || bytes.size() % sizeof(double) != 0) std::abort();
  std::vector<double> in(bytes.size() / sizeof(double));
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(in.data()));
  run::RunResult r;
  std::size_t at = 0;
  r.mean_iteration_s = in[at++];
  double previous = 0;
  for (double end : detail::take(in, at)) {
    r.iterations.push_back({static_cast<int>(r.iterations.size()), previous, end, end - previous, 0, 0, {}});
    previous = end;
  }
  const auto breakdowns = detail::take(in, at);
  const std::size_t per_iteration = r.iterations.empty() ? 0 : breakdowns.size() / r.iterations.size();
  for (std::size_t i = 0; i < breakdowns.size(); i += 5)
    r.iterations[i / per_iteration].per_worker.push_back(
        {breakdowns[i], breakdowns[i + 1], breakdowns[i + 2], breakdowns[i + 3], breakdowns[i + 4]});
  const auto traffic = detail::take(in, at);
  for (std::size_t i = 0; i < traffic.size(); i += 2)
    r.traffic.push_back({static_cast<std::int64_t>(traffic[i]), static_cast<std::int64_t>(traffic[i + 1])});
  const auto workers = detail::take(in, at);
  for (std::size_t i = 0; i < workers.size(); i += 3)
    r.workers.push_back({static_cast<int>(workers[i]), static_cast<int>(workers[i + 1]), 0, workers[i + 2]});
  const auto servers = detail::take(in, at);
  for (std::size_t i = 0; i < servers.size(); i += 4)
    r.servers.push_back({static_cast<int>(servers[i]), static_cast<std::int64_t>(servers[i + 1]),
                         static_cast<std::int64_t>(servers[i + 2]), servers[i + 3]});
  for (double count : detail::take(in, at)) r.staleness.push_back(static_cast<std::int64_t>(count));
  return r;
}

}  // namespace dtsim::testing
