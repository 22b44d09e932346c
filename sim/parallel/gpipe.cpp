#include "sim/parallel/pipeline_schedule.hpp"

namespace dtsim::parallel {

std::vector<Pass> gpipe(int /*stage*/, int /*stages*/, int micro_batches, int /*chunks*/) {
  std::vector<Pass> passes;
  for (int j = 0; j < micro_batches; ++j) passes.push_back({true, j, 0});
  for (int j = micro_batches; j-- > 0;) passes.push_back({false, j, 0});
  return passes;
}

}  // namespace dtsim::parallel
