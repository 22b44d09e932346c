#include "sim/scenario/platform_section.hpp"

#include <gtest/gtest.h>

#include <cmath>

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
  for (int l : f.node_route(0, 7)) route.push_back(f.link_name(l));
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

TEST(PlatformSection, TcpTransportKeys) {
  const std::string star = "name = \"x\"\nhosts = 2\n[link]\nbandwidth = \"100Gbps\"\nlatency = \"1us\"\n";
  toml::table rdma = toml::parse(star, std::string("p.toml"));
  const platform::PlatformSpec line_rate = load_platform(rdma);
  EXPECT_EQ(line_rate.transport, platform::Transport::rdma);
  EXPECT_TRUE(std::isinf(line_rate.transfer_cap_Bps(0, 1)));
  toml::table tcp = toml::parse(star + "[network]\ntransport = \"tcp\"\ntcp_connections = 4\n", std::string("p.toml"));
  const platform::PlatformSpec sockets = load_platform(tcp);
  EXPECT_EQ(sockets.tcp.connections, 4);
  EXPECT_DOUBLE_EQ(sockets.transfer_cap_Bps(0, 1), 4 * 42e9 / 8);  // the default stream: Cai et al. 2021
  toml::table stream = toml::parse(star + "[network]\ntransport = \"tcp\"\ntcp_stream_bandwidth = \"20Gbps\"\n",
                                   std::string("p.toml"));
  EXPECT_DOUBLE_EQ(load_platform(stream).transfer_cap_Bps(1, 0), 20e9 / 8);
  EXPECT_EQ(error_of(star + "[network]\ntcp_connections = 4\n"),
            "p.toml:7:1: key 'platform.network.tcp_connections' does not apply here; used with these settings: model, "
            "transport");
  EXPECT_EQ(error_of(star + "[network]\ntransport = \"tcp\"\ntcp_connections = 0\n"),
            "p.toml:8:19: 'platform.network.tcp_connections' = 0 is out of range; allowed: 1 to 1024");
  EXPECT_EQ(error_of(star + "[network]\ntransport = \"udp\"\n"),
            "p.toml:7:13: unknown platform.network.transport 'udp'; did you mean 'tcp'? known: rdma, tcp");
}

// Over TCP the network links carry payload at (MTU - 52) / (MTU + 38) of their line rate: IPv4, TCP and its
// timestamps inside each MTU, preamble, Ethernet header, FCS and gap around it. 1448 / 1538 at 1500 B (the default),
// 8948 / 9038 at 9000 B; a star's host links are the network; a two-level node's GPU links are not.
TEST(PlatformSection, TcpLinksCarryPayloadInEthernetFrames) {
  const std::string star = "name = \"x\"\nhosts = 2\n[link]\nbandwidth = \"10Gbps\"\nlatency = \"1us\"\n";
  toml::table framed = toml::parse(star + "[network]\ntransport = \"tcp\"\n", std::string("p.toml"));
  const platform::PlatformSpec spec = load_platform(framed);
  EXPECT_DOUBLE_EQ(spec.intra.bandwidth_Bps, 10e9 / 8 * 1448.0 / 1538.0);
  EXPECT_DOUBLE_EQ(spec.intra.line_rate(), 10e9 / 8);
  EXPECT_DOUBLE_EQ(spec.intra.latency_s, 1e-6);
  toml::table jumbo = toml::parse(star + "[network]\ntransport = \"tcp\"\ntcp_mtu = \"9000B\"\n", std::string("p.toml"));
  EXPECT_DOUBLE_EQ(load_platform(jumbo).intra.bandwidth_Bps, 10e9 / 8 * 8948.0 / 9038.0);
  toml::table rdma = toml::parse(star, std::string("p.toml"));
  EXPECT_DOUBLE_EQ(load_platform(rdma).intra.bandwidth_Bps, 10e9 / 8);  // RDMA: the link's rate as given
  const std::string two_level =
      "name = \"y\"\ntopology = \"two_level\"\nnodes = 2\ngpus_per_node = 2\n[intra_link]\nbandwidth = "
      "\"100Gbps\"\nlatency = \"1us\"\n[inter_link]\nbandwidth = \"10Gbps\"\nlatency = \"5us\"\n[network]\ntransport = \"tcp\"\n";
  toml::table nodes = toml::parse(two_level, std::string("p.toml"));
  const platform::PlatformSpec tl = load_platform(nodes);
  EXPECT_DOUBLE_EQ(tl.inter.bandwidth_Bps, 10e9 / 8 * 1448.0 / 1538.0);
  EXPECT_DOUBLE_EQ(tl.intra.bandwidth_Bps, 100e9 / 8);
  EXPECT_EQ(error_of(star + "[network]\ntransport = \"tcp\"\ntcp_mtu = \"100B\"\n"),
            "p.toml:8:11: 'platform.network.tcp_mtu' = 100 bytes; allowed: 576B (IPv4's minimum) to 9216B (jumbo "
            "frames); Ethernet's default is 1500B");
  EXPECT_EQ(error_of(star + "[network]\ntcp_mtu = \"1500B\"\n"),
            "p.toml:7:1: key 'platform.network.tcp_mtu' does not apply here; used with these settings: model, "
            "transport");
}

