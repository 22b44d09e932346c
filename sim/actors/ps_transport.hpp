#pragma once
/// What a parameter server's participants share at the simulated levels, whoever drives them (PsExchanger for
/// plain data parallelism, ServerRuns for a layout's data dimension): the connections to the servers, and the
/// node's stages that take one partition at a time (BytePS).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <simgrid/s4u/Mutex.hpp>

#include "sim/actors/exchanger.hpp"

namespace dtsim::actors {

/// One step a node runs on each partition before its push or after its pull (BytePS: the NCCL reduce over
/// NVLink or a PCIe switch, the copy to host memory, the CPU's sum across PCIe switches; and back): a resource of
/// the node that takes one partition at a time, `latency_s + bytes * seconds_per_byte`.
struct NodeStage {
  std::string name;
  double latency_s = 0;
  double seconds_per_byte = 0;
  double time_s(std::int64_t bytes) const { return latency_s + static_cast<double>(bytes) * seconds_per_byte; }
};

/// The hosts' connections: with `in_order` (PsSetup::fifo_connections, ps-lite's ZeroMQ van: one socket per
/// worker and server) each direction of a host pair carries its messages one after another, in the order they
/// were sent; else each message is a flow of its own.
class Connections {
 public:
  explicit Connections(bool in_order) : in_order_(in_order) {}
  /// Moves `bytes` from host `from` to host `to` (try_sendto), after the pair's earlier messages when in order;
  /// false when the transfer failed.
  bool send(const RunContext& context, int from, int to, std::int64_t bytes);

 private:
  bool in_order_;
  std::map<std::pair<int, int>, simgrid::s4u::MutexPtr> connections_;
};

/// The node stages of each participant (PsSetup::before_push and after_pull, which outlive this), each a
/// resource that takes one partition at a time.
class NodeStageResources {
 public:
  NodeStageResources(const std::vector<NodeStage>& before_push, const std::vector<NodeStage>& after_pull)
      : before_push_(before_push), after_pull_(after_pull) {}
  /// Runs partition `bytes` through `stages` (before_push or after_pull) of participant `participant`.
  void run(int participant, const std::vector<NodeStage>& stages, std::int64_t bytes);

 private:
  const std::vector<NodeStage>& before_push_;
  const std::vector<NodeStage>& after_pull_;
  std::map<int, std::vector<simgrid::s4u::MutexPtr>> busy_;  ///< by participant: before, then after
};

}  // namespace dtsim::actors
