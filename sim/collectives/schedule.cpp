#include "sim/collectives/schedule.hpp"

namespace dtsim::collectives {

std::int64_t Schedule::total_bytes() const {
  std::int64_t total = 0;
  for (const Step& step : steps)
    for (const Transfer& t : step.transfers) total += t.bytes;
  return total;
}

}  // namespace dtsim::collectives
