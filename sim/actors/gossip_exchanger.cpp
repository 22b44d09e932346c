#include "sim/actors/gossip_exchanger.hpp"

#include <algorithm>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Semaphore.hpp>

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;

std::vector<std::pair<int, int>> gossip_pairs(const GossipSetup& setup) {
  std::vector<std::pair<int, int>> pairs;
  const int n = setup.graph.size();
  for (int w = 0; w < n; ++w) {
    if (setup.push_sum) {
      for (int k = 0; (1 << k) < n; ++k) pairs.emplace_back(w, sync::push_sum_peer(w, k, n));
    } else {
      for (int j : setup.graph.neighbours[static_cast<std::size_t>(w)]) pairs.emplace_back(w, j);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

GossipExchanger::GossipExchanger(RunContext& context, const GossipSetup& setup)
    : context_(context), setup_(setup), out_(static_cast<std::size_t>(setup.graph.size()), 0),
      running_(static_cast<std::size_t>(setup.graph.size()), 0) {}

void GossipExchanger::worker_failed(int rank) {
  out_[static_cast<std::size_t>(rank)] = 1;
  if (running_[static_cast<std::size_t>(rank)]) --started_;  // its unfinished iteration returns to the budget
  arrival_.notify_all();
}

bool GossipExchanger::survives(const std::vector<int>& out) const {
  return static_cast<int>(out.size()) < setup_.graph.size();
}

bool GossipExchanger::begin_iteration(int rank, int iteration) {
  if (!setup_.push_sum) return iteration < setup_.iterations;
  // SGP workers never wait for each other: they share the budget of worker-iterations bsp would run.
  running_[static_cast<std::size_t>(rank)] = 0;
  if (started_ >= static_cast<long>(setup_.graph.size()) * setup_.iterations) return false;
  ++started_;
  running_[static_cast<std::size_t>(rank)] = 1;
  return true;
}

void GossipExchanger::send(int from, int to, std::int64_t bytes) {
  if (out_[static_cast<std::size_t>(to)]) return;  // neighbours drop a crashed worker
  if (!try_sendto(context_, from, to, bytes)) {
    if (!out_[static_cast<std::size_t>(to)]) context_.take_out(from, lost_connection(from));
    return;
  }
  context_.timeline.traffic[static_cast<std::size_t>(from)].bytes_sent += bytes;
  context_.timeline.traffic[static_cast<std::size_t>(to)].bytes_received += bytes;
}

void GossipExchanger::exchange(int rank, int iteration, std::size_t bucket) {
  const int n = setup_.graph.size();
  for (std::size_t e = 0; e < setup_.bucket_bytes[bucket].size(); ++e) {
    if (setup_.before_s[bucket][e] > 0) sg4::this_actor::sleep_for(setup_.before_s[bucket][e]);
    const std::int64_t bytes = setup_.bucket_bytes[bucket][e];
    if (n == 1) continue;
    if (setup_.push_sum) {
      // The send must leave before its buffer is reused; nobody waits for what arrives.
      send(rank, sync::push_sum_peer(rank, iteration, n), bytes);
      continue;
    }
    const auto& neighbours = setup_.graph.neighbours[static_cast<std::size_t>(rank)];
    sg4::SemaphorePtr sent = sg4::Semaphore::create(0);
    for (int j : neighbours)
      sg4::Actor::create("gossip", context_.hosts[static_cast<std::size_t>(rank)], [this, rank, j, iteration, bucket, e, bytes, sent] {
        send(rank, j, bytes);
        arrived_[{j, iteration, bucket, e}].push_back(rank);
        arrival_.notify_all();
        sent->release();
      });
    for (std::size_t k = 0; k < neighbours.size(); ++k) sent->acquire();
    // Wait for every neighbour still in the run (a crashed one is dropped from the mixing).
    const auto key = std::make_tuple(rank, iteration, bucket, e);
    arrival_.wait([&] {
      const auto& from = arrived_[key];
      return std::all_of(neighbours.begin(), neighbours.end(), [&](int j) {
        return out_[static_cast<std::size_t>(j)] || std::find(from.begin(), from.end(), j) != from.end();
      });
    });
    arrived_.erase(key);
  }
}

}  // namespace dtsim::actors
