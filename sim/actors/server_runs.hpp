#pragma once
/// A layout's data-parallel gradients at parameter servers, at the flow and message levels: the push and pull
/// tasks (taskgraph::Op::push, Op::pull) of each stage's data-parallel groups, run by the layout's client of the
/// graph walker (graph_run.cpp) as the plain line's PsExchanger runs them (the same pieces, servers, connections
/// and node stages: ps_transport.hpp), in rounds: a piece's pull waits for the push of every participant of its
/// group. The servers' sum stays the task between push and pull on the server stream, as at the analytic level
/// (a bucket's sums of a stage's groups, the busiest server's, before the pulls), so both levels sum alike.
///
///   rank --(node: to its root)--> root --pieces--> servers      push: a message per piece, each through the
///   rank <--(node: back)-------- root <--pieces-- servers      node's stages first (BytePS); pull: the reverse
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include "sim/actors/exchanger.hpp"
#include "sim/actors/ps_exchanger.hpp"
#include "sim/actors/ps_transport.hpp"

namespace dtsim::actors {

/// One stage's exchange at the servers: where they are and how its buckets are dealt to them.
struct ServerExchange {
  PsSetup setup;  ///< the servers, the buckets' exchanges, connections and node stages (its workers unused)
  std::vector<std::vector<std::vector<PsPiece>>> pieces;  ///< ps_pieces(setup)
  /// [bucket][exchange]: the servers' sum before the exchange's pull (a bucket's last: the server stream's task)
  std::vector<std::vector<double>> sum_s;
};

/// A place in a data-parallel group's exchange, shared by the ranks of the group on one node.
struct ServerRole {
  /// The group's ranks on the node, the one that pushes and pulls for them (the root) first: with per-node
  /// aggregation (PsSetup::hierarchical) every such rank, else one rank.
  std::vector<int> node;
  int first_root = 0;  ///< the group's first root
  int roots = 1;       ///< the group's roots: the participants whose pushes every sum holds
};

/// The push and pull tasks of every rank of a layout, one SimGrid run.
class ServerRuns {
 public:
  /// `traffic`: per rank, what it sent and received (the layout's client's).
  ServerRuns(RunContext& context, std::vector<run::WorkerTraffic>& traffic) : context_(context), traffic_(traffic) {}

  /// Rank `rank`'s push of bucket `bucket` (task `task` of its program): per exchange its local work, the node's
  /// gradients to the root, the root's pieces to their servers; an exchange before the bucket's last is pulled
  /// here too (its sum, then its pull: the next exchange needs it).
  void push(int rank, int task, int bucket, const ServerRole& role, const ServerExchange& exchange);
  /// Rank `rank`'s pull of bucket `bucket`'s last exchange (task `task`), once every root of its group has pushed.
  void pull(int rank, int task, int bucket, const ServerRole& role, const ServerExchange& exchange);

 private:
  /// What the ranks of one stage's exchange share: the connections of its roots and their node stages.
  struct Shared {
    explicit Shared(const PsSetup& setup)
        : connections(setup.fifo_connections), stages(setup.before_push, setup.after_pull) {}
    Connections connections;
    NodeStageResources stages;
  };
  /// Why ranks meet: the node's gradients are at its root, the group's pushes (of an exchange, or of one piece)
  /// are summed, the node has its sum.
  enum class Meet { gathered, summed, piece_summed, scattered };
  using MeetingKey = std::tuple<Meet, int, int, std::size_t>;  ///< (why, first rank, task, exchange or piece)
  struct Meeting {
    simgrid::s4u::BarrierPtr barrier;
    int arrived = 0;
  };

  void pull_round(int rank, int task, int bucket, std::size_t e, const ServerRole& role, const ServerExchange& exchange,
                  bool sum);
  /// Every piece of exchange `e` of bucket `bucket` pushed (`push`) or pulled by `root`, each on an actor of its own.
  /// Moves `bytes` of a piece between `root` and its server (push: to it; else back), over their connection;
  /// a failed transfer takes the root out.
  void to_server(Shared& links, int root, int server, std::int64_t bytes, bool push);
  void move_pieces(int root, int bucket, std::size_t e, const ServerExchange& exchange, bool push);
  /// In-order connections (BytePS): the last exchange's pieces of bucket `bucket` pushed by `root` (push task
  /// `task`), each pulled as soon as every root of the group has pushed it (ps-lite answers a pull once the key
  /// is summed), in the background: returns once every piece is pushed; the pull task waits for the rest.
  void push_then_pull(int root, int task, int bucket, std::size_t e, const ServerRole& role,
                      const ServerExchange& exchange);
  /// Waits until the `count` ranks meeting for `key` are all there.
  void meet(const MeetingKey& key, std::size_t count);
  Shared& shared(const ServerExchange& exchange);

  RunContext& context_;
  std::vector<run::WorkerTraffic>& traffic_;
  std::map<const ServerExchange*, std::unique_ptr<Shared>> shared_;
  std::map<MeetingKey, Meeting> meetings_;
  /// By (root, bucket): the pulls left in the background by its pushes, oldest first (push_then_pull).
  std::map<std::pair<int, int>, std::deque<simgrid::s4u::SemaphorePtr>> pulling_;
};

/// The actors a root of `node_ranks` ranks runs at most at once in `exchange` besides the walker's: one per piece
/// of a bucket's push and of an earlier bucket's pull (in-order connections: of every bucket's, pulled in the
/// background), and one per rank it sends the node's sum back to.
std::int64_t server_actors(const ServerExchange& exchange, std::size_t node_ranks);

}  // namespace dtsim::actors
