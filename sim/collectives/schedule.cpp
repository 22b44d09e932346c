#include "sim/collectives/schedule.hpp"

#include "sim/core/error.hpp"

namespace dtsim::collectives {

std::int64_t Schedule::total_bytes() const {
  std::int64_t total = 0;
  for (const Step& step : steps)
    for (const Transfer& t : step.transfers) total += t.bytes;
  return total;
}

Schedule on_hosts(const Schedule& plan, const std::vector<int>& hosts, int ranks) {
  DTSIM_CHECK(plan.ranks == static_cast<int>(hosts.size()), "one host per rank of the plan");
  Schedule out{ranks, plan.steps};
  for (Step& step : out.steps)
    for (Transfer& t : step.transfers) {
      t.from = hosts[static_cast<std::size_t>(t.from)];
      t.to = hosts[static_cast<std::size_t>(t.to)];
    }
  return out;
}

}  // namespace dtsim::collectives
