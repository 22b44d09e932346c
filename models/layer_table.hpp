#pragma once
/// User layer tables from CSV: one row per layer, parameters plus either FLOPs or measured times.
#include <string>

#include "models/model.hpp"

namespace dtsim::models {

/// Reads a CSV layer table. Header (any order, extra columns refused):
///   name,parameters,forward_flops            (roofline timing, flops per sample)
///   name,parameters,forward_ms,backward_ms   (measured per-iteration times)
/// Errors are core::InputError located "path:line:col".
Model read_layer_table_csv(const std::string& path);

}  // namespace dtsim::models
