#pragma once
/// The bookkeeping of a parameter server: which pushes were applied, which were dropped, and when a worker
/// may pull. Pure: the executors ask it and move the bytes.
#include <vector>

#include "sim/sync/sync_policy.hpp"

namespace dtsim::sync {

/// Synchronous schemes (bsp, local_sgd, post_local_sgd) work in rounds: a worker tags its pushes with the
/// model version it computed on; partition p's round closes when `participants - backup_workers` pushes
/// tagged with the current round were applied; a push tagged with a closed round is dropped; a worker may
/// pull p once the round it pushed for is closed. ssp and asp count applied pushes per participant: a pull
/// for iteration i needs the participant's own push of i and, for ssp, every participant's push of
/// i - staleness.
class PushLedger {
 public:
  PushLedger(int partitions, int participants, SyncPolicy policy);

  /// Records a push of `partition` by `participant`, tagged `tag` (synchronous: model version; ssp/asp: its
  /// iteration). Returns false when the push is dropped.
  bool apply(int partition, int participant, int tag);
  /// True when `participant` may push `partition` now: always, but with pushes in turn (R2SP), where it waits
  /// for the participant before it (skipping retired ones) to have pushed as often, counting one more for
  /// those after it in the ring.
  bool may_push(int partition, int participant) const;
  /// True when `participant` may pull `partition` for the push it tagged `tag`.
  bool may_pull(int partition, int participant, int tag) const;
  /// Iterations the model a participant reads for `partition` after its push of iteration `iteration`
  /// misses from the slowest participant: iteration - (latest iteration every participant pushed). 0 for
  /// synchronous schemes.
  int staleness(int partition, int iteration) const;
  /// `participant` pushes no more (its run ended): staleness bounds stop waiting for it.
  void retire(int participant);
  /// The model version: rounds every partition has closed (synchronous schemes).
  int version() const;
  /// Pushes dropped so far.
  long dropped() const { return dropped_; }

 private:
  bool rounds() const;
  /// Fewest pushes of `partition` among participants still running; -1 when all retired.
  int slowest(int partition) const;

  SyncPolicy policy_;
  int participants_;
  std::vector<int> round_;               ///< synchronous: current round per partition
  std::vector<int> accepted_;            ///< synchronous: pushes accepted into the current round
  std::vector<std::vector<int>> pushed_;  ///< ssp/asp: applied pushes per partition and participant
  std::vector<char> retired_;
  long dropped_ = 0;
};

}  // namespace dtsim::sync