TEST(PlatformSection, TcpCapsOnlyTransfersBetweenNodes) {
  platform::PlatformSpec s;
  s.topology = platform::Topology::two_level;
  s.nodes = 2;
  s.gpus_per_node = 2;
  s.intra = {100e9, 1e-6};
  s.inter = {12.5e9, 1e-6};
  s.transport = platform::Transport::tcp;
  s.tcp = {1e9, 3};
  EXPECT_TRUE(std::isinf(s.transfer_cap_Bps(0, 1)));  // inside a node: NVLink or shared memory, no socket
  EXPECT_DOUBLE_EQ(s.transfer_cap_Bps(1, 2), 3e9);
  EXPECT_TRUE(std::isinf(s.transfer_cap_Bps(0, -1)));  // a switch's reduction unit
  const platform::Fabric fabric(s);
  EXPECT_DOUBLE_EQ(fabric.path(3, 0).rate_cap_Bps, 3e9);
  EXPECT_TRUE(std::isinf(fabric.path(2, 3).rate_cap_Bps));
  EXPECT_DOUBLE_EQ(1 / platform::link_costs(s).inter.beta_s_per_byte, 3e9);  // the closed forms' inter-node bandwidth
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

/// A two_level platform of 2 nodes of 4 GPUs with a structured node; `node` is the body of [node].
std::string structured_file(const std::string& node, const std::string& extra = "") {
  return "name = \"s\"\ntopology = \"two_level\"\nnodes = 2\ngpus_per_node = 4\n" + extra +
         "[inter_link]\nbandwidth = \"100Gbps\"\nlatency = \"1us\"\n[node]\n" + node +
         "[node.pcie]\nbandwidth = \"16GBps\"\nlatency = \"1us\"\n";
}

const std::string kNvlink = "[node.nvlink]\nbandwidth = \"25GBps\"\nlatency = \"1us\"\n";

TEST(PlatformSection, StructuredNodeLoads) {
  toml::table table = toml::parse(
      structured_file("fabric = \"nvlink_mesh\"\nnvlinks = [[0, 2, 1, 0], [2, 0, 0, 1], [1, 0, 0, 2], [0, 1, 2, 0]]\n"
                      "pcie_switches = 2\nnics = 2\ngpu_nic = [1, 1, 0, 0]\ngpudirect = false\n" +
                      kNvlink),
      std::string("p.toml"));
  const platform::PlatformSpec spec = load_platform(table);
  EXPECT_TRUE(spec.node.structured);
  EXPECT_EQ(spec.node.fabric, platform::NodeFabric::nvlink_mesh);
  EXPECT_EQ(spec.node.nvlinks[0][1], 2);
  EXPECT_EQ(spec.node.gpu_nic, (std::vector<int>{1, 1, 0, 0}));
  EXPECT_FALSE(spec.node.gpudirect);
  EXPECT_FALSE(spec.node.rails);
  EXPECT_DOUBLE_EQ(spec.node.pcie.bandwidth_Bps, 16e9);
  EXPECT_DOUBLE_EQ(spec.inter.bandwidth_Bps, 12.5e9);
}

TEST(PlatformSection, ExactMessagesForBadStructuredNodes) {
  EXPECT_EQ(error_of(structured_file("fabric = \"nvswitch\"\nnvswitch = 1\n" + kNvlink)),
            "p.toml:10:1: unknown key 'platform.node.nvswitch'; allowed in [platform.node]: fabric, nvlink, nvlinks, "
            "pcie, pcie_switches, nics, gpu_nic, gpudirect, rails, nodes_per_leaf, units_per_pod, "
            "core_oversubscription, nvls, nvlink_payload, pcie_max_payload");
  EXPECT_EQ(error_of(structured_file("nics = 2\n")),
            "p.toml:8:1: missing key 'platform.node.fabric'; what joins the GPUs: nvswitch, nvlink_mesh, pcie");
  std::string fat_tree = structured_file("fabric = \"nvswitch\"\n" + kNvlink);
  fat_tree.replace(fat_tree.find("two_level"), 9, "fat_tree");
  EXPECT_EQ(error_of(fat_tree),
            "p.toml:8:1: [platform.node] with topology = \"fat_tree\"; structured nodes need topology = \"two_level\" "
            "(their NICs on one switch or on rails)");
  EXPECT_EQ(error_of(structured_file("fabric = \"nvswitch\"\n" + kNvlink,
                                     "[intra_link]\nbandwidth = \"1GBps\"\nlatency = \"1us\"\n")),
            "p.toml:5:1: [platform.intra_link] with [platform.node]; a structured node's GPUs use "
            "[platform.node.nvlink] and [platform.node.pcie]");
  EXPECT_EQ(error_of(structured_file("fabric = \"nvlink_mesh\"\nnvlinks = \"hybrid_cube_mesh\"\n" + kNvlink)),
            "p.toml:10:11: hybrid_cube_mesh joins 8 GPUs, but gpus_per_node = 4; gpus_per_node = 8, or give the "
            "NVLinks as a matrix");
  EXPECT_EQ(error_of(structured_file("fabric = \"nvlink_mesh\"\nnvlinks = \"torus\"\n" + kNvlink)),
            "p.toml:10:11: unknown NVLink topology 'torus'; known: hybrid_cube_mesh");
  EXPECT_EQ(
      error_of(structured_file(
          "fabric = \"nvlink_mesh\"\nnvlinks = [[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]\n" + kNvlink)),
      "p.toml:10:26: nvlinks[1][0] = 0 but nvlinks[0][1] = 1; an NVLink joins both GPUs: the matrix is symmetric");
  EXPECT_EQ(
      error_of(structured_file(
          "fabric = \"nvlink_mesh\"\nnvlinks = [[1, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]\n" + kNvlink)),
      "p.toml:10:13: 'platform.node.nvlinks[0][0]' = 1: a GPU linked to itself; 0 on the diagonal");
  EXPECT_EQ(error_of(structured_file("fabric = \"nvlink_mesh\"\nnvlinks = [[0, 0], [0, 0]]\n" + kNvlink)),
            "p.toml:10:11: 'platform.node.nvlinks' must be \"hybrid_cube_mesh\" or 4 lists of 4 integers; row i, "
            "column j = NVLinks between GPUs i and j of a node (gpus_per_node = 4)");
  EXPECT_EQ(error_of(structured_file("fabric = \"nvlink_mesh\"\n" + kNvlink)),
            "p.toml:8:1: missing key 'platform.node.nvlinks'; fabric = \"nvlink_mesh\" needs the NVLinks per GPU pair: "
            "\"hybrid_cube_mesh\" (DGX-1, 8 GPUs) or a 4 x 4 matrix");
  EXPECT_EQ(error_of(structured_file("fabric = \"pcie\"\nnics = 2\ngpu_nic = [0, 1, 2, 0]\n")),
            "p.toml:11:18: 'platform.node.gpu_nic[2]' names no NIC of the node; NICs are numbered 0 to 1 (nics = 2)");
  EXPECT_EQ(
      error_of(structured_file("fabric = \"pcie\"\nnics = 2\ngpu_nic = [0, 1]\n")),
      "p.toml:11:11: 'platform.node.gpu_nic' must list one NIC per GPU; 4 integers (gpus_per_node), e.g. [0, 0, 1, 1]");
  EXPECT_EQ(error_of(structured_file("fabric = \"pcie\"\nnics = 5\n")),
            "p.toml:10:8: 'platform.node.nics' = 5 is out of range; allowed: 1 to 4");
  EXPECT_EQ(error_of(structured_file("fabric = \"pcie\"\nrails = true\n")),
            "p.toml:10:9: rails = true with one NIC per node; rails put NIC k of every node on switch k: give nics >= "
            "2, or rails = false");
  EXPECT_EQ(error_of(structured_file("fabric = \"pcie\"\nnics = 2\nrails = true\n")),
            "p.toml:1:1: missing table [platform.network_link]; give its bandwidth and latency, e.g. bandwidth = "
            "\"10Gbps\", latency = \"5us\"");
  EXPECT_EQ(error_of(structured_file("fabric = \"pcie\"\n" + kNvlink)),
            "p.toml:10:7: key 'platform.node.nvlink' does not apply here; used with these settings: fabric, gpu_nic, "
            "gpudirect, nics, pcie, pcie_max_payload, pcie_switches, rails");
  EXPECT_EQ(error_of(structured_file("fabric = \"nvswitch\"\n")),
            "p.toml:8:1: missing table [platform.node.nvlink]; give its bandwidth and latency, e.g. bandwidth = "
            "\"10Gbps\", latency = \"5us\"");
}

TEST(PlatformSection, StructuredNodeDefaultsAreRecorded) {
  toml::table table = toml::parse(structured_file("fabric = \"pcie\"\nnics = 2\n"), std::string("p.toml"));
  load_platform(table);
  const toml::table& node = *table["node"].as_table();
  EXPECT_EQ(node["gpu_nic"].as_array()->size(), 4u);
  EXPECT_EQ(node["gpu_nic"][2].value<int>(), 1);  // GPU 2 of 4 uses NIC 2 x 2 / 4
  EXPECT_EQ(node["pcie_switches"].value<int>(), 1);
  EXPECT_EQ(node["gpudirect"].value<bool>(), true);
  EXPECT_EQ(node["rails"].value<bool>(), false);
}

const std::string kNetworkLink = "[network_link]\nbandwidth = \"1GBps\"\nlatency = \"1us\"\n";

TEST(PlatformSection, NodesPerLeafLoadsWithRails) {
  const auto load = [](const std::string& node) {
    toml::table table = toml::parse(structured_file(node, kNetworkLink), std::string("p.toml"));
    return load_platform(table).node.nodes_per_leaf;
  };
  EXPECT_EQ(load("fabric = \"pcie\"\nnics = 2\nrails = true\nnodes_per_leaf = 20\n"), 20);
  EXPECT_EQ(load("fabric = \"pcie\"\nnics = 2\nrails = true\n"), 0);  // absent: one leaf for the whole rail
}

TEST(PlatformSection, NodesPerLeafOnlyWithRailsAndAtLeastOne) {
  EXPECT_EQ(error_of(structured_file("fabric = \"pcie\"\nnics = 2\nnodes_per_leaf = 20\n")),
            "p.toml:11:18: nodes_per_leaf with rails = false; it is the nodes under one leaf switch of a rail: set "
            "rails = true, or leave it out");
  EXPECT_EQ(error_of(structured_file("fabric = \"pcie\"\nnics = 2\nrails = true\nnodes_per_leaf = 0\n",
                                     kNetworkLink)),
            "p.toml:15:18: 'platform.node.nodes_per_leaf' = 0 is out of range; allowed: 1 to 131072");
}

TEST(PlatformSection, NetworkLinkOnlyWithRails) {
  EXPECT_EQ(error_of(structured_file("fabric = \"pcie\"\nnics = 2\n",
                                     "[network_link]\nbandwidth = \"1GBps\"\nlatency = \"1us\"\n")),
            "p.toml:5:1: [platform.network_link] with rails = false; it is the rails' link to the spine: set rails = "
            "true, or leave it out (copy a built-in platform to a file of your own to drop it)");
}

TEST(PlatformFiles, DgxPlatformsLoadWithTheirStructure) {
  const auto dgx1 = load_file("dgx1_v100");
  EXPECT_EQ(dgx1.node.fabric, platform::NodeFabric::nvlink_mesh);
  EXPECT_EQ(dgx1.node.nvlinks, platform::hybrid_cube_mesh());
  EXPECT_EQ(dgx1.node.gpu_nic, (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3}));
  const auto a100 = load_file("dgx_a100");
  EXPECT_EQ(a100.node.fabric, platform::NodeFabric::nvswitch);
  EXPECT_DOUBLE_EQ(a100.node.nvlink.bandwidth_Bps, 300e9);
  EXPECT_EQ(a100.node.nics, 8);
  EXPECT_TRUE(a100.node.rails);
  EXPECT_EQ(a100.node.nodes_per_leaf, 20);  // a DGX SuperPOD scalable unit
  const auto h100 = load_file("dgx_h100");
  EXPECT_EQ(h100.node.nodes_per_leaf, 32);
  EXPECT_DOUBLE_EQ(h100.node.nvlink.bandwidth_Bps, 450e9);
  EXPECT_DOUBLE_EQ(h100.inter.bandwidth_Bps, 50e9);
  EXPECT_EQ(h100.node.pcie_switches, 8);
  const auto pcie = load_file("pcie_v100");
  EXPECT_EQ(pcie.node.fabric, platform::NodeFabric::pcie);
  EXPECT_EQ(pcie.node.nics, 1);
  for (const auto& spec : {dgx1, a100, h100, pcie}) {
    EXPECT_EQ(spec.hosts(), 32);
    const platform::Fabric f(spec);
    // GPU 0 of node 0 to GPU 0 of node 1 leaves and enters through NIC 0 of each node.
    std::vector<std::string> route;
    for (int l : f.path(0, 8).links) route.push_back(f.link_name(l));
    EXPECT_EQ(route[2], "node0_nic0_UP") << spec.name;
    EXPECT_EQ(route[route.size() - 3], "node1_nic0_DOWN") << spec.name;
  }
}

