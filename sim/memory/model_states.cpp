#include "sim/memory/model_states.hpp"

#include "models/fp8_recipe.hpp"

namespace dtsim::memory {

ModelStates model_states(std::int64_t parameters, models::Precision p, models::Precision gradient_dtype,
                         const models::Optimizer& optimizer, std::int64_t fp8_parameters, models::Fp8Recipe recipe) {
  constexpr double fp32 = 4;
  const auto n = static_cast<double>(parameters);
  const double e = element_bytes(p);
  const double master = e < fp32 ? fp32 : 0;
  const double fp8 = p == models::Precision::fp8
                         ? static_cast<double>(fp8_parameters) * models::fp8_weight_copy_bytes(recipe)
                         : 0;
  return {n * e, n * element_bytes(gradient_dtype), n * (master + fp32 * optimizer.state_words), fp8};
}

}  // namespace dtsim::memory
