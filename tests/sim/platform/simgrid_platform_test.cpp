#include "sim/platform/simgrid_platform.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

#include "sim/platform/fabric.hpp"
#include "sim/platform/simgrid_xml.hpp"
#include "tests/sim/platform/small_platforms.hpp"

namespace dtsim::platform {
namespace {

namespace sg4 = simgrid::s4u;

// Each test case runs in its own process (gtest_discover_tests): SimGrid allows one engine per process.
sg4::Engine make_engine() {
  int argc = 2;
  char name[] = "platform_test";
  char quiet[] = "--log=root.thresh:warning";
  char* argv[] = {name, quiet, nullptr};
  return sg4::Engine(&argc, argv);
}

/// Names of the engine's links but SimGrid's own loopback.
std::vector<std::string> link_names(const sg4::Engine& engine) {
  std::vector<std::string> names;
  for (const sg4::Link* l : engine.get_all_links())
    if (l->get_name() != "__loopback__") names.push_back(l->get_name());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> link_names(const Fabric& fabric) {
  std::vector<std::string> names;
  for (int id = 0; id < fabric.link_count(); ++id) names.push_back(fabric.link_name(id));
  std::sort(names.begin(), names.end());
  return names;
}

/// SimGrid's route from host a to host b equals Fabric::path: same link names, same latency.
void expect_same_route(const Fabric& fabric, const std::vector<sg4::Host*>& hosts, int a, int b) {
  std::vector<sg4::Link*> links;
  double latency_s = 0;
  hosts[static_cast<std::size_t>(a)]->route_to(hosts[static_cast<std::size_t>(b)], links, &latency_s);
  const core::Path p = fabric.path(a, b);
  std::vector<std::string> simgrid_names, fabric_names;
  for (const sg4::Link* l : links) simgrid_names.push_back(l->get_name());
  for (int l : p.links) fabric_names.push_back(fabric.link_name(l));
  EXPECT_EQ(simgrid_names, fabric_names) << a << " -> " << b;
  EXPECT_NEAR(latency_s, p.latency_s, 1e-15) << a << " -> " << b;
}

class SimGridRoutes : public ::testing::TestWithParam<std::string> {};

TEST_P(SimGridRoutes, EveryNeededPairRoutesAsFabricSays) {
  const PlatformSpec spec = testing::small_platform(parse_topology(GetParam()));
  sg4::Engine engine = make_engine();
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < spec.hosts(); ++a)
    for (int b = 0; b < spec.hosts(); ++b)
      if (a != b) pairs.emplace_back(a, b);
  const std::vector<sg4::Host*> hosts = build_simgrid_platform(spec, pairs);
  ASSERT_EQ(static_cast<int>(hosts.size()), spec.hosts());
  const Fabric fabric(spec);
  EXPECT_EQ(link_names(engine), link_names(fabric));
  for (const auto& [a, b] : pairs) expect_same_route(fabric, hosts, a, b);
}

INSTANTIATE_TEST_SUITE_P(Topologies, SimGridRoutes, ::testing::ValuesIn(topology_names()));

TEST(SimGridPlatform, OnlyTheNeededNodePairsAreDeclared) {
  const PlatformSpec spec = testing::small_platform(Topology::fat_tree);
  sg4::Engine engine = make_engine();
  const std::vector<sg4::Host*> hosts = build_simgrid_platform(spec, {{0, 15}, {2, 3}});
  const Fabric fabric(spec);
  expect_same_route(fabric, hosts, 0, 15);
  expect_same_route(fabric, hosts, 1, 14);  // same two nodes, other GPUs: the node route is shared
  expect_same_route(fabric, hosts, 2, 3);   // inside node 1: no network route needed
}

class CrossTrafficRoutes : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(CrossTrafficRoutes, AModelWithCrossTrafficAlsoGetsTheReverseOfEveryNeededPair) {
  // CM02 and LV08 load each flow's reverse route too (SimGrid's network/crosstraffic): the reverse of a needed
  // pair must be declared, or the flow level ends in "no route declared" (issue 31).
  const auto& [topology, model] = GetParam();
  PlatformSpec spec = testing::small_platform(parse_topology(topology));
  spec.network_model = parse_network_model(model);
  EXPECT_EQ(routes_both_ways(spec.network_model), model != "alpha_beta");
  sg4::Engine engine = make_engine();
  const int last = spec.hosts() - 1;
  const std::vector<sg4::Host*> hosts = build_simgrid_platform(spec, {{0, last}});
  const Fabric fabric(spec);
  expect_same_route(fabric, hosts, 0, last);
  if (routes_both_ways(spec.network_model)) expect_same_route(fabric, hosts, last, 0);
}

INSTANTIATE_TEST_SUITE_P(TopologiesAndModels, CrossTrafficRoutes,
                         ::testing::Combine(::testing::ValuesIn(topology_names()),
                                            ::testing::ValuesIn(network_model_names())),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

TEST(SimGridPlatform, AReductionUnitRoutesAsFabricSaysFromEveryNode) {
  // SHARP on a two-level cluster: the unit hangs off the top switch; each GPU reaches it over its node's NIC.
  PlatformSpec spec = testing::small_platform(Topology::two_level);
  spec.sharp = true;
  sg4::Engine engine = make_engine();
  const std::vector<sg4::Host*> hosts = build_simgrid_platform(spec, {});
  const Fabric fabric(spec);
  ASSERT_EQ(fabric.switch_endpoints(), 1);
  sg4::Host* unit = sg4::Host::by_name(fabric.vertex_name(fabric.endpoint_vertex(0)));
  for (int h = 0; h < spec.hosts(); ++h)
    for (const bool to_unit : {true, false}) {
      std::vector<sg4::Link*> links;
      double latency_s = 0;
      const core::Path p = to_unit ? fabric.path(h, -1) : fabric.path(-1, h);
      (to_unit ? hosts[static_cast<std::size_t>(h)] : unit)
          ->route_to(to_unit ? unit : hosts[static_cast<std::size_t>(h)], links, &latency_s);
      std::vector<std::string> simgrid_names, fabric_names;
      for (const sg4::Link* l : links) simgrid_names.push_back(l->get_name());
      for (int l : p.links) fabric_names.push_back(fabric.link_name(l));
      EXPECT_EQ(simgrid_names, fabric_names) << h << (to_unit ? " -> unit" : " <- unit");
      EXPECT_NEAR(latency_s, p.latency_s, 1e-15) << h;
    }
}

class SimGridXml : public ::testing::TestWithParam<std::string> {};

TEST_P(SimGridXml, ExportLoadsInSimGridWithFabricsHostsLinksAndRoutes) {
  const PlatformSpec spec = testing::small_platform(parse_topology(GetParam()));
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("dtsim_platform_" + GetParam() + "_" + std::to_string(::getpid()) + ".xml");
  std::ofstream(file) << export_simgrid_xml(spec);
  sg4::Engine engine = make_engine();
  engine.load_platform(file.string());
  std::filesystem::remove(file);
  const Fabric fabric(spec);
  EXPECT_EQ(static_cast<int>(engine.get_host_count()), spec.hosts());
  EXPECT_EQ(link_names(engine), link_names(fabric));
  std::vector<sg4::Host*> hosts;
  for (int h = 0; h < spec.hosts(); ++h) hosts.push_back(engine.host_by_name("gpu" + std::to_string(h)));
  for (int a = 0; a < spec.hosts(); ++a)
    for (int b = 0; b < spec.hosts(); ++b)
      if (a != b) expect_same_route(fabric, hosts, a, b);
}

INSTANTIATE_TEST_SUITE_P(Topologies, SimGridXml, ::testing::ValuesIn(topology_names()));

}  // namespace
}  // namespace dtsim::platform
