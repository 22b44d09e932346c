#pragma once
/// Priority scheduling with tensor partitioning and a credit window: ByteScheduler (Peng et al., SOSP'19)
/// and P3 (Jayarajan et al., SysML'19).
#include "sim/scheduling/scheduler.hpp"

namespace dtsim::scheduling {

/// Every tensor is cut into partitions of at most `partition` bytes, each its own all-reduce with the
/// priority of its layer (layers near the input first, since the next forward needs them first). Ready
/// partitions start by priority while the bytes in flight stay within `credit` (one larger partition may
/// still start); transfers in flight are not preempted. The next iteration's forward of layer l starts once
/// layer l's partitions are reduced and its parameters updated, so communication overlaps the next forward.
///
///   backward  |--l2--|--l1--|--l0--|                 forward |-l0-|-l1-|-l2-|
///   comm          [l2a][l2b]   [l1] [l0]...          (l0 first once ready, then l1, l2)
class Priority final : public Scheduler {
 public:
  Priority(std::int64_t partition_bytes, std::int64_t credit_bytes)
      : partition_bytes_(partition_bytes), credit_bytes_(credit_bytes) {}
  std::string_view name() const override { return "priority"; }
  std::vector<Bucket> buckets(const SchedulingInput& input) const override;
  std::int64_t credit_bytes() const override { return credit_bytes_; }

 private:
  std::int64_t partition_bytes_;
  std::int64_t credit_bytes_;
};

}  // namespace dtsim::scheduling
