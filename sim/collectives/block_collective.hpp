#pragma once
/// Collectives over per-rank blocks of possibly different sizes (sparse gradients need them): all-gather(v),
/// reduce-scatter and gather. Equal blocks are the plain all-gather / reduce-scatter / gather.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/collectives/move_plan.hpp"

namespace dtsim::collectives {

/// Block r (block_bytes[r] bytes, at the sum of the earlier sizes) belongs to rank r. All-gather(v): rank r
/// contributes block r and every rank ends with all blocks. Reduce-scatter: every rank contributes the
/// whole vector and rank r ends with block r reduced. Gather: rank r contributes block r, rank 0 ends with all.
class BlockCollective {
 public:
  virtual ~BlockCollective() = default;
  /// Registry key inside its collective, e.g. "bruck".
  virtual std::string_view name() const = 0;
  /// The plan with the bytes each transfer carries; block_bytes has one entry per rank.
  virtual MovePlan moves(const Group& group, const std::vector<std::int64_t>& block_bytes) const = 0;
  /// moves(...).schedule().
  Schedule plan(const Group& group, const std::vector<std::int64_t>& block_bytes) const {
    return moves(group, block_bytes).schedule();
  }
  /// The plan with its consecutive same-pair steps fused (actors::flow_steps(plan(...), true)), built without the
  /// plan where the algorithm knows it; empty otherwise (a ring's plan holds (p-1) x p transfers, its fused form p).
  virtual std::optional<std::vector<FusedStep>> fused_plan(const Group& /*group*/,
                                                           const std::vector<std::int64_t>& /*block_bytes*/) const {
    return std::nullopt;
  }
  /// schedule_time_s(plan(group, block_bytes), network) without building the plan where the algorithm can; empty
  /// otherwise.
  virtual std::optional<double> plan_time_s(const Group& /*group*/, const std::vector<std::int64_t>& /*block_bytes*/,
                                            const core::PathModel& /*network*/) const {
    return std::nullopt;
  }
  /// Time on an uncongested network; exact for any block sizes (a max-plus recursion where sizes differ).
  virtual double closed_form_s(const Group& group, const std::vector<std::int64_t>& block_bytes,
                               const LinkCosts& costs) const = 0;
};

/// `ranks` near-equal blocks of a vector of `bytes` bytes (chunk_bytes), the sizes of a plain all-gather.
std::vector<std::int64_t> equal_blocks(int ranks, std::int64_t bytes);
/// The sum of `block_bytes` when every block has the same size; empty otherwise.
std::optional<std::int64_t> uniform_blocks_total(const std::vector<std::int64_t>& block_bytes);

/// Registry keys of the all-gather(v) algorithms: ring, recursive_doubling, bruck.
std::vector<std::string> allgatherv_names();
/// The all-gather(v) algorithm `name`; throws core::InputError listing the known names.
std::unique_ptr<BlockCollective> make_allgatherv(std::string_view name);
/// Registry keys of the reduce-scatter algorithms: ring, recursive_halving.
std::vector<std::string> reduce_scatter_names();
/// The reduce-scatter algorithm `name`; throws core::InputError listing the known names.
std::unique_ptr<BlockCollective> make_reduce_scatter(std::string_view name);
/// Registry keys of the gather algorithms: binomial.
std::vector<std::string> gather_names();
/// The gather algorithm `name`; throws core::InputError listing the known names.
std::unique_ptr<BlockCollective> make_gather(std::string_view name);

}  // namespace dtsim::collectives
