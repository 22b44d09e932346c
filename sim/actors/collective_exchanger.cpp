#include "sim/actors/collective_exchanger.hpp"

#include <utility>

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>

#include "sim/actors/execute_steps.hpp"

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;

CollectiveExchanger::CollectiveExchanger(RunContext& context, FlowsOf flows, int iterations, bool fuse,
                                         bool concurrent)
    : context_(context), flows_(std::move(flows)), iterations_(iterations), fuse_(fuse), concurrent_(concurrent) {}

bool CollectiveExchanger::begin_iteration(int, int iteration) { return iteration < iterations_; }

void CollectiveExchanger::exchange(int rank, int iteration, std::size_t bucket) {
  // Without concurrency one mailbox per pair suffices (and is cached): a rank's messages to another arrive in
  // the order the plans send them. Concurrent buckets need their own mailboxes.
  const std::string channel =
      concurrent_ ? "i" + std::to_string(iteration) + "b" + std::to_string(bucket) + "e" : std::string();
  const IterationFlows of = flows_(iteration);
  const auto& exchanges = (*of.buckets)[bucket];
  for (std::size_t e = 0; e < exchanges.size(); ++e) {
    const ExchangeFlows& exchange = exchanges[e];
    if (exchange.before_s > 0) sg4::this_actor::sleep_for(exchange.before_s);
    // Message arrows: the message level, the first iteration, between traced workers.
    const bool arrows = !fuse_ && iteration == 0 && rank < context_.trace_workers;
    try {
      execute_steps(rank, (*exchange.flows)[static_cast<std::size_t>(rank)], context_.steps,
                    concurrent_ ? channel + std::to_string(e) : channel,
                    context_.timeline.traffic[static_cast<std::size_t>(rank)],
                    arrows ? &context_.timeline.messages : nullptr, context_.trace_workers);
    } catch (const simgrid::NetworkFailureException&) {
      context_.take_out(rank, lost_connection(rank));
    }
    if (fuse_) {
      auto& barrier = barriers_[{iteration, bucket, e}];
      if (!barrier) barrier = sg4::Barrier::create(static_cast<unsigned>(of.participants));
      barrier->wait();
    }
  }
}

}  // namespace dtsim::actors
