#include "models/kernel_launch.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace dtsim::models {
namespace {

struct LaunchEntry {
  std::string_view name;
  LaunchMode mode;
  LaunchCosts costs;
};

// The registry: the key is the name scenario files use; the constants are cited in the header.
constexpr LaunchEntry modes[] = {{"eager", LaunchMode::eager, {0.9e-6, 8e-6}},
                                 {"cuda_graphs", LaunchMode::cuda_graphs, {0.5e-6, 0}}};

}  // namespace

LaunchCosts launch_costs(LaunchMode mode) {
  for (const LaunchEntry& e : modes)
    if (e.mode == mode) return e.costs;
  DTSIM_CHECK(false, "unknown LaunchMode value");
  return {};
}

std::vector<std::string> launch_mode_names() {
  std::vector<std::string> names;
  for (const LaunchEntry& e : modes) names.emplace_back(e.name);
  return names;
}

LaunchMode parse_launch_mode(std::string_view name) {
  for (const LaunchEntry& e : modes)
    if (e.name == name) return e.mode;
  throw core::unknown_name("launch mode", name, launch_mode_names());
}

double KernelStream::issue(int kernels, double work_s) {
  const double before = gpu_s_;
  for (int i = 0; i < kernels; ++i) {
    cpu_s_ += costs_.dispatch_s;
    gpu_s_ = std::max(gpu_s_, cpu_s_) + work_s / kernels + costs_.gap_s;
  }
  return gpu_s_ - before;
}

}  // namespace dtsim::models
