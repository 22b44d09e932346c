#include "sim/collectives/phases.hpp"

#include <algorithm>
#include <utility>

#include "sim/collectives/chunking.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

int wrap(int i, int q) { return ((i % q) + q) % q; }

/// Block range [first, last) member v holds after distance_doubling_reduce_scatter's steps at distances < m.
std::pair<int, int> held(int v, int m, int q) {
  int first = 0;
  int last = q;
  for (int d = 1; d < m; d *= 2) {
    const int mid = (first + last) / 2;
    if (v & d)
      first = mid;
    else
      last = mid;
  }
  return {first, last};
}

}  // namespace

std::vector<Block> split(Block whole, int parts) {
  std::vector<Block> blocks;
  blocks.reserve(static_cast<std::size_t>(parts));
  std::int64_t offset = whole.offset;
  for (int i = 0; i < parts; ++i) {
    blocks.push_back({offset, chunk_bytes(whole.bytes, parts, i)});
    offset += blocks.back().bytes;
  }
  return blocks;
}

std::vector<Block> consecutive(const std::vector<std::int64_t>& sizes) {
  std::vector<Block> blocks;
  blocks.reserve(sizes.size());
  std::int64_t offset = 0;
  for (std::int64_t s : sizes) {
    blocks.push_back({offset, s});
    offset += s;
  }
  return blocks;
}

Block span(const std::vector<Block>& blocks, int first, int last) {
  const auto& end = blocks[static_cast<std::size_t>(last - 1)];
  const std::int64_t begin = blocks[static_cast<std::size_t>(first)].offset;
  return {begin, end.offset + end.bytes - begin};
}

void PlanBuilder::add(std::size_t step, const Move& move) {
  if (plan_.steps.size() <= step) plan_.steps.resize(step + 1);
  plan_.steps[step].moves.push_back(move);
}

MovePlan PlanBuilder::finish() && {
  std::erase_if(plan_.steps, [](const MoveStep& s) { return s.moves.empty(); });
  return std::move(plan_);
}

Fold::Fold(int ranks) {
  DTSIM_CHECK(ranks >= 1, "a collective needs at least one rank");
  while (pof2 * 2 <= ranks) pof2 *= 2;
  rem = ranks - pof2;
}

std::vector<int> Fold::members() const {
  std::vector<int> m(static_cast<std::size_t>(pof2));
  for (int v = 0; v < pof2; ++v) m[static_cast<std::size_t>(v)] = real(v);
  return m;
}

std::vector<Block> Fold::virtual_blocks(const std::vector<Block>& real_blocks) const {
  std::vector<Block> blocks(static_cast<std::size_t>(pof2));
  for (int v = 0; v < pof2; ++v)
    blocks[static_cast<std::size_t>(v)] = v < rem ? span(real_blocks, 2 * v, 2 * v + 2) : real_blocks[static_cast<std::size_t>(v + rem)];
  return blocks;
}

std::size_t Fold::fold_in(PlanBuilder& b, std::size_t step, const std::vector<Block>& sent, Combine combine) const {
  if (rem == 0) return step;
  for (int r = 0; r < 2 * rem; r += 2) {
    const Block& x = sent[static_cast<std::size_t>(r)];
    b.add(step, {r, r + 1, x.offset, x.bytes, combine});
  }
  return step + 1;
}

std::size_t Fold::fold_in_halves(PlanBuilder& b, std::size_t step, Block whole) const {
  if (rem == 0) return step;
  const Block lower{whole.offset, whole.bytes / 2};
  const Block upper{lower.offset + lower.bytes, whole.bytes - lower.bytes};
  for (int r = 0; r < 2 * rem; r += 2) {
    b.add(step, {r, r + 1, upper.offset, upper.bytes, Combine::reduce});
    b.add(step, {r + 1, r, lower.offset, lower.bytes, Combine::reduce});
    b.add(step + 1, {r, r + 1, lower.offset, lower.bytes, Combine::copy});
  }
  return step + 2;
}

std::size_t Fold::fold_out(PlanBuilder& b, std::size_t step, const std::vector<Block>& received) const {
  if (rem == 0) return step;
  for (int r = 0; r < 2 * rem; r += 2) {
    const Block& x = received[static_cast<std::size_t>(r)];
    b.add(step, {r + 1, r, x.offset, x.bytes, Combine::copy});
  }
  return step + 1;
}

std::size_t ring_reduce_scatter(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                                const std::vector<Block>& blocks) {
  const int q = static_cast<int>(members.size());
  for (int s = 0; s + 1 < q; ++s, ++step)
    for (int i = 0; i < q; ++i) {
      const Block& x = blocks[static_cast<std::size_t>(wrap(i - 1 - s, q))];
      b.add(step, {members[static_cast<std::size_t>(i)], members[static_cast<std::size_t>((i + 1) % q)], x.offset,
                   x.bytes, Combine::reduce});
    }
  return step;
}

std::size_t ring_all_gather(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                            const std::vector<Block>& blocks) {
  const int q = static_cast<int>(members.size());
  for (int s = 0; s + 1 < q; ++s, ++step)
    for (int i = 0; i < q; ++i) {
      const Block& x = blocks[static_cast<std::size_t>(wrap(i - s, q))];
      b.add(step, {members[static_cast<std::size_t>(i)], members[static_cast<std::size_t>((i + 1) % q)], x.offset,
                   x.bytes, Combine::copy});
    }
  return step;
}

