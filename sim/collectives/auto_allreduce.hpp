#pragma once
/// `mpich_auto`: picks an all-reduce by message size and scale, as MPICH's selector does (MPICH allreduce
/// selector, via SimGrid's copy), among dtsim's textbook algorithms. (`auto` is NCCL's choice: nccl_allreduce.hpp.)
///
/// Rule, for n bytes over p ranks (pof2 = largest power of two <= p), on the network it is tuned for:
///   1. n <= 2 KiB or n < pof2 (fewer bytes than Rabenseifner's blocks): recursive_doubling (MPICH short).
///   2. otherwise the smallest closed form among rabenseifner (MPICH long), ring, double_binary_tree (NCCL's
///      tree) and, when the group is whole nodes with several ranks on several nodes, hierarchical; ties go
///      to the earlier one in that list.
#include <string>

#include "sim/collectives/collective.hpp"

namespace dtsim::collectives {

/// Delegates every call to the algorithm the rule above picks.
class AutoAllreduce final : public Collective {
 public:
  /// `tuned_for`: the network the choice (and the trees' segment counts) are made for.
  explicit AutoAllreduce(const LinkCosts& tuned_for) : tuned_for_(tuned_for) {}
  std::string_view name() const override { return "mpich_auto"; }
  /// Registry key of the algorithm used for `bytes` bytes over `group` (for `dtsim collective`).
  std::string chosen(const Group& group, double bytes) const;
  Schedule plan(const Group& group, std::int64_t bytes) const override;
  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override;

 private:
  LinkCosts tuned_for_;
};

}  // namespace dtsim::collectives
