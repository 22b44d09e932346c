#include "sim/collectives/move_plan.hpp"

namespace dtsim::collectives {

Schedule MovePlan::schedule() const {
  Schedule schedule{ranks, {}};
  schedule.steps.reserve(steps.size());
  for (const MoveStep& step : steps) {
    Step out;
    for (const Move& m : step.moves) {
      bool merged = false;
      for (Transfer& t : out.transfers)
        if (t.from == m.from && t.to == m.to) {
          t.bytes += m.bytes;
          merged = true;
          break;
        }
      if (!merged) out.transfers.push_back({m.from, m.to, m.bytes});
    }
    schedule.steps.push_back(std::move(out));
  }
  return schedule;
}

}  // namespace dtsim::collectives
