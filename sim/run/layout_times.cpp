#include "sim/run/layout_times.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/scenario/parallel_section.hpp"

namespace dtsim::run {
namespace {

bool has_measured_layers(const models::Model& m) {
  return std::any_of(m.layers.begin(), m.layers.end(), [](const models::Layer& l) { return l.measured.has_value(); });
}

/// The factor models::layer_times applies to the modelled times to make one GPU's iteration at batch_size last
/// measured_iteration_time (1 without one): (measured iteration - measured layers) / modelled time.
double calibration(const scenario::Scenario& s) {
  if (!s.measured_iteration_s) return 1;
  const models::Optimizer& optimizer = models::optimizer(s.memory.optimizer);
  // Refuses, with its reason, an iteration that cannot be calibrated to.
  (void)models::layer_times(s.model, s.gpu, s.batch_size, s.precision, s.measured_iteration_s, optimizer, 1,
                            s.fp8_recipe);
  const auto times =
      models::layer_times(s.model, s.gpu, s.batch_size, s.precision, std::nullopt, optimizer, 1, s.fp8_recipe);
  double measured_s = 0, modelled_s = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    (s.model.layers[i].measured ? measured_s : modelled_s) += times[i].forward_s + times[i].backward_s;
    modelled_s += times[i].update_s;
  }
  return (*s.measured_iteration_s - measured_s) / modelled_s;
}

}  // namespace

std::vector<models::LayerTime> layout_layer_times(const scenario::Scenario& s) {
  const parallel::Layout l = scenario::layout_of(s);
  std::vector<models::LayerTime> times = models::layer_times(s.model, s.gpu, l.micro_batch, s.precision, std::nullopt,
                                                             models::optimizer(s.memory.optimizer), l.tensor,
                                                             s.fp8_recipe);
  const double scale = calibration(s);
  const double samples = static_cast<double>(l.micro_batch) / s.batch_size;
  for (std::size_t i = 0; i < times.size(); ++i) {
    models::LayerTime& t = times[i];
    t.update_s *= scale;
    const double f = s.model.layers[i].measured ? samples : scale;
    t.forward_s *= f;
    t.backward_s *= f;
  }
  return times;
}

std::string measured_times_rule(const scenario::Scenario& s) {
  const int micro_batch = scenario::layout_of(s).micro_batch;
  if (s.measured_iteration_s)
    return fmt::format("modelled times x {:.4g} (calibrated to the measured iteration at batch {})", calibration(s),
                       s.batch_size);
  if (has_measured_layers(s.model))
    return fmt::format("measured layer times x micro_batch / batch = {} / {} (linear in samples)", micro_batch,
                       s.batch_size);
  return "";
}

}  // namespace dtsim::run
