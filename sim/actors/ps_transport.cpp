#include "sim/actors/ps_transport.hpp"

#include <mutex>

#include <simgrid/s4u/Actor.hpp>

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;

bool Connections::send(const RunContext& context, int from, int to, std::int64_t bytes) {
  if (!in_order_) return try_sendto(context, from, to, bytes);
  sg4::MutexPtr& connection = connections_[{from, to}];
  if (!connection) connection = sg4::Mutex::create();
  const std::unique_lock<sg4::Mutex> in_order(*connection);
  return try_sendto(context, from, to, bytes);
}

void NodeStageResources::run(int participant, const std::vector<NodeStage>& stages, std::int64_t bytes) {
  std::vector<sg4::MutexPtr>& busy = busy_[participant];
  if (busy.empty())
    for (std::size_t k = 0; k < before_push_.size() + after_pull_.size(); ++k) busy.push_back(sg4::Mutex::create());
  const std::size_t first = &stages == &before_push_ ? 0 : before_push_.size();
  for (std::size_t k = 0; k < stages.size(); ++k) {
    const sg4::MutexPtr stage = busy[first + k];
    stage->lock();
    sg4::this_actor::sleep_for(stages[k].time_s(bytes));
    stage->unlock();
  }
}

}  // namespace dtsim::actors
