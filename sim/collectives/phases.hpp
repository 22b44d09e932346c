#pragma once
/// Building blocks shared by several algorithms: ranges of the vector, MPICH's non-power-of-two fold, and
/// the ring, recursive halving/doubling and binomial phases (Thakur, Rabenseifner & Gropp 2005).
#include <cstdint>
#include <vector>

#include "sim/collectives/collective.hpp"
#include "sim/collectives/move_plan.hpp"

namespace dtsim::collectives {

/// Bytes [offset, offset + bytes) of a vector.
struct Block {
  std::int64_t offset = 0;  ///< first byte
  std::int64_t bytes = 0;   ///< length
};

/// `whole` cut into `parts` near-equal consecutive blocks (chunk_bytes).
std::vector<Block> split(Block whole, int parts);
/// Consecutive blocks of the given sizes starting at offset 0.
std::vector<Block> consecutive(const std::vector<std::int64_t>& sizes);
/// The block spanning blocks[first .. last).
Block span(const std::vector<Block>& blocks, int first, int last);

/// Moves collected by step index; phases that run at the same time write into the same steps.
class PlanBuilder {
 public:
  explicit PlanBuilder(int ranks) : plan_{ranks, {}} {}
  /// Adds `move` to step `step`, creating the steps up to it.
  void add(std::size_t step, const Move& move);
  /// The plan without its empty steps.
  MovePlan finish() &&;

 private:
  MovePlan plan_;
};

/// MPICH's non-power-of-two handling: with rem = p - pof2, the even ranks below 2 rem fold into rank + 1,
/// and pof2 virtual ranks run a power-of-two algorithm; virtual v is real 2v+1 (v < rem) or v + rem.
///
///   real:    0  1  2  3 | 4  5  6        p = 7, pof2 = 4, rem = 3
///            '->|  '->| |               fold: 0 -> 1, 2 -> 3, 4 -> 5
///   virtual:    0     1    2     3      on ranks 1, 3, 5, 6
struct Fold {
  /// The fold of `ranks` ranks.
  explicit Fold(int ranks);
  int pof2 = 1;  ///< largest power of two <= p
  int rem = 0;   ///< p - pof2
  /// Real rank of virtual rank v.
  int real(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
  /// Real ranks of all virtual ranks, in virtual order.
  std::vector<int> members() const;
  /// Blocks of the virtual ranks: virtual v < rem owns real blocks 2v and 2v+1, the others block v + rem.
  std::vector<Block> virtual_blocks(const std::vector<Block>& real_blocks) const;
  /// Step `step` (if rem > 0): even rank r < 2 rem sends sent[r] to r + 1. Returns the next free step.
  std::size_t fold_in(PlanBuilder& b, std::size_t step, const std::vector<Block>& sent, Combine combine) const;
  /// Rabenseifner's fold of `whole` (Thakur, Rabenseifner & Gropp 2005, sec. 4.4; SimGrid's SMPI `rab`,
  /// reduce-rab.cpp step 2), two steps from `step` (if rem > 0): even r < 2 rem and r + 1 swap halves (r
  /// keeps the lower, floor(n/2) bytes), then r sends its reduced lower half to r + 1. SMPI keeps the even
  /// rank; keeping the odd one mirrors it so every fold shares the virtual ranks above. Returns the next step.
  std::size_t fold_in_halves(PlanBuilder& b, std::size_t step, Block whole) const;
  /// Step `step` (if rem > 0): odd rank r < 2 rem sends received[r - 1] to r - 1. Returns the next free step.
  std::size_t fold_out(PlanBuilder& b, std::size_t step, const std::vector<Block>& received) const;
};

/// Ring reduce-scatter over `members` (member i sends to i+1): in step s member i sends blocks[i-1-s], so
/// member i ends with blocks[i] fully reduced. q - 1 steps from `step`; returns the next free step.
std::size_t ring_reduce_scatter(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                                const std::vector<Block>& blocks);
/// Ring all-gather: member i starts with blocks[i]; in step s it sends blocks[i-s]. q - 1 steps.
std::size_t ring_all_gather(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                            const std::vector<Block>& blocks);
/// Recursive halving over a power-of-two number of members: at distance q/2, q/4, .., 1 each member keeps
/// the half of its range on its side and sends the other half; member i ends with blocks[i] reduced.
std::size_t halving_reduce_scatter(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                                   const std::vector<Block>& blocks);
/// Recursive doubling all-gather: at distance 1, 2, .., q/2 each member sends the range it holds.
std::size_t doubling_all_gather(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                                const std::vector<Block>& blocks);
/// MPICH's and Rabenseifner's all-reduce order (allreduce_intra_reduce_scatter_allgather.c): the vector is
/// halved at distance 1, 2, .., q/2, so the largest halves go to the nearest member (same node first);
/// member v (the lower of a pair keeps the lower half) ends with blocks[bit-reversed v].
std::size_t distance_doubling_reduce_scatter(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                                             const std::vector<Block>& blocks);
/// The all-gather that undoes it: at distance q/2, .., 1 each member sends the range it holds.
std::size_t distance_halving_all_gather(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                                        const std::vector<Block>& blocks);
/// Binomial reduce to rank 0 over ranks 0..p-1: at mask 1, 2, 4, .. rank r with lowest set bit `mask` sends
/// `whole` to r - mask. ceil(lg p) steps.
std::size_t binomial_reduce(PlanBuilder& b, std::size_t step, int ranks, Block whole);
/// Binomial broadcast from rank 0, the reduce reversed: at mask 2^(ceil(lg p)-1), .., 1 rank r (a multiple
/// of 2 mask) sends `whole` to r + mask.
std::size_t binomial_broadcast(PlanBuilder& b, std::size_t step, int ranks, Block whole);
/// Binomial scatter from rank 0: like the broadcast, but rank r sends only blocks [r + mask, r + 2 mask).
std::size_t binomial_scatter(PlanBuilder& b, std::size_t step, const std::vector<Block>& blocks);
/// Binomial gather to rank 0, the scatter reversed: at mask 1, 2, .. rank r sends blocks [r, r + mask).
std::size_t binomial_gather(PlanBuilder& b, std::size_t step, const std::vector<Block>& blocks);

/// The cost of every message of a flat (not topology-aware) algorithm: inter-node once the group spans
/// nodes, as the ring closed form does; exact on flat networks.
AlphaBeta flat_cost(const Group& group, const LinkCosts& costs);
/// Seconds to send `bytes` in one message.
inline double message_s(AlphaBeta ab, double bytes) { return ab.alpha_s + bytes * ab.beta_s_per_byte; }
/// Ranks 0 .. p-1.
std::vector<int> all_ranks(int ranks);
/// Time of one ring phase (reduce-scatter or all-gather) over all ranks: (p-1) (alpha + max block beta).
double ring_phase_s(const Group& group, const std::vector<std::int64_t>& block_bytes, const LinkCosts& costs);
/// One pairwise-exchange step of a max-plus cost recursion: member v sends sent_bytes[v] to v ^ distance;
/// a pair starts when both are ready and both are done after the larger of its two messages.
void exchange_step(std::vector<double>& ready, int distance, const std::vector<double>& sent_bytes, AlphaBeta ab);
/// ceil(lg p).
int ceil_log2(int p);
/// floor(lg p).
int floor_log2(int p);

}  // namespace dtsim::collectives
