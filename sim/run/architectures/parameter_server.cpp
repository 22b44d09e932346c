// ps: workers push their gradients to servers that sum them and pull the aggregate back (Li et al., OSDI 2014).
// Servers on the hosts after the workers, spread over nodes first (dedicated), or server s on worker s's host
// (colocated); each bucket split evenly over the servers (or cut into [strategy.ps] partition pieces) dealt
// round-robin; with hierarchical = true a node's other GPUs send their gradient to its first GPU, which pushes
// and pulls for the node and sends the aggregate back. The exchange is timed in server_exchange.cpp.
#include <fmt/format.h>

#include <memory>

#include "sim/core/units.hpp"
#include "sim/run/architectures/server_exchange.hpp"
#include "sim/run/run_simulation.hpp"

namespace dtsim::run {
namespace {

actors::PsSetup ps_setup(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                         const std::vector<scheduling::BucketWork>& work) {
  actors::PsSetup setup = server_setup(s, plan, work);
  if (s.ps.dedicated) {
    setup.server_hosts = dedicated_server_hosts(s);
  } else {
    for (int k = 0; k < s.ps.servers; ++k) setup.server_hosts.push_back(k);
  }
  return setup;
}

class ParameterServer final : public Architecture {
 public:
  std::string describe(const scenario::Scenario& s) const override {
    const scenario::ParameterServer& ps = s.ps;
    std::string words = "parameter server (" + std::to_string(ps.servers) + (ps.dedicated ? " dedicated" : " colocated") +
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
    return server_simulated(std::make_shared<actors::PsSetup>(ps_setup(in.scenario, in.plan, in.work)), in);
  }

  std::optional<AnalyticExchange> analytic(AnalyticInput& in) const override {
    return server_analytic(ps_setup(in.scenario, in.plan, in.work), in);
  }

  std::optional<actors::ServerExchange> layout_servers(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                                                       const std::vector<scheduling::BucketWork>& work,
                                                       const std::vector<std::vector<int>>& groups) const override {
    return layout_server_exchange(ps_setup(s, plan, work), groups);
  }

  /// The aggregate a worker pulls (one gradient's bytes, a layout's stage's); a colocated server also sums its
  /// partitions in the GPU of its host. Dedicated servers run on hosts of their own.
  void add_buffers(const scenario::Scenario& s, const scheduling::IterationPlan& plan, int replicas,
                   memory::MemoryItem& item, std::string& where) const override {
    add_to(item, gradient_wire_bytes(plan), "the pulled aggregate");
    if (s.ps.dedicated) return;
    if (replicas != s.workers) {  // a layout: the servers sum every stage's and tensor rank's pushes
      item.detail += " (a colocated server's sums of every stage's pushes not counted on a layout)";
      return;
    }
    const auto [bytes, server] = fullest_server(ps_setup(s, plan, bucket_work(plan)));
    add_to(item, bytes, "its colocated server's sums");
    where = fmt::format("worker {0}, with server {0}", server);
  }
};

}  // namespace

const Architecture& ps_architecture() {
  static const ParameterServer architecture;
  return architecture;
}

}  // namespace dtsim::run
