#pragma once
// A scenario built in code: a synthetic model with measured layer times on a star platform.
#include "models/gpu_profile.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::testing {

/// Layer l has `params[l]` parameters, forward `fwd[l]` and backward `bwd[l]` seconds.
inline scenario::Scenario synthetic(int workers, const std::vector<std::int64_t>& params,
                                    const std::vector<double>& fwd, const std::vector<double>& bwd,
                                    const std::string& scheduler, scenario::Fidelity fidelity) {
  scenario::Scenario s;
  s.source = "test";
  s.platform = star(workers);
  s.model.name = "synthetic";
  for (std::size_t l = 0; l < params.size(); ++l) {
    models::Layer layer;
    layer.name = "layer" + std::to_string(l);
    if (params[l] > 0) layer.tensors.push_back({layer.name + ".weight", {params[l]}});
    layer.measured = models::MeasuredTime{fwd[l], bwd[l]};
    s.model.layers.push_back(layer);
  }
  s.gpu = models::gpu_profile("v100");
  // The closed forms of the tests are the textbook ones: no launch cost, no compute slowdown under overlap
  // (comm_overlap_test.cpp sets them).
  s.gpu.overlap_slowdown = 1;
  s.gpu.collective_launch_s = 0;
  s.workers = workers;
  s.batch_size = 32;
  s.iterations = 3;
  s.scheduler = scheduler;
  s.fidelity = fidelity;
  return s;
}

/// A five-layer model whose communication and compute overlap partially under WFBP.
inline scenario::Scenario five_layers(int workers, const std::string& scheduler, scenario::Fidelity fidelity) {
  return synthetic(workers, {2000000, 0, 500000, 3000000, 1000}, {1e-3, 2e-4, 5e-4, 2e-3, 1e-4},
                   {2e-3, 4e-4, 1e-3, 4e-3, 2e-4}, scheduler, fidelity);
}

/// One worker's compute per iteration (forward + backward + update), no communication.
inline double compute_s(const scenario::Scenario& s) {
  double t = 0;
  for (const auto& l : run::make_iteration_plan(s).layers) t += l.forward_s + l.backward_s + l.update_s;
  return t;
}

}  // namespace dtsim::testing
