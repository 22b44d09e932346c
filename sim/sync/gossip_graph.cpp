#include "sim/sync/gossip_graph.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "compressors/rng.hpp"
#include "sim/core/error.hpp"

namespace dtsim::sync {
namespace {

using Builder = std::function<void(int n, int degree, std::uint64_t seed, GossipGraph& g)>;

void connect(GossipGraph& g, int a, int b) {
  if (a == b) return;
  g.neighbours[static_cast<std::size_t>(a)].push_back(b);
  g.neighbours[static_cast<std::size_t>(b)].push_back(a);
}

void ring(int n, int, std::uint64_t, GossipGraph& g) {
  for (int i = 0; i < n; ++i) connect(g, i, (i + 1) % n);
}

void torus(int n, int, std::uint64_t, GossipGraph& g) {
  int rows = 1;
  for (int r = 1; r * r <= n; ++r)
    if (n % r == 0) rows = r;
  const int cols = n / rows;
  for (int i = 0; i < n; ++i) {
    const int r = i / cols, c = i % cols;
    connect(g, i, r * cols + (c + 1) % cols);
    connect(g, i, ((r + 1) % rows) * cols + c);
  }
}

void exponential(int n, int, std::uint64_t, GossipGraph& g) {
  for (int i = 0; i < n; ++i)
    for (int hop = 1; hop < n; hop *= 2) connect(g, i, (i + hop) % n);
}

bool connected(const GossipGraph& g) {
  std::vector<char> seen(g.neighbours.size(), 0);
  std::vector<int> stack{0};
  seen[0] = 1;
  std::size_t reached = 1;
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (int u : g.neighbours[static_cast<std::size_t>(v)])
      if (!seen[static_cast<std::size_t>(u)]) {
        seen[static_cast<std::size_t>(u)] = 1;
        ++reached;
        stack.push_back(u);
      }
  }
  return reached == g.neighbours.size();
}

void random_graph(int n, int degree, std::uint64_t seed, GossipGraph& g) {
  const double p = std::min(1.0, static_cast<double>(degree) / std::max(1, n - 1));
  for (std::uint64_t attempt = 0;; ++attempt) {
    for (auto& list : g.neighbours) list.clear();
    compressors::Rng rng(compressors::stream_seed(seed, attempt, 0));
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (rng.uniform() < p) connect(g, i, j);
    if (connected(g)) return;
    DTSIM_CHECK(attempt < 10000, "a connected random graph is drawn long before this");
  }
}

struct Family {
  const char* name;
  Builder build;
};

const std::vector<Family>& families() {
  static const std::vector<Family> list{
      {"ring", ring}, {"torus", torus}, {"exponential", exponential}, {"random", random_graph}};
  return list;
}

}  // namespace

std::vector<std::string> gossip_topology_names() {
  std::vector<std::string> names;
  for (const Family& f : families()) names.emplace_back(f.name);
  return names;
}

GossipGraph make_gossip_graph(std::string_view topology, int n, int degree, std::uint64_t seed) {
  DTSIM_CHECK(n >= 1, "a graph has at least one worker");
  for (const Family& f : families()) {
    if (topology != f.name) continue;
    GossipGraph g;
    g.neighbours.resize(static_cast<std::size_t>(n));
    f.build(n, degree, seed, g);
    for (auto& list : g.neighbours) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    }
    return g;
  }
  throw core::unknown_name("gossip topology", topology, gossip_topology_names());
}

int push_sum_peer(int worker, int iteration, int n) {
  if (n <= 1) return worker;
  int hops = 0;
  while ((1 << hops) < n) ++hops;
  return (worker + (1 << (iteration % hops))) % n;
}

MixingMatrix metropolis_hastings(const GossipGraph& graph) {
  MixingMatrix m;
  m.n = graph.size();
  m.w.assign(static_cast<std::size_t>(m.n) * static_cast<std::size_t>(m.n), 0.0);
  for (int i = 0; i < m.n; ++i) {
    double off = 0;
    const auto& mine = graph.neighbours[static_cast<std::size_t>(i)];
    for (int j : mine) {
      const auto degree_j = graph.neighbours[static_cast<std::size_t>(j)].size();
      const double w = 1.0 / (1.0 + static_cast<double>(std::max(mine.size(), degree_j)));
      m.w[static_cast<std::size_t>(i) * static_cast<std::size_t>(m.n) + static_cast<std::size_t>(j)] = w;
      off += w;
    }
    m.w[static_cast<std::size_t>(i) * static_cast<std::size_t>(m.n) + static_cast<std::size_t>(i)] = 1.0 - off;
  }
  return m;
}

double doubly_stochastic_error(const MixingMatrix& m) {
  double worst = 0;
  for (int i = 0; i < m.n; ++i) {
    double row = 0, column = 0;
    for (int j = 0; j < m.n; ++j) {
      row += m.at(i, j);
      column += m.at(j, i);
      worst = std::max(worst, -m.at(i, j));
    }
    worst = std::max({worst, std::abs(row - 1), std::abs(column - 1)});
  }
  return worst;
}

}  // namespace dtsim::sync
