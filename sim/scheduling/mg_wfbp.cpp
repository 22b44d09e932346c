#include "sim/scheduling/mg_wfbp.hpp"

#include <algorithm>

namespace dtsim::scheduling {

std::vector<Bucket> MgWfbp::buckets(const SchedulingInput& input) const {
  std::vector<Bucket> out;
  double previous_end = 0;  // end of the last closed group's all-reduce
  Bucket group;
  for (int i = static_cast<int>(input.tensors.size()) - 1; i >= 0; --i) {
    const GradientTensor& t = input.tensors[static_cast<std::size_t>(i)];
    const double ready = input.backward_end_s[static_cast<std::size_t>(t.layer)];
    if (!group.tensors.empty()) {
      const double taoc = std::max(previous_end, input.ready_s(group));
      const double tc = input.allreduce_s(static_cast<double>(group.bytes));
      if (ready - taoc >= std::min(input.allreduce.alpha_s, tc)) {
        previous_end = taoc + tc;
        out.push_back(group);
        group = Bucket{};
      }
    }
    group.tensors.push_back(i);
    group.bytes += t.bytes;
    group.ready_layer = t.layer;
  }
  if (!group.tensors.empty()) out.push_back(group);
  return out;
}

}  // namespace dtsim::scheduling
