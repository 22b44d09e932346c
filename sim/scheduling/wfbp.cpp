#include "sim/scheduling/wfbp.hpp"

namespace dtsim::scheduling {

std::vector<Bucket> Wfbp::buckets(const std::vector<GradientTensor>& tensors) const {
  std::vector<Bucket> out;
  out.reserve(tensors.size());
  for (int i = static_cast<int>(tensors.size()) - 1; i >= 0; --i) {
    const GradientTensor& t = tensors[static_cast<std::size_t>(i)];
    out.push_back({{i}, t.bytes, t.layer});
  }
  return out;
}

}  // namespace dtsim::scheduling
