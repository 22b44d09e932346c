#include "sim/scheduling/wfbp.hpp"

namespace dtsim::scheduling {

std::vector<Bucket> Wfbp::buckets(const SchedulingInput& input) const {
  std::vector<Bucket> out;
  out.reserve(input.tensors.size());
  for (int i = static_cast<int>(input.tensors.size()) - 1; i >= 0; --i) {
    const GradientTensor& t = input.tensors[static_cast<std::size_t>(i)];
    out.push_back({{i}, t.bytes, t.layer, 0.0});
  }
  return out;
}

}  // namespace dtsim::scheduling
