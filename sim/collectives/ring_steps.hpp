#pragma once
/// The steps of one ring timed as schedule_time_s times them, without the plan: step by step in O(q) memory, or
/// in closed form in O(q) time where the ring's costliest hops stand apart (a fat tree's or two-level cluster's
/// node boundaries).
///
///   place:   0 -> 1 -> 2 -> 3 => 4 -> 5 -> 6 -> 7 => 0      (=>: a costlier hop, here between nodes of 4)
///   step s:  the larger chunks leave places offset+s .. offset+s+large_places-1 and travel on with the ring
///
/// The recurrence is max-plus: a hop ends at max(ready of its two places) + its cost, a place is ready when
/// both its hops end. Unrolled, the plan's time is the costliest walk over `steps` steps on the ring's hops
/// that moves to a neighbouring hop or stays each step; staying on the costliest hop is the answer when no
/// other hop, even with a larger chunk, comes close (ring_steps_closed_form_s).
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/collectives/schedule_time.hpp"

namespace dtsim::collectives {

/// What travels round a ring of q places: in step s (0 .. steps-1) place r sends to place r+1 (mod q) over its
/// hop `large_bytes` when (r - offset - s) mod q < large_places, `small_bytes` otherwise. A ring all-reduce of n
/// bytes: 2(q-1) steps of n/q bytes, the n mod q larger chunks by one byte, offset 0 (RingAllreduce) or 1
/// (ring_reduce_scatter then ring_all_gather, which send the chunk one place behind).
struct RingSteps {
  int steps = 0;                  ///< how many steps
  std::int64_t small_bytes = 0;   ///< a chunk
  std::int64_t large_bytes = 0;   ///< a larger chunk
  int large_places = 0;           ///< how many places send a larger chunk in a step, 0 .. q-1
  int offset = 0;                 ///< the first of them in step 0
};

/// The steps from `ready` (one time per place, updated in place), step by step: O(q steps) time, O(q) memory.
/// hops[r]: the cost of place r's hop to r+1 (schedule_time_s's latency and bandwidth share).
void ring_steps_replay(const std::vector<TransferCost>& hops, const RingSteps& ring, std::vector<double>& ready);

/// When the last place is done, every place ready at 0, in closed form in O(q): steps x the costliest hop when
/// no chunk is larger; steps x (the hop's cost with the larger chunk) when every hop costs the same (a walk
/// moving on with the larger chunks); and where the costliest hops (cost A with the smaller chunk, the same
/// larger-chunk surcharge d) are pairwise non-adjacent and every other hop, even with the larger chunk, costs at
/// least (3 + B - C) d less than A: steps A + C d, C the most steps the larger chunks cross one costliest hop
/// (the walk staying on it), B the most values w mod q < large_places among `steps` consecutive integers. Empty
/// otherwise. Why: a walk's cost is at most steps A + d (covered steps on costliest hops) - gap (steps off them);
/// lifted to the integers, w = hop - offset - s falls by 0, 1 or 2 a step, by 2 only next to a step off, and
/// repeats on costliest hops only across steps off, so the covered steps number at most B + 3 (steps off).
std::optional<double> ring_steps_closed_form_s(const std::vector<TransferCost>& hops, const RingSteps& ring);

/// When the last place is done, every place ready at 0: the closed form where it holds, else the replay.
double ring_steps_time_s(const std::vector<TransferCost>& hops, const RingSteps& ring);

}  // namespace dtsim::collectives
