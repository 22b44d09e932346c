// Bruck all-gather(v) (Bruck et al. 1997; MPICH allgather for short messages and non-powers of two): at
// distance d = 1, 2, 4, .. rank r sends the blocks it holds, r .. r+d-1 (mod p), to rank r - d; the last
// step sends only the p - d blocks still missing. Blocks keep their place in the gathered vector here, so
// MPICH's final local rotation is not needed.
//
//   p = 5:  d=1: r -[r]-> r-1      d=2: r -[r, r+1]-> r-2      d=4: r -[r]-> r-4   (5 - 4 = 1 block)
//
// Cost: a max-plus recursion over the ranks (a rank is ready after both its send and its receive);
// equal blocks give MPICH's ceil(lg p) alpha + (p-1)/p n beta.
#include <algorithm>

#include "sim/collectives/factories.hpp"
#include "sim/collectives/phases.hpp"

namespace dtsim::collectives {
namespace {

class BruckAllgatherv final : public BlockCollective {
 public:
  std::string_view name() const override { return "bruck"; }

  MovePlan moves(const Group& group, const std::vector<std::int64_t>& block_bytes) const override {
    const int p = group.ranks;
    const std::vector<Block> blocks = consecutive(block_bytes);
    PlanBuilder b(p);
    std::size_t step = 0;
    for (int d = 1; d < p; d *= 2, ++step) {
      const int count = std::min(d, p - d);
      for (int r = 0; r < p; ++r) {
        const int to = (r - d + p) % p;
        const int end = r + count;
        const Block first = span(blocks, r, std::min(end, p));
        b.add(step, {r, to, first.offset, first.bytes, Combine::copy});
        if (end > p) {
          const Block wrapped = span(blocks, 0, end - p);
          b.add(step, {r, to, wrapped.offset, wrapped.bytes, Combine::copy});
        }
      }
    }
    return std::move(b).finish();
  }

  double closed_form_s(const Group& group, const std::vector<std::int64_t>& block_bytes,
                       const LinkCosts& costs) const override {
    const int p = group.ranks;
    const AlphaBeta ab = flat_cost(group, costs);
    const auto at = [p](int r) { return static_cast<std::size_t>(((r % p) + p) % p); };
    std::vector<double> ready(static_cast<std::size_t>(p), 0.0);
    std::vector<double> sent(ready.size());
    for (int d = 1; d < p; d *= 2) {
      const int count = std::min(d, p - d);
      for (int r = 0; r < p; ++r) {
        double bytes = 0;
        for (int i = 0; i < count; ++i) bytes += static_cast<double>(block_bytes[at(r + i)]);
        sent[at(r)] = bytes;
      }
      const std::vector<double> before = ready;
      for (int r = 0; r < p; ++r) {
        const double send_end = std::max(before[at(r)], before[at(r - d)]) + message_s(ab, sent[at(r)]);
        const double receive_end = std::max(before[at(r + d)], before[at(r)]) + message_s(ab, sent[at(r + d)]);
        ready[at(r)] = std::max(send_end, receive_end);
      }
    }
    return *std::max_element(ready.begin(), ready.end());
  }
};

}  // namespace

std::unique_ptr<BlockCollective> make_bruck_allgatherv() { return std::make_unique<BruckAllgatherv>(); }

}  // namespace dtsim::collectives
