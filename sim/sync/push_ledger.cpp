#include "sim/sync/push_ledger.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::sync {

PushLedger::PushLedger(int partitions, int participants, SyncPolicy policy)
    : policy_(std::move(policy)), participants_(participants),
      round_(static_cast<std::size_t>(partitions), 0), accepted_(static_cast<std::size_t>(partitions), 0),
      pushed_(static_cast<std::size_t>(partitions), std::vector<int>(static_cast<std::size_t>(participants), 0)),
      retired_(static_cast<std::size_t>(participants), 0) {
  DTSIM_CHECK(participants > policy_.backup_workers, "a round needs at least one push");
}

bool PushLedger::rounds() const { return policy_.staleness_bound() == 0; }

bool PushLedger::apply(int partition, int participant, int tag) {
  const auto p = static_cast<std::size_t>(partition);
  if (!rounds()) {
    DTSIM_CHECK(tag == pushed_[p][static_cast<std::size_t>(participant)], "pushes of a participant come in order");
    ++pushed_[p][static_cast<std::size_t>(participant)];
    return true;
  }
  DTSIM_CHECK(tag <= round_[p], "a push is tagged with a version the server has made");
  if (tag < round_[p]) {
    ++dropped_;
    return false;
  }
  if (++accepted_[p] == participants_ - policy_.backup_workers) {
    ++round_[p];
    accepted_[p] = 0;
  }
  return true;
}

void PushLedger::retire(int participant) { retired_[static_cast<std::size_t>(participant)] = 1; }

int PushLedger::slowest(int partition) const {
  int slowest = -1;
  const auto& pushed = pushed_[static_cast<std::size_t>(partition)];
  for (std::size_t q = 0; q < pushed.size(); ++q)
    if (!retired_[q] && (slowest < 0 || pushed[q] < slowest)) slowest = pushed[q];
  return slowest;
}

bool PushLedger::may_pull(int partition, int participant, int tag) const {
  const auto p = static_cast<std::size_t>(partition);
  if (rounds()) return round_[p] > tag;
  if (pushed_[p][static_cast<std::size_t>(participant)] <= tag) return false;
  const std::optional<int> bound = policy_.staleness_bound();
  if (!bound) return true;
  const int slowest_pushed = slowest(partition);
  return slowest_pushed < 0 || slowest_pushed >= tag + 1 - *bound;
}

bool PushLedger::may_push(int partition, int participant) const {
  if (!policy_.rules().pushes_in_turn()) return true;
  const auto& pushed = pushed_[static_cast<std::size_t>(partition)];
  int before = participant;
  do before = (before + participants_ - 1) % participants_;
  while (before != participant && retired_[static_cast<std::size_t>(before)]);
  if (before == participant) return true;  // the only one left
  const int mine = pushed[static_cast<std::size_t>(participant)];
  return pushed[static_cast<std::size_t>(before)] >= (before < participant ? mine + 1 : mine);
}

int PushLedger::staleness(int partition, int iteration) const {
  if (rounds()) return 0;
  const int slowest_pushed = slowest(partition);
  return slowest_pushed < 0 ? 0 : std::max(0, iteration - (slowest_pushed - 1));
}

int PushLedger::version() const { return *std::min_element(round_.begin(), round_.end()); }

}  // namespace dtsim::sync
