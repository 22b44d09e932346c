#include "sim/actors/server_runs.hpp"

#include <algorithm>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Semaphore.hpp>

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;

std::int64_t server_actors(const ServerExchange& exchange, std::size_t node_ranks) {
  std::size_t most = 0, all = 0;
  for (const auto& bucket : exchange.pieces)
    for (const auto& pieces : bucket) most = std::max(most, pieces.size()), all += pieces.size();
  // In-order connections leave every piece's pull in the background (push_then_pull): an iteration's pieces at most.
  return static_cast<std::int64_t>((exchange.setup.fifo_connections ? all : 2 * most) + node_ranks - 1);
}

ServerRuns::Shared& ServerRuns::shared(const ServerExchange& exchange) {
  std::unique_ptr<Shared>& s = shared_[&exchange];
  if (!s) s = std::make_unique<Shared>(exchange.setup);
  return *s;
}

void ServerRuns::meet(const MeetingKey& key, std::size_t count) {
  if (count < 2) return;
  Meeting& m = meetings_[key];
  if (!m.barrier) m.barrier = sg4::Barrier::create(static_cast<unsigned>(count));
  const sg4::BarrierPtr barrier = m.barrier;
  if (++m.arrived == static_cast<int>(count)) meetings_.erase(key);
  barrier->wait();
}

void ServerRuns::to_server(Shared& links, int root, int server, std::int64_t bytes, bool push) {
  // A colocated server on the root's own host takes the push from memory.
  if (server != root && !links.connections.send(context_, push ? root : server, push ? server : root, bytes))
    context_.take_out(root, lost_connection(root));
}

void ServerRuns::move_pieces(int root, int bucket, std::size_t e, const ServerExchange& exchange, bool push) {
  const auto& pieces = exchange.pieces[static_cast<std::size_t>(bucket)][e];
  Shared& links = shared(exchange);
  const PsSetup& setup = exchange.setup;
  const sg4::SemaphorePtr done = sg4::Semaphore::create(0);
  for (const PsPiece& piece : pieces)
    sg4::Actor::create(push ? "push" : "pull", context_.hosts[static_cast<std::size_t>(root)],
                       [this, &links, &setup, piece, root, push, done] {
                         const int server = setup.server_hosts[static_cast<std::size_t>(piece.server)];
                         run::WorkerTraffic& traffic = traffic_[static_cast<std::size_t>(root)];
                         if (push) links.stages.run(root, setup.before_push, piece.push_bytes);
                         const std::int64_t bytes = push ? piece.push_bytes : piece.pull_bytes;
                         to_server(links, root, server, bytes, push);
                         (push ? traffic.bytes_sent : traffic.bytes_received) += bytes;
                         if (!push) links.stages.run(root, setup.after_pull, piece.pull_bytes);
                         done->release();
                       });
  for (std::size_t k = 0; k < pieces.size(); ++k) done->acquire();
}

void ServerRuns::push(int rank, int task, int bucket, const ServerRole& role, const ServerExchange& exchange) {
  const PsSetup& setup = exchange.setup;
  const std::vector<PsExchange>& exchanges = setup.buckets[static_cast<std::size_t>(bucket)];
  const int root = role.node.front();
  const bool staged = !setup.before_push.empty() || !setup.after_pull.empty();
  for (std::size_t e = 0; e < exchanges.size(); ++e) {
    if (exchanges[e].before_s > 0) sg4::this_actor::sleep_for(exchanges[e].before_s);
    const bool last = e + 1 == exchanges.size();
    if (rank != root) {
      // Per-node aggregation: hand the gradient to the root (node stages time the reduce instead).
      if (!staged) {
        if (!try_sendto(context_, rank, root, exchanges[e].push_bytes)) context_.take_out(rank, lost_connection(rank));
        traffic_[static_cast<std::size_t>(rank)].bytes_sent += exchanges[e].push_bytes;
        traffic_[static_cast<std::size_t>(root)].bytes_received += exchanges[e].push_bytes;
      }
      meet({Meet::gathered, root, task, e}, role.node.size());
      if (!last) meet({Meet::scattered, root, task, e}, role.node.size());
      continue;
    }
    meet({Meet::gathered, root, task, e}, role.node.size());
    if (last && setup.fifo_connections) {
      push_then_pull(root, task, bucket, e, role, exchange);
      continue;
    }
    move_pieces(root, bucket, e, exchange, true);
    if (!last) pull_round(rank, task, bucket, e, role, exchange, true);
  }
}

