#include <algorithm>

#include "sim/parallel/pipeline_schedule.hpp"

namespace dtsim::parallel {

std::vector<Pass> interleaved_1f1b(int stage, int stages, int micro_batches, int chunks) {
  // Megatron-LM (megatron/core/pipeline_parallel/schedules.py): virtual micro-batch k runs chunk
  // (k mod (stages x chunks)) / stages, forward in increasing and backward in decreasing chunk order, and
  // micro-batch (k / (stages x chunks)) x stages + k mod stages.
  const int total = micro_batches * chunks;
  const int group = stages * chunks;
  auto pass = [&](bool forward, int k) {
    const int in_group = (k % group) / stages;
    return Pass{forward, (k / group) * stages + k % stages, forward ? in_group : chunks - 1 - in_group};
  };
  // Warm-up: all passes when there are exactly as many micro-batches as stages.
  const int warmup =
      micro_batches == stages ? total : std::min((stages - stage - 1) * 2 + (chunks - 1) * stages, total);
  std::vector<Pass> passes;
  for (int k = 0; k < warmup; ++k) passes.push_back(pass(true, k));
  for (int k = 0; k < total - warmup; ++k) {
    passes.push_back(pass(true, warmup + k));
    passes.push_back(pass(false, k));
  }
  for (int k = total - warmup; k < total; ++k) passes.push_back(pass(false, k));
  return passes;
}

}  // namespace dtsim::parallel
