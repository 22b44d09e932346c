#include "sim/collectives/move_plan.hpp"

namespace dtsim::collectives {

Schedule MovePlan::schedule() const {
  Schedule schedule{ranks, {}};
  schedule.steps.reserve(steps.size());
  for (const MoveStep& step : steps) {
    Step out;
    for (const Move& m : step.moves) {
      if (!out.transfers.empty() && out.transfers.back().from == m.from && out.transfers.back().to == m.to)
        out.transfers.back().bytes += m.bytes;
      else
        out.transfers.push_back({m.from, m.to, m.bytes});
    }
    schedule.steps.push_back(std::move(out));
  }
  return schedule;
}

}  // namespace dtsim::collectives
