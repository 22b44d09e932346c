#pragma once
/// Bytes each rank sends and receives in a plan.
#include <cstdint>
#include <vector>

#include "sim/collectives/schedule.hpp"

namespace dtsim::collectives {

/// Bytes one rank puts on and takes off the network.
struct RankTraffic {
  std::int64_t sent = 0;
  std::int64_t received = 0;
};

/// Per-rank totals over all steps of `schedule`, indexed by rank.
std::vector<RankTraffic> traffic_by_rank(const Schedule& schedule);

}  // namespace dtsim::collectives
