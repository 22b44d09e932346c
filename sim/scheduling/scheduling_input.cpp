#include "sim/scheduling/scheduling_input.hpp"

#include <algorithm>

namespace dtsim::scheduling {

double SchedulingInput::ready_s(const Bucket& b) const {
  return std::max(backward_end_s[static_cast<std::size_t>(b.ready_layer)], b.not_before_s);
}

double fifo_comm_end_s(const std::vector<Bucket>& buckets, const SchedulingInput& input) {
  double end = 0;
  for (const Bucket& b : buckets) end = std::max(end, input.ready_s(b)) + input.allreduce_s(static_cast<double>(b.bytes));
  return end;
}

}  // namespace dtsim::scheduling