void ServerRuns::push_then_pull(int root, int task, int bucket, std::size_t e, const ServerRole& role,
                                const ServerExchange& exchange) {
  const auto& pieces = exchange.pieces[static_cast<std::size_t>(bucket)][e];
  Shared& links = shared(exchange);
  const PsSetup& setup = exchange.setup;
  const sg4::SemaphorePtr pushed = sg4::Semaphore::create(0);
  const sg4::SemaphorePtr pulled = sg4::Semaphore::create(0);
  pulling_[{root, bucket}].push_back(pulled);
  for (std::size_t k = 0; k < pieces.size(); ++k)
    sg4::Actor::create("push", context_.hosts[static_cast<std::size_t>(root)],
                       [this, &links, &setup, &role, piece = pieces[k], k, root, task, pushed, pulled] {
                         const int server = setup.server_hosts[static_cast<std::size_t>(piece.server)];
                         run::WorkerTraffic& traffic = traffic_[static_cast<std::size_t>(root)];
                         links.stages.run(root, setup.before_push, piece.push_bytes);
                         to_server(links, root, server, piece.push_bytes, true);
                         traffic.bytes_sent += piece.push_bytes;
                         pushed->release();
                         meet({Meet::piece_summed, role.first_root, task, k}, static_cast<std::size_t>(role.roots));
                         to_server(links, root, server, piece.pull_bytes, false);
                         traffic.bytes_received += piece.pull_bytes;
                         links.stages.run(root, setup.after_pull, piece.pull_bytes);
                         pulled->release();
                       });
  for (std::size_t k = 0; k < pieces.size(); ++k) pushed->acquire();
}

void ServerRuns::pull(int rank, int task, int bucket, const ServerRole& role, const ServerExchange& exchange) {
  const std::size_t exchanges = exchange.setup.buckets[static_cast<std::size_t>(bucket)].size();
  const int root = role.node.front();
  if (rank != root || !exchange.setup.fifo_connections) {
    pull_round(rank, task, bucket, exchanges - 1, role, exchange, false);
    return;
  }
  // The pieces' pulls began with their pushes: wait for the rest, then bring the node its sum.
  std::deque<sg4::SemaphorePtr>& pulling = pulling_[{root, bucket}];
  const sg4::SemaphorePtr pulled = pulling.front();
  pulling.pop_front();
  for (std::size_t k = 0; k < exchange.pieces[static_cast<std::size_t>(bucket)][exchanges - 1].size(); ++k) pulled->acquire();
  meet({Meet::scattered, root, task, exchanges - 1}, role.node.size());
}

void ServerRuns::pull_round(int rank, int task, int bucket, std::size_t e, const ServerRole& role,
                            const ServerExchange& exchange, bool sum) {
  const int root = role.node.front();
  if (rank != root) {  // the root brings the node its sum
    meet({Meet::scattered, root, task, e}, role.node.size());
    return;
  }
  meet({Meet::summed, role.first_root, task, e}, static_cast<std::size_t>(role.roots));
  const double sum_s = exchange.sum_s[static_cast<std::size_t>(bucket)][e];
  if (sum && sum_s > 0) sg4::this_actor::sleep_for(sum_s);
  move_pieces(root, bucket, e, exchange, false);
  const PsSetup& setup = exchange.setup;
  if (setup.before_push.empty() && setup.after_pull.empty() && role.node.size() > 1) {
    // Back to the node's other ranks, all at once.
    const std::int64_t bytes = setup.buckets[static_cast<std::size_t>(bucket)][e].pull_bytes;
    const sg4::SemaphorePtr back = sg4::Semaphore::create(0);
    for (std::size_t m = 1; m < role.node.size(); ++m)
      sg4::Actor::create("ps-back", context_.hosts[static_cast<std::size_t>(root)], [this, root, to = role.node[m], bytes, back] {
        if (try_sendto(context_, root, to, bytes)) {
          traffic_[static_cast<std::size_t>(root)].bytes_sent += bytes;
          traffic_[static_cast<std::size_t>(to)].bytes_received += bytes;
        }
        back->release();
      });
    for (std::size_t m = 1; m < role.node.size(); ++m) back->acquire();
  }
  meet({Meet::scattered, root, task, e}, role.node.size());
}

}  // namespace dtsim::actors
