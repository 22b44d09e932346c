#pragma once
/// What a worker's communication stream does with a bucket, per architecture (all-reduce collective,
/// parameter server, gossip). The iteration executor (simgrid_run.cpp) calls it from SimGrid actors.
#include <cstddef>
#include <vector>

#include <simgrid/s4u/Host.hpp>

#include "sim/platform/fabric.hpp"
#include "sim/run/timeline.hpp"

namespace dtsim::actors {

/// What every exchanger may use while the simulation runs.
struct RunContext {
  const platform::Fabric& fabric;
  const std::vector<simgrid::s4u::Host*>& hosts;  ///< host of rank r (and of the servers after the workers)
  run::Timeline& timeline;                        ///< traffic, messages, staleness and server loads go here
  int trace_workers = 0;
};

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
  /// True when the server dropped the worker's gradient of that iteration (backup workers).
  virtual bool dropped(int /*rank*/, int /*iteration*/) const { return false; }
};

}  // namespace dtsim::actors
