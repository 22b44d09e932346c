#include "sim/collectives/nvlink_rings.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

/// Depth-first packing of rings into the residual NVLink capacities (one unit per link and direction).
class RingPacker {
 public:
  RingPacker(const NvlinkCounts& links, int gpus, bool relays)
      : capacity_(links), gpus_(gpus), relays_(relays), node_(static_cast<int>(links.size())) {}

  std::vector<std::vector<int>> run() {
    bound_ = upper_bound();
    std::vector<std::vector<int>> rings;
    pack(rings);
    return best_;
  }

 private:
  /// Budget of search steps: the DGX-1's 8-GPU search takes a few thousand.
  static constexpr long kBudget = 2'000'000;

  int& cap(int i, int j) { return capacity_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)]; }

  /// No GPU can start more rings than it has outgoing NVLinks left.
  int upper_bound() {
    int bound = 1 << 30;
    for (int i = 0; i < gpus_; ++i) {
      int out = 0;
      for (int j = 0; j < node_; ++j) out += cap(i, j);
      bound = std::min(bound, out);
    }
    return bound;
  }

  /// Takes (or, with `sign` = +1, gives back) the capacity of hop i -> j: the direct link, or the relay's two.
  /// Returns false, changing nothing, when the hop has no capacity left.
  bool use(int i, int j, int sign) {
    if (sign > 0) {
      const int k = hop_relay_[static_cast<std::size_t>(i)];
      if (k < 0) cap(i, j) += 1;
      else cap(i, k) += 1, cap(k, j) += 1;
      return true;
    }
    if (cap(i, j) > 0) {
      cap(i, j) -= 1;
      hop_relay_[static_cast<std::size_t>(i)] = -1;
      return true;
    }
    if (!relays_) return false;
    const int k = nvlink_relay(original_, i, j);
    if (k < 0 || cap(i, k) == 0 || cap(k, j) == 0) return false;
    cap(i, k) -= 1, cap(k, j) -= 1;
    hop_relay_[static_cast<std::size_t>(i)] = k;
    return true;
  }

  /// Every Hamiltonian cycle from GPU 0 in the residual graph, in depth-first order, each tried as the next
  /// ring; rings are kept in non-decreasing order so that a set is tried once.
  void enumerate(std::vector<int>& ring, std::vector<char>& visited, std::vector<std::vector<int>>& rings) {
    if (done() || ++steps_ > kBudget) return;
    const int last = ring.back();
    if (static_cast<int>(ring.size()) == gpus_) {
      if (!rings.empty() && ring < rings.back()) return;
      if (!use(last, 0, -1)) return;
      const std::vector<int> relays = hop_relay_;
      rings.push_back(ring);
      pack(rings);
      rings.pop_back();
      hop_relay_ = relays;
      use(last, 0, +1);
      return;
    }
    for (int next = 1; next < gpus_ && !done(); ++next) {
      if (visited[static_cast<std::size_t>(next)] || !use(last, next, -1)) continue;
      visited[static_cast<std::size_t>(next)] = 1;
      ring.push_back(next);
      const std::vector<int> relays = hop_relay_;
      enumerate(ring, visited, rings);
      hop_relay_ = relays;
      ring.pop_back();
      visited[static_cast<std::size_t>(next)] = 0;
      use(last, next, +1);
    }
  }

  void pack(std::vector<std::vector<int>>& rings) {
    if (rings.size() > best_.size()) best_ = rings;
    if (done() || static_cast<int>(rings.size()) + upper_bound() <= static_cast<int>(best_.size())) return;
    std::vector<int> ring{0};
    std::vector<char> visited(static_cast<std::size_t>(gpus_), 0);
    visited[0] = 1;
    enumerate(ring, visited, rings);
  }

  bool done() const { return static_cast<int>(best_.size()) >= bound_ || steps_ > kBudget; }

  NvlinkCounts capacity_;
  const NvlinkCounts original_ = capacity_;
  int gpus_;
  bool relays_;
  int node_;
  int bound_ = 0;
  long steps_ = 0;
  std::vector<int> hop_relay_ = std::vector<int>(static_cast<std::size_t>(node_), -1);
  std::vector<std::vector<int>> best_;
};

}  // namespace

int nvlink_relay(const NvlinkCounts& links, int i, int j) {
  const auto at = [&](int a, int b) { return links[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)]; };
  if (at(i, j) > 0) return -1;
  int best = -1, best_links = 0;
  for (int k = 0; k < static_cast<int>(links.size()); ++k) {
    if (k == i || k == j) continue;
    const int n = std::min(at(i, k), at(k, j));
    if (n > best_links) best = k, best_links = n;
  }
  return best;
}

std::vector<std::vector<int>> nvlink_rings(const NvlinkCounts& links, int gpus) {
  DTSIM_CHECK(gpus <= static_cast<int>(links.size()), "more GPUs than the node has");
  if (gpus < 2) return {};
  // The tuner asks for the rings of the same node many times per size (enabled protocols, channels, caps): the
  // search runs once per mesh and GPU count and thread.
  constexpr std::size_t kMemoEntries = 64;
  thread_local std::map<std::pair<NvlinkCounts, int>, std::vector<std::vector<int>>> memo;
  const auto key = std::pair{links, gpus};
  if (const auto found = memo.find(key); found != memo.end()) return found->second;
  std::vector<std::vector<int>> rings = RingPacker(links, gpus, false).run();
  if (rings.empty()) rings = RingPacker(links, gpus, true).run();
  if (memo.size() >= kMemoEntries) memo.clear();
  return memo.emplace(key, std::move(rings)).first->second;
}

}  // namespace dtsim::collectives
