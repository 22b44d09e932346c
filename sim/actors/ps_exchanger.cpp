#include "sim/actors/ps_exchanger.hpp"

#include <algorithm>
#include <string>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/core/error.hpp"
#include "sim/sync/ps_partitions.hpp"

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;

std::vector<std::vector<std::vector<PsPiece>>> ps_pieces(const PsSetup& setup) {
  std::vector<std::int64_t> sizes;
  for (const auto& bucket : setup.buckets)
    for (const PsExchange& e : bucket) sizes.push_back(e.push_bytes);
  const auto partitions =
      sync::partition_buckets(sizes, static_cast<int>(setup.server_hosts.size()), setup.partition_bytes);
  std::vector<std::vector<std::vector<PsPiece>>> pieces;
  std::size_t flat = 0;
  int id = 0;
  for (const auto& bucket : setup.buckets) {
    auto& exchanges = pieces.emplace_back();
    for (const PsExchange& e : bucket) {
      auto& out = exchanges.emplace_back();
      const auto& parts = partitions[flat];
      const auto n = static_cast<std::int64_t>(parts.size());
      const int servers = static_cast<int>(setup.server_hosts.size());
      for (std::int64_t k = 0; k < n; ++k) {
        const sync::Partition& part = parts[static_cast<std::size_t>(k)];
        out.push_back({id++, setup.assign ? setup.assign(flat, k, servers) : part.server, part.bytes,
                       sync::even_share(e.pull_bytes, n, k)});
      }
      ++flat;
    }
  }
  return pieces;
}

