#include "sim/scheduling/fusion.hpp"

#include <algorithm>
#include <cmath>

namespace dtsim::scheduling {

std::vector<CycleGroup> fuse_per_cycle(const std::vector<double>& ready_s, const std::vector<std::int64_t>& bytes,
                                       std::int64_t threshold_bytes, double cycle_s) {
  std::vector<CycleGroup> out;
  const int n = static_cast<int>(ready_s.size());
  int next = 0;
  while (next < n) {
    // The first cycle at or after the next item is ready (cycles at k * cycle_s, k >= 1, from the start of backward).
    const double ready = ready_s[static_cast<std::size_t>(next)];
    // A cycle time of 0 (HOROVOD_CYCLE_TIME=0): the thread loops without sleeping, a cycle as soon as one is ready.
    const double cycle = cycle_s > 0 ? std::max(ready, std::max(1.0, std::ceil(ready / cycle_s)) * cycle_s) : ready;
    CycleGroup group{next, next, cycle};
    std::int64_t fused = 0;
    while (next < n && ready_s[static_cast<std::size_t>(next)] <= cycle) {  // later ones: next cycle's response
      const std::int64_t b = bytes[static_cast<std::size_t>(next)];
      if (group.last > group.first && fused + b > threshold_bytes) {
        out.push_back(group);
        group = {next, next, cycle};
        fused = 0;
      }
      fused += b;
      group.last = ++next;
    }
    out.push_back(group);
  }
  return out;
}

std::vector<Bucket> Fusion::buckets(const SchedulingInput& input) const {
  // Tensors in backward order: the last registered first.
  std::vector<double> ready;
  std::vector<std::int64_t> bytes;
  for (auto t = input.tensors.rbegin(); t != input.tensors.rend(); ++t) {
    ready.push_back(input.backward_end_s[static_cast<std::size_t>(t->layer)]);
    bytes.push_back(t->bytes);
  }
  const int n = static_cast<int>(input.tensors.size());
  std::vector<Bucket> out;
  for (const CycleGroup& g : fuse_per_cycle(ready, bytes, threshold_bytes_, cycle_s_)) {
    Bucket bucket;
    bucket.not_before_s = g.cycle_s;
    for (int k = g.first; k < g.last; ++k) {
      const int i = n - 1 - k;
      bucket.tensors.push_back(i);
      bucket.bytes += bytes[static_cast<std::size_t>(k)];
      bucket.ready_layer = input.tensors[static_cast<std::size_t>(i)].layer;
    }
    out.push_back(bucket);
  }
  return out;
}

}  // namespace dtsim::scheduling
