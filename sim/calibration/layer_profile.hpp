#pragma once
/// Compute calibration from a measured per-layer profile (the other calibration, to one measured
/// single-GPU iteration time, is models::layer_times' measured_iteration_s).
#include <string>

#include "models/model.hpp"

namespace dtsim::calibration {

/// `model` with every layer's `measured` times read from `profile_path`: a CSV with the header
/// layer,forward_ms,backward_ms and one row per layer of the model, matched by name in any order (times of
/// one iteration at the batch the scenario uses). Unknown, repeated and missing layer names are
/// core::InputError located "path:line:col".
models::Model with_measured_layers(const models::Model& model, const std::string& profile_path);

}  // namespace dtsim::calibration
