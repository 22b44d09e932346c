#include "sim/scheduling/no_overlap.hpp"

namespace dtsim::scheduling {

std::vector<Bucket> NoOverlap::buckets(const SchedulingInput& input) const {
  if (input.tensors.empty()) return {};
  Bucket all;
  for (int i = static_cast<int>(input.tensors.size()) - 1; i >= 0; --i) {
    all.tensors.push_back(i);
    all.bytes += input.tensors[static_cast<std::size_t>(i)].bytes;
  }
  all.ready_layer = 0;
  return {all};
}

}  // namespace dtsim::scheduling
