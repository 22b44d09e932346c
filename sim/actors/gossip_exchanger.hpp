#pragma once
/// The gossip architecture: no server, no global model. D-PSGD (Lian et al. 2017, sync bsp or local SGD):
/// every worker sends each bucket of its model to its neighbours and waits for theirs before mixing. SGP
/// (Assran et al. 2019, sync asp): push-sum to one peer of the directed exponential graph per iteration,
/// never waiting for incoming messages.
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "sim/actors/condition.hpp"
#include "sim/actors/exchanger.hpp"
#include "sim/sync/gossip_graph.hpp"

namespace dtsim::actors {

/// Everything the gossip simulation needs.
struct GossipSetup {
  sync::GossipGraph graph;
  bool push_sum = false;                               ///< SGP instead of D-PSGD
  std::vector<std::vector<std::int64_t>> bucket_bytes;  ///< per bucket, the bytes of each exchange
  std::vector<std::vector<double>> before_s;            ///< per bucket, local work before each exchange
  int iterations = 1;
};

/// Host pairs a gossip run uses.
std::vector<std::pair<int, int>> gossip_pairs(const GossipSetup& setup);

class GossipExchanger : public Exchanger {
 public:
  GossipExchanger(RunContext& context, const GossipSetup& setup);

  bool begin_iteration(int rank, int iteration) override;
  void exchange(int rank, int iteration, std::size_t bucket) override;
  /// Neighbours stop waiting for a worker that is out.
  void worker_failed(int rank) override;
  /// Gossip goes on while any worker is left.
  bool survives(const std::vector<int>& out) const override;

 private:
  void send(int from, int to, std::int64_t bytes);

  RunContext& context_;
  const GossipSetup& setup_;
  long started_ = 0;  ///< SGP: worker-iterations started
  std::map<std::tuple<int, int, std::size_t, std::size_t>, std::vector<int>> arrived_;  ///< senders per (rank, iteration, bucket, exchange)
  std::vector<char> out_;      ///< workers out of the run
  std::vector<char> running_;  ///< SGP: inside a granted iteration
  Condition arrival_;
};

}  // namespace dtsim::actors
