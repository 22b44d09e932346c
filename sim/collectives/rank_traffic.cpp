#include "sim/collectives/rank_traffic.hpp"

namespace dtsim::collectives {

std::vector<RankTraffic> traffic_by_rank(const Schedule& schedule) {
  std::vector<RankTraffic> traffic(static_cast<std::size_t>(schedule.ranks));
  for (const Step& step : schedule.steps)
    for (const Transfer& t : step.transfers) {  // a switch endpoint is no rank
      if (!is_switch(t.from)) traffic[static_cast<std::size_t>(t.from)].sent += t.bytes;
      if (!is_switch(t.to)) traffic[static_cast<std::size_t>(t.to)].received += t.bytes;
    }
  return traffic;
}

}  // namespace dtsim::collectives
