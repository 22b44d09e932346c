#include "sim/memory/model_states.hpp"

namespace dtsim::memory {

ModelStates model_states(std::int64_t parameters, models::Precision p, models::Precision gradient_dtype,
                         const models::Optimizer& optimizer) {
  constexpr double fp32 = 4;
  const auto n = static_cast<double>(parameters);
  const double e = element_bytes(p);
  const double master = e < fp32 ? fp32 : 0;
  return {n * e, n * element_bytes(gradient_dtype), n * (master + fp32 * optimizer.state_words)};
}

}  // namespace dtsim::memory
