// Rabenseifner all-reduce (Rabenseifner 2004; Thakur, Rabenseifner & Gropp 2005; MPICH
// allreduce_intra_reduce_scatter_allgather): reduce-scatter by vector halving at distances 1, 2, .., then
// all-gather at distances .., 2, 1, on the vector cut into pof2 near-equal blocks. As in MPICH and SMPI's
// `rab`, the largest halves travel the shortest distance (inside a node first).
//
//   p = 4, blocks A B C D:
//   reduce-scatter dist 1: 0<->1 (0 keeps AB, 1 keeps CD), 2<->3    all-gather dist 2: 0<->2 (A, B), 1<->3
//                  dist 2: 0<->2 (0 keeps A, 2 keeps B), 1<->3                 dist 1: 0<->1 (AB, CD), 2<->3
//
// Non-power-of-two p: Rabenseifner's own fold (Thakur, Rabenseifner & Gropp 2005, sec. 4.4, as SimGrid's
// SMPI `rab` runs it): each folded pair swaps halves, one sends its reduced half to the other (two messages
// in), and the whole vector goes back after (one message out). MPICH's fold sends the whole vector in one
// message instead and is one start-up faster; SMPI's `rab` is the reference the tests cross-check.
// Cost (gamma = 0), derived from the plan:
//   2 lg pof2 alpha + 2 (pof2-1)/pof2 n beta + [p != pof2] (3 alpha + 2 n beta)
// algorithms.md 7.1 quotes MPICH's comment (2 floor(lg p) + 2) alpha + (2 (p-1)/p + 2) n beta for
// non-powers of two; the plan's halving runs over pof2 ranks, so its bandwidth term is 2 (pof2-1)/pof2 n,
// not 2 (p-1)/p n (e.g. p = 7: 1.5 n, not 12/7 n).
#include <cmath>

#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

class Rabenseifner final : public TracedCollective {
 public:
  std::string_view name() const override { return "rabenseifner"; }

  MovePlan moves(const Group& group, std::int64_t bytes) const override {
    DTSIM_CHECK(group.ranks >= 1 && bytes >= 0, "rabenseifner needs ranks and a non-negative size");
    const Fold fold(group.ranks);
    const Block whole{0, bytes};
    const std::vector<Block> everyone(static_cast<std::size_t>(group.ranks), whole);
    const std::vector<Block> blocks = split(whole, fold.pof2);
    PlanBuilder b(group.ranks);
    std::size_t step = fold.fold_in_halves(b, 0, whole);
    step = distance_doubling_reduce_scatter(b, step, fold.members(), blocks);
    step = distance_halving_all_gather(b, step, fold.members(), blocks);
    fold.fold_out(b, step, everyone);
    return std::move(b).finish();
  }

  /// MPICH's all-gather and reduce-scatter by recursive steps (allgather_intra_recursive_doubling.c,
  /// reduce_scatter_intra_recursive_halving.c).
  std::string_view allgather_name() const override { return "recursive_doubling"; }
  std::string_view reduce_scatter_name() const override { return "recursive_halving"; }

  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    const Fold fold(group.ranks);
    const AlphaBeta ab = flat_cost(group, costs);
    const double q = fold.pof2;
    const double core = 2.0 * floor_log2(fold.pof2) * ab.alpha_s + 2.0 * (q - 1) / q * bytes * ab.beta_s_per_byte;
    if (fold.rem == 0) return core;
    const double lower = std::floor(bytes / 2);  // swap: the upper half is the longer; then the lower goes in
    return core + message_s(ab, bytes - lower) + message_s(ab, lower) + message_s(ab, bytes);
  }
};

}  // namespace

std::unique_ptr<Collective> make_rabenseifner() { return std::make_unique<Rabenseifner>(); }

}  // namespace dtsim::collectives
