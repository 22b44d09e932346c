#pragma once
/// Horovod tensor fusion (Sergeev & Del Balso 2018; Horovod controller FuseResponses).
#include "sim/scheduling/scheduler.hpp"

namespace dtsim::scheduling {

/// Items fused by one Horovod response: [first, last) of the items in ready order, in the cycle at `cycle_s`.
struct CycleGroup {
  int first = 0;
  int last = 0;
  double cycle_s = 0;
};

/// Horovod's response rule (controller FuseResponses) over items ready at `ready_s` (non-decreasing, from the start
/// of backward) of `bytes` each: at the first cycle k * cycle_s (k >= 1) at or after an item is ready (cycle_s 0:
/// when it is ready), the items ready by then are fused in order into groups of at most `threshold_bytes` (a
/// larger item goes alone; 0: every item alone).
std::vector<CycleGroup> fuse_per_cycle(const std::vector<double>& ready_s, const std::vector<std::int64_t>& bytes,
                                       std::int64_t threshold_bytes, double cycle_s);

/// Horovod's background thread wakes every cycle; the tensors that became ready since the last cycle are
/// fused in ready order into buffers of at most `threshold` bytes (a larger tensor goes alone; threshold 0
/// disables fusion) and each buffer is all-reduced in turn.
///
///   backward  |--l4--|--l3--|--l2--|--l1--|--l0--|
///   cycles    ^      ^      ^      ^      ^      ^      every cycle_time, from the start of backward
///   buffers          [l4]   [l3]          [l2,l1] [l0]
class Fusion final : public Scheduler {
 public:
  Fusion(std::int64_t threshold_bytes, double cycle_s) : threshold_bytes_(threshold_bytes), cycle_s_(cycle_s) {}
  std::string_view name() const override { return "fusion"; }
  std::vector<Bucket> buckets(const SchedulingInput& input) const override;
  /// Horovod's one fusion buffer of the threshold's size, reused by every fused response.
  std::int64_t buffer_bytes(const std::vector<Bucket>&) const override { return threshold_bytes_; }
  std::string buffer_note() const override { return "Horovod's fusion buffer (the threshold)"; }

 private:
  std::int64_t threshold_bytes_;
  double cycle_s_;
};

}  // namespace dtsim::scheduling
