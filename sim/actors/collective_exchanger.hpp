#pragma once
/// The all-reduce architecture: every bucket is one or more collectives among the iteration's participants (every
/// worker, or a scheme's sample), executed step by step (message level) or as fused flows (flow level).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <simgrid/s4u/Barrier.hpp>

#include "sim/actors/exchanger.hpp"
#include "sim/actors/rank_steps.hpp"

namespace dtsim::actors {

/// One collective of a bucket as flows split by rank (rank_steps.hpp), shared by buckets of the same size.
struct ExchangeFlows {
  double before_s = 0;      ///< local work before it (PowerSGD's orthogonalisation)
  std::int64_t bytes = 0;   ///< its size: the vector, or each rank's block
  std::shared_ptr<const std::vector<std::vector<RankStep>>> flows;
};

/// Per bucket, its collectives in order.
using BucketFlows = std::vector<std::vector<ExchangeFlows>>;

/// An iteration's bucket flows and how many workers run them (its participants, sync::Scheme::participants).
struct IterationFlows {
  const BucketFlows* buckets = nullptr;
  int participants = 0;
};

/// The flows of each iteration: the same throughout, or a sample's from round to round (FedAvg).
using FlowsOf = std::function<IterationFlows(int iteration)>;

class CollectiveExchanger : public Exchanger {
 public:
  /// `fuse`: the flow level (after each collective the ranks wait for each other: fused flows finish at
  /// different times on different ranks, where a real collective's step dependencies keep them within a step).
  /// `concurrent`: buckets may run at the same time (priority scheduling), so their messages get channels.
  CollectiveExchanger(RunContext& context, FlowsOf flows, int iterations, bool fuse, bool concurrent);

  bool begin_iteration(int rank, int iteration) override;
  void exchange(int rank, int iteration, std::size_t bucket) override;

 private:
  RunContext& context_;
  FlowsOf flows_;
  int iterations_;
  bool fuse_;
  bool concurrent_;
  std::map<std::tuple<int, std::size_t, std::size_t>, simgrid::s4u::BarrierPtr> barriers_;
};

}  // namespace dtsim::actors
