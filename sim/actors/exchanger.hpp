#pragma once
/// What a worker's communication stream does with a bucket, per architecture (all-reduce collective,
/// parameter server, gossip). The data-parallel client of the graph walker (simgrid_run.cpp, graph_walker.hpp)
/// calls it from SimGrid actors.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>

#include "sim/actors/execute_steps.hpp"
#include "sim/results/timeline.hpp"

namespace dtsim::actors {

/// What every exchanger may use while the simulation runs.
struct RunContext {
  StepContext& steps;  ///< the fabric, and what execute_steps keeps for the run
  const std::vector<simgrid::s4u::Host*>& hosts;  ///< host of rank r (and of the servers after the workers)
  run::Timeline& timeline;                        ///< traffic, messages, staleness and server loads go here
  int trace_workers = 0;
  /// A transfer of worker `rank` failed (a link went down or its peer crashed): the worker's process aborts on
  /// the broken connection. Records `why`, then stops the job or takes the worker out; does not return when
  /// the calling actor runs on that worker's host.
  std::function<void(int rank, const std::string& why)> take_out;
};

/// Moves `bytes` from host `from` to host `to` (indices of `context.hosts`), at most at the platform's cap for
/// the pair (TCP between nodes: PlatformSpec::transfer_cap_Bps); false when the transfer failed (a link down, a
/// host off).
inline bool try_sendto(const RunContext& context, int from, int to, std::int64_t bytes) {
  simgrid::s4u::Host* source = context.hosts[static_cast<std::size_t>(from)];
  simgrid::s4u::Host* destination = context.hosts[static_cast<std::size_t>(to)];
  if (!source->is_on() || !destination->is_on()) return false;  // SimGrid refuses to start a transfer to a host that is off
  try {
    // The rate is set while the comm is INITED: sendto_init(from, to) makes it STARTING, where SimGrid refuses
    // set_rate (s4u_Comm.cpp); naming the hosts last starts it, as Comm::sendto_async does.
    simgrid::s4u::CommPtr comm = simgrid::s4u::Comm::sendto_init();
    if (const double cap_Bps = context.steps.fabric.spec().transfer_cap_Bps(from, to); !std::isinf(cap_Bps))
      comm->set_rate(cap_Bps);
    comm->set_payload_size(static_cast<std::uint64_t>(bytes))->set_source(source)->set_destination(destination);
    comm->wait();
    return true;
  } catch (const simgrid::NetworkFailureException&) {
    return false;
  }
}

/// Why worker `rank` is taken out when one of its transfers fails.
inline std::string lost_connection(int rank) {
  return "a connection of worker " + std::to_string(rank) + " broke (a link went down or its peer crashed)";
}

class Exchanger {
 public:
  virtual ~Exchanger() = default;
  /// Asked by worker `rank` before its iteration `iteration`; false ends the worker's run (a job is a budget
  /// of gradients: fixed iterations per worker, or, under asynchrony, a total shared by all workers).
  virtual bool begin_iteration(int rank, int iteration) = 0;
  /// Worker `rank`'s part of bucket `bucket` of iteration `iteration`; returns when the worker may go on.
  virtual void exchange(int rank, int iteration, std::size_t bucket) = 0;
  /// Called by the communication stream after the iteration's last bucket: returns when every exchange of
  /// the iteration is complete at this worker.
  virtual void finish_iteration(int /*rank*/, int /*iteration*/) {}
  /// Worker `rank` is out (crashed or taken out): stop waiting for it where the scheme allows.
  virtual void worker_failed(int /*rank*/) {}
  /// True when the job can go on without the workers in `out` (all-reduce: never).
  virtual bool survives(const std::vector<int>& /*out*/) const { return false; }
  /// True when the worker skipped its upload in that iteration (LAG).
  virtual bool skipped(int /*rank*/, int /*iteration*/) const { return false; }
  /// True when the server dropped the worker's gradient of that iteration (backup workers).
  virtual bool dropped(int /*rank*/, int /*iteration*/) const { return false; }
};

}  // namespace dtsim::actors
