#include <algorithm>

#include "sim/parallel/pipeline_schedule.hpp"

namespace dtsim::parallel {

std::vector<Pass> one_f_one_b(int stage, int stages, int micro_batches, int /*chunks*/) {
  const int warmup = std::min(stages - stage - 1, micro_batches);
  std::vector<Pass> passes;
  for (int j = 0; j < warmup; ++j) passes.push_back({true, j, 0});
  for (int j = 0; j < micro_batches - warmup; ++j) {
    passes.push_back({true, warmup + j, 0});
    passes.push_back({false, j, 0});
  }
  for (int j = micro_batches - warmup; j < micro_batches; ++j) passes.push_back({false, j, 0});
  return passes;
}

}  // namespace dtsim::parallel
