#include "sim/scheduling/no_overlap.hpp"

namespace dtsim::scheduling {

std::vector<Bucket> NoOverlap::buckets(const std::vector<GradientTensor>& tensors) const {
  if (tensors.empty()) return {};
  Bucket all;
  for (int i = static_cast<int>(tensors.size()) - 1; i >= 0; --i) {
    all.tensors.push_back(i);
    all.bytes += tensors[static_cast<std::size_t>(i)].bytes;
  }
  all.ready_layer = 0;
  return {all};
}

}  // namespace dtsim::scheduling
