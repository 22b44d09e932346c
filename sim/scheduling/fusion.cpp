#include "sim/scheduling/fusion.hpp"

#include <algorithm>
#include <cmath>

namespace dtsim::scheduling {

std::vector<Bucket> Fusion::buckets(const SchedulingInput& input) const {
  std::vector<Bucket> out;
  int next = static_cast<int>(input.tensors.size()) - 1;  // next tensor in backward order
  while (next >= 0) {
    const double ready = input.backward_end_s[static_cast<std::size_t>(input.tensors[static_cast<std::size_t>(next)].layer)];
    // The first cycle at or after `ready` (cycles at k * cycle_s, k >= 1, from the start of backward).
    const double cycle = std::max(ready, std::max(1.0, std::ceil(ready / cycle_s_)) * cycle_s_);
    Bucket bucket;
    bucket.not_before_s = cycle;
    while (next >= 0) {
      const GradientTensor& t = input.tensors[static_cast<std::size_t>(next)];
      if (input.backward_end_s[static_cast<std::size_t>(t.layer)] > cycle) break;  // next cycle's response list
      if (!bucket.tensors.empty() && bucket.bytes + t.bytes > threshold_bytes_) {
        out.push_back(bucket);
        bucket = Bucket{};
        bucket.not_before_s = cycle;
      }
      bucket.tensors.push_back(next);
      bucket.bytes += t.bytes;
      bucket.ready_layer = t.layer;
      --next;
    }
    out.push_back(bucket);
  }
  return out;
}

}  // namespace dtsim::scheduling
