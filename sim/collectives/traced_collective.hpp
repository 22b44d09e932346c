#pragma once
/// A collective whose plan carries its data ranges: replayable on real vectors (tests, numerics mode).
#include "sim/collectives/collective.hpp"
#include "sim/collectives/move_plan.hpp"

namespace dtsim::collectives {

/// Every algorithm of this folder except `ring` (ring_allreduce.cpp) derives from it.
class TracedCollective : public Collective {
 public:
  /// The plan with the bytes each transfer carries.
  virtual MovePlan moves(const Group& group, std::int64_t bytes) const = 0;
  /// moves(...).schedule().
  Schedule plan(const Group& group, std::int64_t bytes) const final { return moves(group, bytes).schedule(); }
};

}  // namespace dtsim::collectives
