#pragma once
/// The parameter-server architecture (Li et al. 2014; BytePS: Jiang et al. 2020): workers push each bucket's
/// partitions to the servers holding them, the servers sum the pushes one at a time, and workers pull the
/// aggregate when their synchronisation scheme allows (sync/push_ledger.hpp).
///
///   worker 0 --push--> server 0 (sum) --pull--> worker 0      BytePS (hierarchical): the GPUs of a node first
///   worker 1 --push--> server 1 (sum) --pull--> worker 1      send to the node's first GPU, which pushes and
///        ... partitions dealt round-robin ...                  pulls for the node, then sends back
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <simgrid/s4u/Semaphore.hpp>

#include "sim/actors/condition.hpp"
#include "sim/actors/exchanger.hpp"
#include "sim/actors/ps_transport.hpp"
#include "sim/sync/push_ledger.hpp"
#include "sim/sync/sync_policy.hpp"

namespace dtsim::actors {

/// One exchange of a bucket (PowerSGD has two): local work first, then push and pull.
struct PsExchange {
  double before_s = 0;
  std::int64_t push_bytes = 0;
  std::int64_t pull_bytes = 0;
};

/// Server of partition `part` of flat exchange `exchange` (exchanges numbered across buckets in bucket order)
/// among `servers`; empty: round-robin (sync::partition_buckets).
using AssignServer = std::function<int(std::size_t exchange, std::int64_t part, int servers)>;

/// True when participant `participant` skips its upload in iteration `iteration` (LAG); empty: never.
using SkipUpload = std::function<bool(int participant, int iteration)>;

/// Everything the parameter server's simulation needs.
struct PsSetup {
  std::vector<int> server_hosts;          ///< host of server s
  std::optional<double> summation_Bps;    ///< none: summation is free
  bool hierarchical = false;
  int gpus_per_node = 1;
  std::int64_t credit_bytes = 0;          ///< 0: a worker pushes every ready partition at once
  std::int64_t partition_bytes = 0;       ///< sync::partition_buckets
  AssignServer assign;                    ///< empty: round-robin
  /// A worker hands a bucket's partitions to its push queue and goes on (BytePS: the PUSH queue takes every ready
  /// partition, ps-lite pushes asynchronously); false: it waits until they have left (MXNet kvstore).
  bool queued_pushes = false;
  /// true: each direction of a (host, host) pair is one connection that carries its messages one after another in
  /// the order they were sent (ps-lite's ZeroMQ van: one socket per worker and server); false: each its own flow.
  bool fifo_connections = false;
  /// Per-node stages of every partition (hierarchical only): empty, the node's other GPUs send their gradient to
  /// its first and get the aggregate back (ps's per-node aggregation); else no GPU-to-GPU transfer, the stages.
  std::vector<NodeStage> before_push, after_pull;
  std::vector<std::vector<PsExchange>> buckets;
  std::vector<int> bucket_layers;         ///< ready layer of each bucket (push priority: lowest first)
  sync::SyncPolicy sync;
  int workers = 1;
  int iterations = 1;
  SkipUpload skip;                        ///< LAG: the server reuses the skipped participant's last gradient
};

/// One piece of a bucket's exchange, held by one server.
struct PsPiece {
  int id = 0;  ///< ledger partition: pieces are numbered across buckets and exchanges
  int server = 0;
  std::int64_t push_bytes = 0;
  std::int64_t pull_bytes = 0;
};

/// pieces[b][e]: the pieces of exchange e of bucket b (sync::partition_buckets over the push sizes; each pull
/// split like its push).
std::vector<std::vector<std::vector<PsPiece>>> ps_pieces(const PsSetup& setup);

/// Host pairs a parameter-server run uses (routes to build).
std::vector<std::pair<int, int>> ps_pairs(const PsSetup& setup);

class PsExchanger : public Exchanger {
 public:
  PsExchanger(RunContext& context, const PsSetup& setup);

  bool begin_iteration(int rank, int iteration) override;
  /// Returns once the bucket's pushes have left (its last exchange's pull goes on in the background, as in
  /// MXNet and BytePS, which pull while later buckets push); with a credit, once they are queued.
  void exchange(int rank, int iteration, std::size_t bucket) override;
  void finish_iteration(int rank, int iteration) override;
  bool dropped(int rank, int iteration) const override;
  bool skipped(int rank, int iteration) const override;
  /// The worker's node leaves with it (per-node aggregation); staleness bounds stop waiting for it.
  void worker_failed(int rank) override;
  /// Rounds go on while a quorum of participants is left; asynchronous schemes while any is.
  bool survives(const std::vector<int>& out) const override;

 private:
  using Piece = PsPiece;
  struct Push {
    int piece = 0;
    int participant = 0;
    int tag = 0;
    int iteration = 0;
    std::int64_t bytes = 0;
  };
  struct Server {
    std::deque<Push> queue;
    simgrid::s4u::SemaphorePtr pending = simgrid::s4u::Semaphore::create(0);
  };
  struct Credit {
    std::int64_t in_flight = 0;
    std::set<std::tuple<int, long, simgrid::s4u::Semaphore*>> waiting;  ///< (layer, arrival, wake-up)
    long arrivals = 0;
  };

  /// Node stages replace the per-node transfers.
  bool staged() const { return !setup_.before_push.empty() || !setup_.after_pull.empty(); }
  int participant_of(int rank) const;
  int root_of(int participant) const;
  std::vector<int> members_of(int participant) const;
  void serve(int server);
  void push_and_pull(int participant, int iteration, const Piece& piece, int layer,
                     simgrid::s4u::Semaphore& pushed);
  void acquire_credit(int participant, int layer, std::int64_t bytes);
  void release_credit(int participant, std::int64_t bytes);
  /// A participant's exchange e of a bucket: gather the node, push and pull every piece, send back.
  void run_task(int participant, int iteration, std::size_t bucket, std::size_t e);
  using TaskKey = std::tuple<int, int, std::size_t, std::size_t>;  ///< (participant, iteration, bucket, exchange)
  struct Task {
    int gathered = 0;     ///< node members whose gradient reached the root
    bool pushed = false;  ///< every piece pushed
  };

  RunContext& context_;
  const PsSetup& setup_;
  std::vector<std::vector<std::vector<Piece>>> pieces_;  ///< [bucket][exchange]
  int participants_ = 0;
  sync::PushLedger ledger_;
  std::vector<Server> servers_;
  std::vector<Credit> credits_;
  Connections connections_;  ///< to and from the servers
  NodeStageResources stages_;
  std::vector<int> tag_;                          ///< per participant: model version it computes on
  std::map<std::pair<int, int>, bool> granted_;   ///< (participant, iteration) -> run it
  long started_ = 0;                              ///< asynchronous budget: worker-iterations started
  std::set<int> running_;                         ///< asynchronous: participants inside a granted iteration
  std::map<std::pair<int, int>, int> dropped_;    ///< pieces dropped per (participant, iteration)
  int pieces_per_iteration_ = 0;
  std::vector<Condition> piece_changed_;  ///< per ledger partition
  std::map<TaskKey, Task> tasks_;
  std::set<TaskKey> done_;
  std::vector<int> outstanding_;  ///< per rank: exchanges of this iteration not yet back
  Condition task_changed_;
};

}  // namespace dtsim::actors
