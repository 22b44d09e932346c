#pragma once
// Test helpers: replaying a MovePlan on real integer vectors, and the sizes and bounds the suites share.
#include <cstdint>
#include <vector>

#include "sim/collectives/move_plan.hpp"
#include "sim/collectives/schedule.hpp"

namespace dtsim::collectives::testing {

/// One vector per rank.
using Data = std::vector<std::vector<std::int64_t>>;

/// Applies every step: receivers combine the values their senders held before the step.
inline void replay(const MovePlan& plan, Data& data) {
  for (const MoveStep& step : plan.steps) {
    std::vector<std::vector<std::int64_t>> sent;
    sent.reserve(step.moves.size());
    for (const Move& m : step.moves) {
      const auto& from = data[static_cast<std::size_t>(m.from)];
      sent.emplace_back(from.begin() + m.offset, from.begin() + m.offset + m.bytes);
    }
    for (std::size_t i = 0; i < step.moves.size(); ++i) {
      const Move& m = step.moves[i];
      auto& to = data[static_cast<std::size_t>(m.to)];
      for (std::int64_t j = 0; j < m.bytes; ++j) {
        auto& x = to[static_cast<std::size_t>(m.offset + j)];
        x = m.combine == Combine::reduce ? x + sent[i][static_cast<std::size_t>(j)] : sent[i][static_cast<std::size_t>(j)];
      }
    }
  }
}

/// The value rank r contributes at byte i.
inline std::int64_t value(int r, std::int64_t i) { return (r + 1) * 1000003 + i; }

/// Sum over ranks 0..p-1 of value(r, i).
inline std::int64_t sum(int p, std::int64_t i) {
  std::int64_t s = 0;
  for (int r = 0; r < p; ++r) s += value(r, i);
  return s;
}

/// Rank r holding value(r, i) everywhere.
inline Data contributions(int p, std::int64_t bytes) {
  Data d(static_cast<std::size_t>(p), std::vector<std::int64_t>(static_cast<std::size_t>(bytes)));
  for (int r = 0; r < p; ++r)
    for (std::int64_t i = 0; i < bytes; ++i) d[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)] = value(r, i);
  return d;
}

/// The worker counts every suite covers.
inline const std::vector<int> kRanks{1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 64};

/// Sizes divisible by every chunk count a plan uses over p ranks (p blocks, pof2 blocks, 2 x 1024 tree segments).
inline std::vector<std::int64_t> even_sizes(int p) {
  const std::int64_t q = 2048 * static_cast<std::int64_t>(p);
  return {0, q, 37 * q, 1000 * q};
}

/// Sizes not divisible by p.
inline const std::vector<std::int64_t> kUnevenSizes{1, 1001, 12345, 1000003};

/// Sizes for data replays (small, mostly not divisible by p).
inline const std::vector<std::int64_t> kReplaySizes{0, 1, 7, 100, 1001};

/// The largest number of transfers any one rank sends or receives in one step.
inline int max_messages_per_rank_and_step(const Schedule& s) {
  int most = 0;
  for (const Step& step : s.steps) {
    std::vector<int> out(static_cast<std::size_t>(s.ranks)), in(static_cast<std::size_t>(s.ranks));
    for (const Transfer& t : step.transfers) {  // a switch endpoint takes every rank's message: not counted
      if (!is_switch(t.from)) most = std::max(most, ++out[static_cast<std::size_t>(t.from)]);
      if (!is_switch(t.to)) most = std::max(most, ++in[static_cast<std::size_t>(t.to)]);
    }
  }
  return most;
}

}  // namespace dtsim::collectives::testing
