#include "sim/scenario/platform_section.hpp"

#include "sim/core/error.hpp"
#include "sim/scenario/section.hpp"

namespace dtsim::scenario {
namespace {

constexpr int kMaxHosts = 1 << 20;

platform::LinkSpec load_link(Section& parent, const std::string& key) {
  auto link = parent.table(key);
  if (!link)
    throw core::InputError(parent.where_table(), "missing table [platform." + key + "]",
                           "give its bandwidth and latency, e.g. bandwidth = \"10Gbps\", latency = \"5us\"");
  link->allow({"bandwidth", "latency"});
  platform::LinkSpec spec{link->bandwidth("bandwidth"), link->duration("latency")};
  link->finish();
  return spec;
}

}  // namespace

platform::PlatformSpec load_platform(const toml::table& table) {
  Section s(table, "platform");
  s.allow({"name", "description", "topology", "hosts", "link", "nodes", "gpus_per_node", "intra_link", "inter_link",
           "network"});
  platform::PlatformSpec spec;
  spec.name = s.required_string("name");
  spec.description = s.string("description", "");
  const std::string topology = s.choice("topology", "star", platform::topology_names());
  spec.topology = platform::parse_topology(topology);
  if (spec.topology == platform::Topology::star) {
    spec.nodes = static_cast<int>(s.required_integer("hosts", 1, kMaxHosts));
    spec.gpus_per_node = 1;
    spec.intra = load_link(s, "link");
  } else {
    spec.nodes = static_cast<int>(s.required_integer("nodes", 1, kMaxHosts));
    spec.gpus_per_node = static_cast<int>(s.required_integer("gpus_per_node", 1, 1024));
    if (static_cast<long long>(spec.nodes) * spec.gpus_per_node > kMaxHosts)
      throw core::InputError(s.where_key("nodes"), "nodes x gpus_per_node exceeds " + std::to_string(kMaxHosts),
                             "at most " + std::to_string(kMaxHosts) + " GPUs");
    spec.intra = load_link(s, "intra_link");
    spec.inter = load_link(s, "inter_link");
  }
  if (auto network = s.table("network")) {
    network->allow({"model"});
    spec.network_model = platform::parse_network_model(
        network->choice("model", "alpha_beta", platform::network_model_names()));
    network->finish();
  }
  s.finish();
  return spec;
}

}  // namespace dtsim::scenario
