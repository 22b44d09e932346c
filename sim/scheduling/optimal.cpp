#include "sim/scheduling/optimal.hpp"

#include <limits>

namespace dtsim::scheduling {

std::vector<Bucket> Optimal::buckets(const SchedulingInput& input) const {
  const int n = static_cast<int>(input.tensors.size());
  // Item k is the k-th gradient in backward order: tensor n-1-k.
  auto tensor = [&](int k) -> const GradientTensor& { return input.tensors[static_cast<std::size_t>(n - 1 - k)]; };
  std::vector<double> best(static_cast<std::size_t>(n) + 1, std::numeric_limits<double>::infinity());
  std::vector<int> cut(static_cast<std::size_t>(n) + 1, 0);
  best[0] = 0;
  for (int j = 1; j <= n; ++j) {
    const double ready = input.backward_end_s[static_cast<std::size_t>(tensor(j - 1).layer)];
    double bytes = 0;
    for (int i = j - 1; i >= 0; --i) {
      bytes += static_cast<double>(tensor(i).bytes);
      const double end = std::max(best[static_cast<std::size_t>(i)], ready) + input.allreduce_s(bytes);
      if (end < best[static_cast<std::size_t>(j)]) {
        best[static_cast<std::size_t>(j)] = end;
        cut[static_cast<std::size_t>(j)] = i;
      }
    }
  }
  std::vector<Bucket> out;
  for (int j = n; j > 0; j = cut[static_cast<std::size_t>(j)]) {
    Bucket b;
    for (int k = cut[static_cast<std::size_t>(j)]; k < j; ++k) {
      b.tensors.push_back(n - 1 - k);
      b.bytes += tensor(k).bytes;
      b.ready_layer = tensor(k).layer;
    }
    out.insert(out.begin(), b);
  }
  return out;
}

}  // namespace dtsim::scheduling