std::vector<std::pair<int, int>> ps_pairs(const PsSetup& setup) {
  std::vector<std::pair<int, int>> pairs;
  for (int r = 0; r < setup.workers; ++r) {
    const bool root = !setup.hierarchical || r % setup.gpus_per_node == 0;
    if (!root) {
      const int to = r - r % setup.gpus_per_node;
      if (setup.before_push.empty() && setup.after_pull.empty()) pairs.insert(pairs.end(), {{r, to}, {to, r}});
      continue;
    }
    for (int host : setup.server_hosts)
      if (host != r) pairs.insert(pairs.end(), {{r, host}, {host, r}});
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

namespace {

int piece_count(const std::vector<std::vector<std::vector<PsPiece>>>& pieces) {
  int count = 0;
  for (const auto& bucket : pieces)
    for (const auto& exchange : bucket) count += static_cast<int>(exchange.size());
  return count;
}

int participants_of(const PsSetup& s) {
  return s.hierarchical ? (s.workers + s.gpus_per_node - 1) / s.gpus_per_node : s.workers;
}

}  // namespace

PsExchanger::PsExchanger(RunContext& context, const PsSetup& setup)
    : context_(context), setup_(setup), pieces_(ps_pieces(setup)), participants_(participants_of(setup)),
      ledger_(piece_count(pieces_), participants_, setup.sync),
      servers_(setup.server_hosts.size()), credits_(static_cast<std::size_t>(participants_)),
      connections_(setup.fifo_connections), stages_(setup.before_push, setup.after_pull),
      tag_(static_cast<std::size_t>(participants_), 0), outstanding_(static_cast<std::size_t>(setup.workers), 0) {
  const int id = piece_count(pieces_);
  piece_changed_ = std::vector<Condition>(static_cast<std::size_t>(id));
  pieces_per_iteration_ = id;
  context_.timeline.servers.assign(setup.server_hosts.size(), {});
  for (std::size_t s = 0; s < setup.server_hosts.size(); ++s) {
    context_.timeline.servers[s].host = setup.server_hosts[s];
    sg4::Actor::create("server" + std::to_string(s), context_.hosts[static_cast<std::size_t>(setup.server_hosts[s])],
                       [this, s] { serve(static_cast<int>(s)); })
        ->daemonize();
  }
}

int PsExchanger::participant_of(int rank) const { return setup_.hierarchical ? rank / setup_.gpus_per_node : rank; }

int PsExchanger::root_of(int participant) const {
  return setup_.hierarchical ? participant * setup_.gpus_per_node : participant;
}

std::vector<int> PsExchanger::members_of(int participant) const {
  std::vector<int> members;
  const int first = root_of(participant);
  const int count = setup_.hierarchical ? std::min(setup_.gpus_per_node, setup_.workers - first) : 1;
  for (int r = first; r < first + count; ++r) members.push_back(r);
  return members;
}

bool PsExchanger::begin_iteration(int rank, int iteration) {
  const int participant = participant_of(rank);
  if (staged() && rank != root_of(participant)) {
    // The node's first GPU decides for the node (its model version, its run): the others hand it nothing that
    // would hold them back, so they would otherwise ask before the node's last round is pulled.
    task_changed_.wait([&] { return granted_.count({participant, iteration}) > 0; });
    return granted_.at({participant, iteration});
  }
  auto [at, fresh] = granted_.try_emplace({participant, iteration}, false);
  if (!fresh) return at->second;
  running_.erase(participant);  // asking again: its previous iteration is done
  const auto members = static_cast<long>(members_of(participant).size());
  const std::optional<int> bound = setup_.sync.staleness_bound();
  bool run = false;
  if (bound == 0) {
    // Rounds: the worker computes on the latest model version (behind a closed round after a dropped push).
    run = setup_.sync.backup_workers > 0 ? ledger_.version() < setup_.iterations : iteration < setup_.iterations;
    tag_[static_cast<std::size_t>(participant)] = ledger_.version();
  } else {
    // Asynchronous schemes share a budget: as many worker-iterations as bsp would run.
    run = started_ < static_cast<long>(setup_.workers) * setup_.iterations;
    if (run) {
      started_ += members;
      running_.insert(participant);
    }
  }
  at->second = run;
  task_changed_.notify_all();
  if (!run) {
    ledger_.retire(participant);
    for (Condition& c : piece_changed_) c.notify_all();
  }
  return run;
}

bool PsExchanger::skipped(int rank, int iteration) const {
  return setup_.skip && setup_.skip(participant_of(rank), iteration);
}

bool PsExchanger::dropped(int rank, int iteration) const {
  // Dropped when none of its pieces made it into a round (pieces of one iteration can fall either side of a
  // round's close on a real network).
  const auto it = dropped_.find({participant_of(rank), iteration});
  return it != dropped_.end() && it->second == pieces_per_iteration_;
}

void PsExchanger::exchange(int rank, int iteration, std::size_t bucket) {
  const int participant = participant_of(rank);
  const int root = root_of(participant);
  const auto& exchanges = setup_.buckets[bucket];
  for (std::size_t e = 0; e < exchanges.size(); ++e) {
    if (exchanges[e].before_s > 0) sg4::this_actor::sleep_for(exchanges[e].before_s);
    const TaskKey key{participant, iteration, bucket, e};
    ++outstanding_[static_cast<std::size_t>(rank)];
    if (rank != root) {
      // Per-node aggregation: hand the gradient to the node's first GPU (node stages time the reduce instead).
      if (!staged()) {
        if (!try_sendto(context_, rank, root, exchanges[e].push_bytes)) context_.take_out(rank, lost_connection(rank));
        context_.timeline.traffic[static_cast<std::size_t>(rank)].bytes_sent += exchanges[e].push_bytes;
        context_.timeline.traffic[static_cast<std::size_t>(root)].bytes_received += exchanges[e].push_bytes;
      }
      ++tasks_[key].gathered;
      task_changed_.notify_all();
    } else {
      sg4::Actor::create("ps-task", context_.hosts[static_cast<std::size_t>(root)],
                         [this, participant, iteration, bucket, e] { run_task(participant, iteration, bucket, e); });
    }
    // A later exchange of the bucket needs this one's result (PowerSGD's Q needs the summed P).
    const bool last = e + 1 == exchanges.size();
    if (!last) task_changed_.wait([&] { return done_.count(key) > 0; });
    else if (rank == root && setup_.credit_bytes <= 0 && !setup_.queued_pushes)
      task_changed_.wait([&] { return done_.count(key) > 0 || tasks_[key].pushed; });
  }
}

void PsExchanger::worker_failed(int rank) {
  // A node aggregates through its first GPU: one member out takes the node's participation with it.
  const int participant = participant_of(rank);
  for (int m : members_of(participant))
    if (m != rank) context_.take_out(m, "worker " + std::to_string(m) + " lost its node's aggregation");
  ledger_.retire(participant);
  // Its unfinished iteration goes back to the shared budget of asynchronous schemes.
  if (running_.erase(participant) > 0) started_ -= static_cast<long>(members_of(participant).size());
  for (Condition& c : piece_changed_) c.notify_all();
  task_changed_.notify_all();
}

bool PsExchanger::survives(const std::vector<int>& out) const {
  std::set<int> gone;
  for (int rank : out) gone.insert(participant_of(rank));
  const int left = participants_ - static_cast<int>(gone.size());
  // Rounds close with participants - backup pushes; asynchronous schemes need one participant.
  return setup_.sync.staleness_bound() == 0 ? left >= participants_ - setup_.sync.backup_workers : left > 0;
}

void PsExchanger::finish_iteration(int rank, int) {
  task_changed_.wait([&] { return outstanding_[static_cast<std::size_t>(rank)] == 0; });
}

void PsExchanger::run_task(int participant, int iteration, std::size_t bucket, std::size_t e) {
  const TaskKey key{participant, iteration, bucket, e};
  const auto members = members_of(participant);
  const int root = root_of(participant);
  {
    task_changed_.wait([&] { return tasks_[key].gathered == static_cast<int>(members.size()) - 1; });
  }
  const auto& pieces = pieces_[bucket][e];
  sg4::SemaphorePtr pushed = sg4::Semaphore::create(0);
  sg4::SemaphorePtr pulled = sg4::Semaphore::create(0);
  const int layer = setup_.bucket_layers[bucket];
  for (const Piece& piece : pieces)
    sg4::Actor::create("push", context_.hosts[static_cast<std::size_t>(root)],
                       [this, participant, iteration, piece, layer, pushed, pulled] {
                         stages_.run(participant, setup_.before_push, piece.push_bytes);
                         push_and_pull(participant, iteration, piece, layer, *pushed);
                         stages_.run(participant, setup_.after_pull, piece.pull_bytes);
                         pulled->release();
                       });
  for (std::size_t k = 0; k < pieces.size(); ++k) pushed->acquire();
  {
    tasks_[key].pushed = true;
    task_changed_.notify_all();
  }
  for (std::size_t k = 0; k < pieces.size(); ++k) pulled->acquire();
  const std::int64_t bytes = setup_.buckets[bucket][e].pull_bytes;
  // Back to the node's other GPUs, all at once (each on its own actor, as a failed one must not stop the rest).
  sg4::SemaphorePtr back = sg4::Semaphore::create(0);
  for (int m : members)
    if (m != root && !staged())
      sg4::Actor::create("ps-back", context_.hosts[static_cast<std::size_t>(root)], [this, root, m, bytes, back] {
        if (try_sendto(context_, root, m, bytes)) {
          context_.timeline.traffic[static_cast<std::size_t>(root)].bytes_sent += bytes;
          context_.timeline.traffic[static_cast<std::size_t>(m)].bytes_received += bytes;
        }
        back->release();
      });
  for (std::size_t k = 1; !staged() && k < members.size(); ++k) back->acquire();
  tasks_.erase(key);
  done_.insert(key);
  for (int m : members) --outstanding_[static_cast<std::size_t>(m)];
  task_changed_.notify_all();
}

void PsExchanger::push_and_pull(int participant, int iteration, const Piece& piece, int layer,
                                sg4::Semaphore& pushed) {
  const int root = root_of(participant);
  sg4::Host* worker = context_.hosts[static_cast<std::size_t>(root)];
  const int server_host = setup_.server_hosts[static_cast<std::size_t>(piece.server)];
  sg4::Host* server = context_.hosts[static_cast<std::size_t>(server_host)];
  const bool rounds = setup_.sync.staleness_bound() == 0;
  const int tag = rounds ? tag_[static_cast<std::size_t>(participant)] : iteration;
  run::WorkerTraffic& traffic = context_.timeline.traffic[static_cast<std::size_t>(root)];
  run::ServerLoad& load = context_.timeline.servers[static_cast<std::size_t>(piece.server)];
  // LAG: a skipped upload sends nothing; the server counts the participant's last gradient, already in its sum.
  const bool skipped = setup_.skip && setup_.skip(participant, iteration);
  if (!skipped) {
    piece_changed_[static_cast<std::size_t>(piece.id)].wait([&] { return ledger_.may_push(piece.id, participant); });
    acquire_credit(participant, layer, piece.push_bytes);
    // A colocated server on the worker's own host takes the push from memory.
    if (worker != server && !connections_.send(context_, root, server_host, piece.push_bytes))
      context_.take_out(root, lost_connection(root));
    release_credit(participant, piece.push_bytes);
    traffic.bytes_sent += piece.push_bytes;
    load.bytes_in += piece.push_bytes;
  }
  pushed.release();
  Server& s = servers_[static_cast<std::size_t>(piece.server)];
  s.queue.push_back({piece.id, participant, tag, iteration, skipped ? 0 : piece.push_bytes});
  s.pending->release();
  piece_changed_[static_cast<std::size_t>(piece.id)].wait([&] { return ledger_.may_pull(piece.id, participant, tag); });
  if (!rounds) {
    auto& histogram = context_.timeline.staleness;
    const auto staleness = static_cast<std::size_t>(ledger_.staleness(piece.id, iteration));
    if (histogram.size() <= staleness) histogram.resize(staleness + 1, 0);
    ++histogram[staleness];
  }
  if (worker != server && !connections_.send(context_, server_host, root, piece.pull_bytes))
    context_.take_out(root, lost_connection(root));
  traffic.bytes_received += piece.pull_bytes;
  load.bytes_out += piece.pull_bytes;
}

/// One push at a time: sum it into the partition's accumulator (unless its round is closed), then tell the
/// waiting pulls.
void PsExchanger::serve(int server) {
  Server& s = servers_[static_cast<std::size_t>(server)];
  run::ServerLoad& load = context_.timeline.servers[static_cast<std::size_t>(server)];
  for (;;) {
    s.pending->acquire();
    const Push push = s.queue.front();
    s.queue.pop_front();
    // A push for a closed round (backup workers) is dropped unsummed.
    const bool closed =
        setup_.sync.staleness_bound() == 0 && ledger_.may_pull(push.piece, push.participant, push.tag);
    if (setup_.summation_Bps && !closed) {
      const double busy = static_cast<double>(push.bytes) / *setup_.summation_Bps;
      sg4::this_actor::sleep_for(busy);
      load.busy_s += busy;
    }
    if (!ledger_.apply(push.piece, push.participant, push.tag)) ++dropped_[{push.participant, push.iteration}];
    piece_changed_[static_cast<std::size_t>(push.piece)].notify_all();
  }
}

void PsExchanger::acquire_credit(int participant, int layer, std::int64_t bytes) {
  if (setup_.credit_bytes <= 0) return;
  Credit& c = credits_[static_cast<std::size_t>(participant)];
  if (c.in_flight == 0 || (c.waiting.empty() && c.in_flight + bytes <= setup_.credit_bytes)) {
    c.in_flight += bytes;
    return;
  }
  sg4::SemaphorePtr wake = sg4::Semaphore::create(0);
  c.waiting.insert({layer, c.arrivals++, wake.get()});
  wake->acquire();
  c.in_flight += bytes;
}

void PsExchanger::release_credit(int participant, std::int64_t bytes) {
  if (setup_.credit_bytes <= 0) return;
  Credit& c = credits_[static_cast<std::size_t>(participant)];
  c.in_flight -= bytes;
  // Wake the highest-priority waiter; it takes its bytes when it runs, then the next one is considered at the
  // next release (one bucket partition may overdraw the credit, as in BytePS).
  if (!c.waiting.empty() && c.in_flight < setup_.credit_bytes) {
    // Unlink before releasing: a simcall lets other actors run (and change the set) before it returns.
    sg4::Semaphore* wake = std::get<2>(*c.waiting.begin());
    c.waiting.erase(c.waiting.begin());
    wake->release();
  }
}

}  // namespace dtsim::actors