TEST(PlatformFiles, NewSystemsLoadWithTheirDatasheetLinks) {
  const auto h200 = load_file("dgx_h200");
  EXPECT_EQ(h200.gpu, "h200");
  EXPECT_DOUBLE_EQ(h200.node.nvlink.bandwidth_Bps, 450e9);  // NVLink 4, 900 GB/s both ways
  EXPECT_EQ(h200.node.nodes_per_leaf, 32);
  const auto b200 = load_file("dgx_b200");
  EXPECT_EQ(b200.gpu, "b200");
  EXPECT_DOUBLE_EQ(b200.node.nvlink.bandwidth_Bps, 900e9);  // NVLink 5, 1.8 TB/s both ways
  EXPECT_DOUBLE_EQ(b200.inter.bandwidth_Bps, 50e9);         // 400 Gb/s ConnectX-7
  EXPECT_EQ(b200.node.nics, 8);
  EXPECT_TRUE(b200.node.rails);
  EXPECT_EQ(platform::nvswitch_nvlinks(b200.node), 36);  // in NVLink 3/4 units of 25 GB/s: 18 NVLink 5 links of 50
  const auto nvl72 = load_file("gb200_nvl72");
  EXPECT_EQ(nvl72.gpu, "gb200");
  EXPECT_EQ(nvl72.hosts(), 72);  // one NVLink domain of 72 GPUs
  EXPECT_EQ(nvl72.node.fabric, platform::NodeFabric::nvswitch);
  EXPECT_DOUBLE_EQ(nvl72.node.nvlink.bandwidth_Bps, 900e9);
  EXPECT_EQ(nvl72.node.nics, 72);
  const auto mi300x = load_file("mi300x_8");
  EXPECT_EQ(mi300x.gpu, "mi300x");
  EXPECT_EQ(mi300x.node.fabric, platform::NodeFabric::nvlink_mesh);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) EXPECT_EQ(mi300x.node.nvlinks[i][j], i == j ? 0 : 1);  // Infinity Fabric full mesh
  EXPECT_DOUBLE_EQ(mi300x.node.nvlink.bandwidth_Bps, 64e9);
  // Inside a node: one hop; GPU 0 of the NVL72 to GPU 71 through the NVLink switch, never a NIC.
  for (const auto& spec : {h200, b200, nvl72, mi300x}) {
    const platform::Fabric f(spec);
    const int last = spec.gpus_per_node - 1;
    const core::Path p = f.path(0, last);
    EXPECT_EQ(p.links.size(), spec.node.fabric == platform::NodeFabric::nvswitch ? 2U : 1U) << spec.name;
    for (int l : p.links) EXPECT_DOUBLE_EQ(f.link_bandwidth_Bps(l), spec.node.nvlink.bandwidth_Bps) << spec.name;
  }
}

