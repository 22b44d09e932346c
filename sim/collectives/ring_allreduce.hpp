#pragma once
/// Ring all-reduce (Patarasuk & Yuan 2009): ring reduce-scatter then ring all-gather, 2(p-1) steps.
#include "sim/collectives/collective.hpp"

namespace dtsim::collectives {

/// Rank r sends to r+1 (mod p). The vector is cut into p chunks whose sizes differ by at most one byte;
/// in reduce-scatter step s rank r sends chunk (r - s) mod p, in all-gather step s chunk (r + 1 - s) mod p.
///
///   step 0..p-2 (reduce-scatter)     step p-1..2p-3 (all-gather)
///   0 -> 1 -> 2 -> ... -> p-1 -> 0   same ring, reduced chunks
///
/// Cost: 2(p-1) alpha + 2(p-1)/p n beta, with the inter-node alpha and beta once the ring spans nodes (every
/// step then has a transfer crossing a node boundary).
class RingAllreduce final : public Collective {
 public:
  std::string_view name() const override { return "ring"; }
  Schedule plan(const Group& group, std::int64_t bytes) const override;
  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override;
};

}  // namespace dtsim::collectives
