#pragma once
/// A plan that also says which bytes of the vector each transfer carries, so it can be replayed on data.
#include <cstdint>
#include <vector>

#include "sim/collectives/schedule.hpp"

namespace dtsim::collectives {

/// What the receiver does with the bytes it gets.
enum class Combine {
  copy,    ///< overwrite its own copy of the range
  reduce,  ///< add into its own copy of the range (reduction cost gamma is not modelled)
};

/// Bytes [offset, offset + bytes) of the vector sent from one rank to another. Offsets index the whole
/// vector (all-reduce, broadcast, reduce, reduce-scatter) or the gathered vector (all-gather(v), gather).
struct Move {
  int from = 0;                     ///< sending rank
  int to = 0;                       ///< receiving rank
  std::int64_t offset = 0;          ///< first byte of the range
  std::int64_t bytes = 0;           ///< length of the range
  Combine combine = Combine::copy;  ///< what the receiver does with it
};

/// Moves that run concurrently; every receiver combines the values its senders held before the step.
struct MoveStep {
  std::vector<Move> moves;
};

/// The whole plan with its data ranges.
struct MovePlan {
  int ranks = 0;                ///< ranks 0 .. ranks-1 take part
  std::vector<MoveStep> steps;  ///< in order
  /// The plan as transfers: consecutive moves of a step between the same two ranks form one message.
  Schedule schedule() const;
};

}  // namespace dtsim::collectives
