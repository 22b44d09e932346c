#pragma once
/// Communication graphs of decentralised SGD and their mixing matrices (D-PSGD: Lian et al. 2017; SGP
/// push-sum: Assran et al. 2019).
///
///   ring          i talks to i-1 and i+1                        0 - 1 - 2 - 3 - 0
///   torus         a rows x cols grid (rows the largest divisor <= sqrt n) with wrap-around, 4 neighbours
///   exponential   i talks to i +- 2^k for 2^k < n (undirected); SGP sends to i + 2^(t mod log2 n) only
///   random        Erdos-Renyi with the given mean degree, redrawn from the seed until connected
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::sync {

/// An undirected graph on workers 0..n-1 without self loops.
struct GossipGraph {
  std::vector<std::vector<int>> neighbours;  ///< sorted, each edge listed at both ends
  /// Number of workers.
  int size() const { return static_cast<int>(neighbours.size()); }
};

/// Registry keys of the graph families, as written in `strategy.gossip.topology`.
std::vector<std::string> gossip_topology_names();
/// The graph `topology` on `n` workers; `degree` and `seed` are the random graph's. Throws core::InputError
/// for an unknown name.
GossipGraph make_gossip_graph(std::string_view topology, int n, int degree, std::uint64_t seed);

/// SGP's one out-peer of worker `worker` at iteration `iteration` on the directed exponential graph.
int push_sum_peer(int worker, int iteration, int n);

/// Row-major n x n matrix.
struct MixingMatrix {
  int n = 0;
  std::vector<double> w;
  double at(int i, int j) const { return w[static_cast<std::size_t>(i) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)]; }
};

/// Metropolis-Hastings weights w_ij = 1 / (1 + max(deg i, deg j)) on edges, the rest on the diagonal:
/// symmetric and doubly stochastic for every undirected graph.
MixingMatrix metropolis_hastings(const GossipGraph& graph);
/// Largest deviation of a row or column sum from 1 (0 for a doubly stochastic matrix); negative entries
/// count as deviation too.
double doubly_stochastic_error(const MixingMatrix& m);

}  // namespace dtsim::sync
