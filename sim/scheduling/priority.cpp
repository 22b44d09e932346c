#include "sim/scheduling/priority.hpp"

#include <algorithm>

namespace dtsim::scheduling {

std::vector<Bucket> Priority::buckets(const SchedulingInput& input) const {
  std::vector<Bucket> out;
  for (int i = static_cast<int>(input.tensors.size()) - 1; i >= 0; --i) {
    const GradientTensor& t = input.tensors[static_cast<std::size_t>(i)];
    for (std::int64_t offset = 0; offset < t.bytes || offset == 0; offset += partition_bytes_)
      out.push_back({{i}, std::min(partition_bytes_, t.bytes - offset), t.layer, 0.0});
  }
  return out;
}

}  // namespace dtsim::scheduling