TEST(PlatformSection, StructuredPlatformsReach131072Gpus) {
  toml::table table = toml::parse_file(std::string(DTSIM_SOURCE_DIR) + "/platforms/dgx_h100.toml");
  table.insert_or_assign("nodes", 16384);
  const platform::PlatformSpec spec = load_platform(table);
  EXPECT_EQ(spec.hosts(), 131072);
  EXPECT_EQ(spec.rail_leaves(), 512);  // 512 scalable units of 32 nodes
  const platform::Fabric f(spec);      // the analytic level's fabric: per-node vertices, routes on demand
  EXPECT_EQ(f.path(0, 131071).links.size(), 8U);  // GPU, NIC up, rail 0 -> spine -> rail 7, NIC down, GPU
  table.insert_or_assign("nodes", 16385);
  try {
    load_platform(table);
    ADD_FAILURE() << "16,385 nodes of 8 GPUs loaded";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("allowed: 1 to 16384"), std::string::npos) << e.what();
  }
}

/// dgx_h100 grown to `nodes` nodes, as a three-tier fabric of pods of `units` scalable units.
toml::table three_tier(int nodes, int units, double oversubscription) {
  toml::table table = toml::parse_file(std::string(DTSIM_SOURCE_DIR) + "/platforms/dgx_h100.toml");
  table.insert_or_assign("nodes", nodes);
  table["node"].as_table()->insert_or_assign("units_per_pod", units);
  table["node"].as_table()->insert_or_assign("core_oversubscription", oversubscription);
  return table;
}

