#include "sim/actors/execute_steps.hpp"

#include <algorithm>
#include <cmath>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;

void execute_steps(int rank, const std::vector<RankStep>& steps, StepContext& context,
                   const std::string& channel, run::WorkerTraffic& traffic,
                   std::vector<run::MessageArrow>* arrows, int trace_workers) {
  static char payload = 0;
  static char* sink = nullptr;
  const platform::Fabric& fabric = context.fabric;
  auto mailbox = [&](int to, int from) {
    auto by_name = [&] { return sg4::Mailbox::by_name(channel + std::to_string(to) + "<" + std::to_string(from)); };
    if (!channel.empty()) return by_name();
    sg4::Mailbox*& cached = context.mailboxes[(static_cast<std::uint64_t>(to) << 32) | static_cast<std::uint32_t>(from)];
    if (!cached) cached = by_name();
    return cached;
  };
  // A switch endpoint has no actor: the rank moves its own data to and from the reduction unit's host, and the
  // ranks sharing a step with the switch meet at a barrier after it (the switch sends the next step's sums once
  // it has all of this step's inputs: schedule_time_s's rule for the endpoint).
  auto unit = [&](int id) {
    return sg4::Host::by_name(fabric.vertex_name(fabric.endpoint_vertex(-1 - id)));
  };
  std::vector<sg4::CommPtr> pending;
  simgrid::kernel::actor::ActorImpl* self = sg4::Actor::self()->get_impl();
  sg4::Host* here = sg4::this_actor::get_host();
  for (const RankStep& step : steps) {
    pending.clear();
    double startups_s = 0;
    const std::span<const Flow> sends = step.sends(), receives = step.receives();
    // Every flow of a step carries the same step latency: each rank taking part waits it before its transfers.
    if (!step.flows.empty()) startups_s = step.flows.front().latency_s;
    for (const Flow& f : sends)
      if (f.steps > 1)
        startups_s = std::max(startups_s, f.latency_s + (f.steps - 1) * context.latency_factor *
                                                            fabric.path(f.transfer.from, f.transfer.to).latency_s);
    if (startups_s > 0) sg4::this_actor::sleep_for(startups_s);
    for (const Flow& f : sends) {
      const auto bytes = static_cast<uint64_t>(f.transfer.bytes);
      const double cap_Bps = fabric.spec().transfer_cap_Bps(rank, f.transfer.to);
      if (collectives::is_switch(f.transfer.to))
        pending.push_back(sg4::Comm::sendto_async(here, unit(f.transfer.to), bytes));
      else if (std::isinf(cap_Bps))
        pending.push_back(mailbox(f.transfer.to, rank)->put_async(&payload, bytes));
      else  // TCP between nodes: the transfer's connections bound its rate (PlatformSpec::transfer_cap_Bps)
        pending.push_back(mailbox(f.transfer.to, rank)->put_init(&payload, bytes)->set_rate(cap_Bps)->start());
      traffic.bytes_sent += f.transfer.bytes;
    }
    // The last receive from a rank is one blocking simcall without an s4u::Comm (Comm::recv); Mailbox::get is two
    // (get_async, then wait).
    const Flow* last = nullptr;
    for (const Flow& f : receives) {
      if (collectives::is_switch(f.transfer.from))
        pending.push_back(sg4::Comm::sendto_async(unit(f.transfer.from), here, static_cast<uint64_t>(f.transfer.bytes)));
      else if (last)
        pending.push_back(mailbox(rank, last->transfer.from)->get_async<char>(&sink));
      if (!collectives::is_switch(f.transfer.from)) last = &f;
    }
    if (last)
      sg4::Comm::recv(self, mailbox(rank, last->transfer.from), nullptr, nullptr, nullptr, nullptr, nullptr, -1, -1);
    for (const Flow& f : receives) traffic.bytes_received += f.transfer.bytes;
    for (const sg4::CommPtr& c : pending) c->wait();
    if (step.switch_ranks > 0) {
      sg4::BarrierPtr& meet = context.barriers[{channel, step.switch_ranks}];
      if (!meet) meet = sg4::Barrier::create(static_cast<unsigned>(step.switch_ranks));
      meet->wait();
    }
    if (arrows)
      for (std::size_t i = 0; i < sends.size(); ++i)
        if (!collectives::is_switch(sends[i].transfer.to) && sends[i].transfer.to < trace_workers)
          arrows->push_back({rank, sends[i].transfer.to, pending[i]->get_start_time(), pending[i]->get_finish_time(),
                             sends[i].transfer.bytes});
  }
}

}  // namespace dtsim::actors
