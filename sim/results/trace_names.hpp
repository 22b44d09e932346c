#pragma once
/// Names of timeline events, shared by every executor so traces from all levels look the same.
#include <string>

#include "sim/scheduling/iteration_plan.hpp"

namespace dtsim::run {

inline std::string forward_event(const scheduling::LayerPhase& layer) { return "forward " + layer.name; }
inline std::string backward_event(const scheduling::LayerPhase& layer) { return "backward " + layer.name; }
inline std::string bucket_event(int bucket) { return "exchange bucket " + std::to_string(bucket); }
inline std::string sum_event(int bucket) { return "sum bucket " + std::to_string(bucket); }
inline std::string pull_event(int bucket) { return "pull bucket " + std::to_string(bucket); }
inline std::string compress_event(int bucket) { return "compress bucket " + std::to_string(bucket); }
inline std::string decompress_event(int bucket) { return "decompress bucket " + std::to_string(bucket); }
/// The framework's work before a bucket's exchange (negotiation, copies in) and after it (copies out).
inline std::string framework_before_event(int bucket) { return "framework before bucket " + std::to_string(bucket); }
inline std::string framework_after_event(int bucket) { return "framework after bucket " + std::to_string(bucket); }

}  // namespace dtsim::run