TEST(PlatformSection, ThreeTierRailFatTreeHasALeafPerRailAndUnitAPodSpineAndACore) {
  // 256 DGX H100 (2,048 GPUs): 8 scalable units of 32 nodes, pods of 4 units, 2:1 from the pods' spines to the core.
  toml::table table = three_tier(256, 4, 2);
  const platform::PlatformSpec spec = load_platform(table);
  EXPECT_EQ(spec.rail_leaves(), 8);
  EXPECT_EQ(spec.pods(), 2);
  const platform::Fabric f(spec);
  int leaf_uplinks = 0, pod_links = 0;
  for (int id = 0; id < f.link_count(); ++id) {
    const std::string name = f.link_name(id);
    if (name.starts_with("su") && name.ends_with("_spine_UP")) ++leaf_uplinks;
    if (name.starts_with("pod") && name.ends_with("_core_UP")) ++pod_links;
  }
  EXPECT_EQ(leaf_uplinks, 8 * 8);  // a leaf per rail and unit
  EXPECT_EQ(pod_links, 2);
  // A pod's core link: its 4 units x 8 rails of 12.8 Tb/s leaf uplinks over the 2:1 oversubscription.
  EXPECT_DOUBLE_EQ(spec.pod_core(0).bandwidth_Bps, 4 * 8 * 1.6e12 / 2);
  const auto names = [&](int from, int to) {
    std::vector<std::string> route;
    for (int l : f.path(from, to).links) route.push_back(f.link_name(l));
    return route;
  };
  // Rail 0 of nodes 0 and 1: one leaf (GPU, its PCIe switch, NIC up; NIC down, PCIe, GPU).
  EXPECT_EQ(names(0, 8).size(), 6U);
  // Rails 0 and 1 of one unit: up to the pod's spine and down.
  EXPECT_EQ(names(0, 9), (std::vector<std::string>{"gpu0_pcie_UP", "node0_nic0_pcie_UP", "node0_nic0_UP",
                                                   "su0_rail0_spine_UP", "su0_rail1_spine_DOWN", "node1_nic1_DOWN",
                                                   "node1_nic1_pcie_DOWN", "gpu9_pcie_DOWN"}));
  // Rail 0 of units 0 and 1 (one pod): through the spine too, never the core.
  EXPECT_EQ(names(0, 32 * 8)[3], "su0_rail0_spine_UP");
  EXPECT_EQ(names(0, 32 * 8)[4], "su1_rail0_spine_DOWN");
  // Units 0 and 4 (pods 0 and 1): through the core.
  const std::vector<std::string> across = names(0, 128 * 8);
  EXPECT_EQ(across.size(), 10U);
  EXPECT_EQ(across[4], "pod0_core_UP");
  EXPECT_EQ(across[5], "pod1_core_DOWN");
  EXPECT_EQ(across[6], "su4_rail0_spine_DOWN");
}

