#include "sim/scenario/platform_section.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/platform/describe_platform.hpp"
#include "sim/platform/fabric.hpp"

namespace dtsim::scenario {
namespace {

platform::PlatformSpec load_file(const std::string& name) {
  toml::table table = toml::parse_file(std::string(DTSIM_SOURCE_DIR) + "/platforms/" + name + ".toml");
  return load_platform(table);
}

TEST(PlatformFiles, FatTree1024A100IsTwoToOneAtTheLeaves) {
  const platform::PlatformDescription d = platform::describe_platform(load_file("fat_tree_1024_a100_hdr"));
  EXPECT_EQ(d.hosts, 1024);
  EXPECT_EQ(d.nodes, 128);
  EXPECT_EQ(d.switches, 16 + 4);
  EXPECT_EQ(d.oversubscription, std::vector<double>{2.0});
  EXPECT_DOUBLE_EQ(d.bisection_Bps, 8 * 4 * 200e9);  // 8 leaves of the first half, 4 uplinks of 1.6 Tb/s
  EXPECT_EQ(d.diameter_hops, 6);
  EXPECT_TRUE(d.sketch.empty());
}

TEST(PlatformFiles, EveryNewTopologyLoads) {
  const auto torus = load_file("torus_4x4x4_v100_100gbe");
  EXPECT_EQ(torus.nodes, 64);
  EXPECT_EQ(torus.torus_dims, (std::vector<int>{4, 4, 4}));
  EXPECT_EQ(platform::describe_platform(torus).diameter_hops, 2 + 2 + 6);  // GPU, NIC, 2 hops x 3 dims
  const auto dragonfly = load_file("dragonfly_256_slingshot");
  EXPECT_EQ(dragonfly.hosts(), 256);
  EXPECT_EQ(load_file("ring_8_v100_100gbe").hosts(), 32);
  EXPECT_EQ(load_file("full_mesh_4_v100_100gbe").hosts(), 16);
  const auto graph = load_file("graph_two_racks");
  EXPECT_EQ(graph.graph.edges.size(), 11u);
  EXPECT_EQ(graph.graph.edges[0].name, "node0-tor0");
  const platform::Fabric f(graph);
  std::vector<std::string> route;
  for (int l : f.node_route(0, 7)) route.push_back(f.links()[static_cast<std::size_t>(l)].name);
  EXPECT_EQ(route, (std::vector<std::string>{"node0-tor0_UP", "tor0-core_UP", "tor1-core_DOWN", "node7-tor1_DOWN"}));
}

/// The message load_platform gives for `text` (a file named p.toml).
std::string error_of(const std::string& text) {
  try {
    toml::table table = toml::parse(text, std::string("p.toml"));
    load_platform(table);
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "accepted";
}

const std::string kLinks = R"(
[intra_link]
bandwidth = "100GBps"
latency = "1us"
[inter_link]
bandwidth = "100Gbps"
latency = "1us"
[network_link]
bandwidth = "100Gbps"
latency = "1us"
)";

TEST(PlatformSection, ExactMessagesForBadTopologies) {
  EXPECT_EQ(error_of("name = \"x\"\ntopology = \"fat_tree\"\ngpus_per_node = 2\ndown = [4, 2]\nup = [2, 2]\n" + kLinks),
            "p.toml:5:6: 'platform.up[0]' = 2; a node has one NIC to one leaf switch, so the first entry is 1");
  EXPECT_EQ(error_of("name = \"x\"\ntopology = \"fat_tree\"\ngpus_per_node = 2\ndown = [4, 2]\nup = [1]\n" + kLinks),
            "p.toml:5:6: 'platform.up' has 1 entries and 'platform.down' 2; one entry per switch level in each list");
  EXPECT_EQ(error_of("name = \"x\"\ntopology = \"torus\"\ngpus_per_node = 2\ndims = [4, 0]\n" + kLinks),
            "p.toml:4:12: 'platform.dims[1]' = 0 is out of range; allowed: 1 to 65536");
  EXPECT_EQ(error_of("name = \"x\"\ntopology = \"torus\"\ngpus_per_node = 2\ndims = 4\n" + kLinks),
            "p.toml:4:8: 'platform.dims' must be a list of 1 to 6 integers; e.g. dims = [4, 4]");
  EXPECT_EQ(error_of("name = \"x\"\ntopology = \"ring\"\nnodes = 4\ngpus_per_node = 2\n[intra_link]\nbandwidth = "
                     "\"1GBps\"\nlatency = \"1us\"\n[inter_link]\nbandwidth = \"1GBps\"\nlatency = \"1us\"\n"),
            "p.toml:1:1: missing table [platform.network_link]; give its bandwidth and latency, e.g. bandwidth = "
            "\"10Gbps\", latency = \"5us\"");
  EXPECT_EQ(error_of("name = \"x\"\ntopology = \"dragonfly\"\ngpus_per_node = 2\ngroups = 3\nchassis = 1\nrouters = "
                     "0\nnodes_per_router = 1\n" +
                     kLinks),
            "p.toml:6:11: 'platform.routers' = 0 is out of range; allowed: 1 to 65536");
  EXPECT_EQ(error_of("name = \"x\"\ntopology = \"two_level\"\nnodes = 2\ngpus_per_node = 2\ndims = [2]\n" + kLinks),
            "p.toml:5:1: key 'platform.dims' does not apply here; used with these settings: description, gpu, "
            "gpus_per_node, inter_link, intra_link, name, network, nodes, topology");
}

TEST(PlatformSection, TwoLevelRefusesANetworkLink) {
  EXPECT_EQ(error_of("name = \"x\"\ntopology = \"two_level\"\nnodes = 2\ngpus_per_node = 2\n" + kLinks),
            "p.toml:12:2: key 'platform.network_link' does not apply here; used with these settings: description, gpu, "
            "gpus_per_node, inter_link, intra_link, name, network, nodes, topology");
}

const std::string kGraphHead = R"(name = "g"
topology = "graph"
nodes = 2
gpus_per_node = 1
switches = ["s"]
[intra_link]
bandwidth = "100GBps"
latency = "1us"
)";

TEST(PlatformSection, ExactMessagesForBadGraphs) {
  EXPECT_EQ(
      error_of(kGraphHead + "[[edges]]\nfrom = \"node0\"\nto = \"t\"\nbandwidth = \"1Gbps\"\nlatency = \"1us\"\n"),
      "p.toml:11:6: unknown vertex 't'; node0 .. node1 or a name from 'switches'");
  EXPECT_EQ(
      error_of(kGraphHead + "[[edges]]\nfrom = \"node0\"\nto = \"s\"\nbandwidth = \"1Gbps\"\nlatency = \"1us\"\n"),
      "p.toml:9:1: node1 cannot be reached from node0; the edges must connect every node to every other");
  EXPECT_EQ(
      error_of(kGraphHead + "[[edges]]\nfrom = \"node0\"\nto = \"s\"\nbandwidth = \"1Gbps\"\nlatency = \"1us\"\n" +
               "[[edges]]\nfrom = \"node0\"\nto = \"s\"\nbandwidth = \"1Gbps\"\nlatency = \"1us\"\n"),
      "p.toml:14:1: link name 'node0-s' is taken or reserved; give each edge a distinct 'name' not starting "
      "with 'gpu'");
  std::string bad_switch = kGraphHead;
  bad_switch.replace(bad_switch.find("[\"s\"]"), 5, "[\"s\", \"node9\"]");
  EXPECT_EQ(error_of(bad_switch),
            "p.toml:5:18: bad switch name 'node9'; switch names are distinct non-empty strings not starting with "
            "'gpu' or 'node' and not 'cluster'");
}

}  // namespace
}  // namespace dtsim::scenario
