// ps and byteps: workers push their gradients to servers that sum them and pull the aggregate back (Li et al.,
// OSDI 2014); BytePS places the servers on CPU machines of their own and partitions the tensors across them
// (Jiang et al., OSDI 2020). The two differ only in their name and the defaults the loader gives them.
#include "sim/run/architecture.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "sim/actors/ps_exchanger.hpp"
#include "sim/core/units.hpp"
#include "sim/platform/link_traffic.hpp"
#include "sim/run/architecture_setup.hpp"
#include "sim/run/capacity.hpp"
#include "sim/run/run_simulation.hpp"

namespace dtsim::run {
namespace {

class ParameterServer final : public Architecture {
 public:
  explicit ParameterServer(const char* title) : title_(title) {}

  std::string describe(const scenario::Scenario& s) const override {
    const scenario::ParameterServer& ps = s.ps;
    std::string words = title_ + " (" + std::to_string(ps.servers) + (ps.dedicated ? " dedicated" : " colocated") +
                        (ps.servers == 1 ? " server" : " servers") + ", partitions " +
                        (ps.partition_bytes > 0 ? core::format_bytes(static_cast<double>(ps.partition_bytes))
                                                : std::string("1 per server")) +
                        ", summation " +
                        (ps.summation_Bps ? fmt::format("{:.3g} GB/s", *ps.summation_Bps / 1e9) : std::string("free"));
    if (ps.hierarchical) words += ", per-node aggregation";
    if (ps.credit_bytes > 0) words += ", credit " + core::format_bytes(static_cast<double>(ps.credit_bytes));
    if (ps.pull == "compressed") words += ", compressed pull";
    return words + ")";
  }


  SimulatedExchange simulated(ExchangeInput& in) const override {
    const scenario::Scenario& s = in.scenario;
    auto setup = std::make_shared<actors::PsSetup>(ps_setup(s, in.plan, in.work));
    setup->skip = in.skip;
    const ActorCount actors = ps_actors(*setup);
    refuse_oversized(s, actors, core::read_process_limits(),
                     "fuse buckets (scheduler = \"ddp\" or \"fusion\"), fewer servers or larger partitions, "
                     "per-node aggregation, or fewer workers");
    platform::add_link_bytes(ps_traffic(*setup, s.platform.hosts()), 1, in.fabric, in.link_bytes);
    return {[setup](actors::RunContext& c) { return std::make_unique<actors::PsExchanger>(c, *setup); },
            actors::ps_pairs(*setup), actors.actors};
  }

  /// The aggregate a worker pulls (one gradient's bytes); a colocated server also sums its partitions in the GPU
  /// of its host. Dedicated servers run on hosts of their own (BytePS: CPU machines).
  void add_buffers(const scenario::Scenario& s, const scheduling::IterationPlan& plan, memory::MemoryItem& item,
                   std::string& where) const override {
    add_to(item, gradient_wire_bytes(plan), "the pulled aggregate");
    if (s.ps.dedicated) return;
    std::vector<double> held(static_cast<std::size_t>(s.ps.servers), 0.0);
    const actors::PsSetup setup = ps_setup(s, plan, bucket_work(plan));
    for (const auto& bucket : actors::ps_pieces(setup))
      for (const auto& exchange : bucket)
        for (const actors::PsPiece& piece : exchange)
          held[static_cast<std::size_t>(piece.server)] += static_cast<double>(piece.push_bytes);
    const auto fullest = std::max_element(held.begin(), held.end());
    add_to(item, *fullest, "its colocated server's sums");
    where = fmt::format("worker {0}, with server {0}", fullest - held.begin());
  }

 private:
  std::string title_;
};

}  // namespace

const Architecture& ps_architecture() {
  static const ParameterServer architecture("parameter server");
  return architecture;
}

const Architecture& byteps_architecture() {
  static const ParameterServer architecture("BytePS");
  return architecture;
}

}  // namespace dtsim::run
