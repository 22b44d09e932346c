#pragma once
/// Collective algorithms: each is a pure plan generator plus its closed-form alpha-beta cost.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/collectives/schedule.hpp"

namespace dtsim::collectives {

/// Cost of one point-to-point message of n bytes: alpha_s + n * beta_s_per_byte.
struct AlphaBeta {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
};

/// An all-reduce (or other collective) algorithm.
class Collective {
 public:
  virtual ~Collective() = default;
  /// Registry key, e.g. "ring".
  virtual std::string_view name() const = 0;
  /// The plan for `ranks` ranks each contributing a vector of `bytes` bytes.
  virtual Schedule plan(int ranks, std::int64_t bytes) const = 0;
  /// Closed-form time on a homogeneous, uncongested network with per-message cost `link`.
  virtual double closed_form_s(int ranks, double bytes, AlphaBeta link) const = 0;
};

/// Registry keys of the all-reduce algorithms, in the order `dtsim list collectives` prints them.
std::vector<std::string> collective_names();
/// The algorithm called `name`; throws core::InputError listing the known names.
std::unique_ptr<Collective> make_collective(std::string_view name);

}  // namespace dtsim::collectives