std::size_t halving_reduce_scatter(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                                   const std::vector<Block>& blocks) {
  const int q = static_cast<int>(members.size());
  for (int h = q / 2; h >= 1; h /= 2, ++step)
    for (int v = 0; v < q; ++v) {
      const int lo = v & ~(2 * h - 1);
      const int sent = (v & h) ? lo : lo + h;
      const Block x = span(blocks, sent, sent + h);
      b.add(step, {members[static_cast<std::size_t>(v)], members[static_cast<std::size_t>(v ^ h)], x.offset, x.bytes,
                   Combine::reduce});
    }
  return step;
}

std::size_t doubling_all_gather(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                                const std::vector<Block>& blocks) {
  const int q = static_cast<int>(members.size());
  for (int h = 1; h < q; h *= 2, ++step)
    for (int v = 0; v < q; ++v) {
      const int lo = v & ~(h - 1);
      const Block x = span(blocks, lo, lo + h);
      b.add(step, {members[static_cast<std::size_t>(v)], members[static_cast<std::size_t>(v ^ h)], x.offset, x.bytes,
                   Combine::copy});
    }
  return step;
}

std::size_t distance_doubling_reduce_scatter(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                                             const std::vector<Block>& blocks) {
  const int q = static_cast<int>(members.size());
  for (int m = 1; m < q; m *= 2, ++step)
    for (int v = 0; v < q; ++v) {
      const auto [first, last] = held(v, m, q);
      const int mid = (first + last) / 2;
      const Block x = (v & m) ? span(blocks, first, mid) : span(blocks, mid, last);
      b.add(step, {members[static_cast<std::size_t>(v)], members[static_cast<std::size_t>(v ^ m)], x.offset, x.bytes,
                   Combine::reduce});
    }
  return step;
}

std::size_t distance_halving_all_gather(PlanBuilder& b, std::size_t step, const std::vector<int>& members,
                                        const std::vector<Block>& blocks) {
  const int q = static_cast<int>(members.size());
  for (int m = q / 2; m >= 1; m /= 2, ++step)
    for (int v = 0; v < q; ++v) {
      const auto [first, last] = held(v, 2 * m, q);
      const Block x = span(blocks, first, last);
      b.add(step, {members[static_cast<std::size_t>(v)], members[static_cast<std::size_t>(v ^ m)], x.offset, x.bytes,
                   Combine::copy});
    }
  return step;
}

std::size_t binomial_reduce(PlanBuilder& b, std::size_t step, int ranks, Block whole) {
  for (int mask = 1; mask < ranks; mask *= 2, ++step)
    for (int r = mask; r < ranks; r += 2 * mask) b.add(step, {r, r - mask, whole.offset, whole.bytes, Combine::reduce});
  return step;
}

std::size_t binomial_broadcast(PlanBuilder& b, std::size_t step, int ranks, Block whole) {
  for (int mask = (1 << ceil_log2(ranks)) / 2; mask >= 1; mask /= 2, ++step)
    for (int r = 0; r + mask < ranks; r += 2 * mask) b.add(step, {r, r + mask, whole.offset, whole.bytes, Combine::copy});
  return step;
}

std::size_t binomial_scatter(PlanBuilder& b, std::size_t step, const std::vector<Block>& blocks) {
  const int ranks = static_cast<int>(blocks.size());
  for (int mask = (1 << ceil_log2(ranks)) / 2; mask >= 1; mask /= 2, ++step)
    for (int r = 0; r + mask < ranks; r += 2 * mask) {
      const Block x = span(blocks, r + mask, std::min(r + 2 * mask, ranks));
      b.add(step, {r, r + mask, x.offset, x.bytes, Combine::copy});
    }
  return step;
}

std::size_t binomial_gather(PlanBuilder& b, std::size_t step, const std::vector<Block>& blocks) {
  const int ranks = static_cast<int>(blocks.size());
  for (int mask = 1; mask < ranks; mask *= 2, ++step)
    for (int r = mask; r < ranks; r += 2 * mask) {
      const Block x = span(blocks, r, std::min(r + mask, ranks));
      b.add(step, {r, r - mask, x.offset, x.bytes, Combine::copy});
    }
  return step;
}

AlphaBeta flat_cost(const Group& group, const LinkCosts& costs) {
  return group.nodes() > 1 ? costs.inter : costs.intra;
}

std::vector<int> all_ranks(int ranks) {
  std::vector<int> r(static_cast<std::size_t>(ranks));
  for (int i = 0; i < ranks; ++i) r[static_cast<std::size_t>(i)] = i;
  return r;
}

double ring_phase_s(const Group& group, const std::vector<std::int64_t>& block_bytes, const LinkCosts& costs) {
  const double largest = static_cast<double>(*std::max_element(block_bytes.begin(), block_bytes.end()));
  return (group.ranks - 1) * message_s(flat_cost(group, costs), largest);
}

void exchange_step(std::vector<double>& ready, int distance, const std::vector<double>& sent_bytes, AlphaBeta ab) {
  const std::vector<double> before = ready;
  for (std::size_t v = 0; v < ready.size(); ++v) {
    const std::size_t w = v ^ static_cast<std::size_t>(distance);
    ready[v] = std::max(before[v], before[w]) + message_s(ab, std::max(sent_bytes[v], sent_bytes[w]));
  }
}

int ceil_log2(int p) {
  int lg = 0;
  while ((1 << lg) < p) ++lg;
  return lg;
}

int floor_log2(int p) {
  int lg = 0;
  while ((2 << lg) <= p) ++lg;
  return lg;
}

}  // namespace dtsim::collectives