TEST(PlatformFiles, Llama3ClusterIsEightPodsSevenToOne) {
  const auto llama3 = load_file("llama3_h100_24k");
  EXPECT_EQ(llama3.hosts(), 24576);
  EXPECT_EQ(llama3.rail_leaves(), 1536);  // racks of 2 nodes
  EXPECT_EQ(llama3.pods(), 8);            // of 192 racks, 3,072 GPUs
  // A rack's ToR: 16 x 400 Gb/s down, 16 up (full bisection in the pod); a pod's core link 1/7 of its racks' uplinks.
  EXPECT_DOUBLE_EQ(llama3.network.bandwidth_Bps, 2 * 50e9);
  EXPECT_DOUBLE_EQ(llama3.pod_core(7).bandwidth_Bps, 192 * 8 * 100e9 / 7);
}

TEST(PlatformSection, ThreeTiersNeedRailsAndUnitsAndAtLeastOneToOne) {
  const auto message = [](toml::table table) {
    try {
      load_platform(table);
    } catch (const core::InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  toml::table no_units = three_tier(64, 2, 1);
  no_units["node"].as_table()->erase("nodes_per_leaf");
  EXPECT_NE(message(no_units).find("units_per_pod without rails and nodes_per_leaf"), std::string::npos);
  EXPECT_NE(message(three_tier(64, 2, 0.5))
                .find("'platform.node.core_oversubscription' = 0.500000 is out of range; allowed: 1.000000 to "
                      "1024.000000"),
            std::string::npos);
  toml::table no_pods = three_tier(64, 2, 1);
  no_pods["node"].as_table()->erase("units_per_pod");
  EXPECT_NE(message(no_pods).find("core_oversubscription without units_per_pod"), std::string::npos);
}

}  // namespace
}  // namespace dtsim::scenario
