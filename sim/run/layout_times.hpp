#pragma once
/// The per-layer compute times a parallel layout's workload runs (parallel::WorkloadInput::times): one micro-batch
/// on one whole GPU, with measured times carried over from the batch they were measured at.
#include <string>
#include <vector>

#include "models/gpu_profile.hpp"
#include "sim/scenario/scenario.hpp"

namespace dtsim::run {

/// The modelled times (models::layer_times: roofline or waves at the micro-batch, tensor-parallel GEMMs timed at
/// one rank's share). Measured times hold for one whole GPU at batch_size: a measured layer's forward and backward
/// are scaled by micro_batch / batch_size (compute linear in samples; a tensor-parallel rank then takes 1 / tensor
/// of a split layer's time, as of a modelled one), and a measured single-GPU iteration (measured_iteration_time)
/// calibrates the modelled times by the factor that makes one GPU's iteration at batch_size equal it.
std::vector<models::LayerTime> layout_layer_times(const scenario::Scenario& s);

/// That rule in words, with its numbers, for the run's description; empty when nothing was measured.
std::string measured_times_rule(const scenario::Scenario& s);

}  // namespace dtsim::run
