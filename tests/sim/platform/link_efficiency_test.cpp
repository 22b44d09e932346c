// Payload efficiency of NVLink and PCIe from their packet formats, and the structured node's links carrying
// payload at line rate x efficiency where the platform gives the packet sizes (and at line rate where it does not).
#include "sim/platform/link_efficiency.hpp"

#include <gtest/gtest.h>

#include <string>

#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scenario/platform_section.hpp"
#include "tests/sim/platform/structured_nodes.hpp"

namespace dtsim::platform {
namespace {

using namespace testing;

TEST(LinkEfficiency, NvlinkPacketsCarryOneHeaderFlit) {
  EXPECT_DOUBLE_EQ(nvlink_payload_efficiency(256), 256.0 / 272);  // 16 data flits + 1 header flit: 94.1 %
  EXPECT_DOUBLE_EQ(nvlink_payload_efficiency(128), 128.0 / 144);
  EXPECT_DOUBLE_EQ(nvlink_payload_efficiency(16), 0.5);
  EXPECT_DOUBLE_EQ(nvlink_payload_efficiency(0), 1);  // not given: the bandwidth is the payload rate
}

TEST(LinkEfficiency, PcieTlpsCarryTwentyFourBytes) {
  EXPECT_DOUBLE_EQ(pcie_payload_efficiency(256), 256.0 / 280);  // 91.4 %
  EXPECT_DOUBLE_EQ(pcie_payload_efficiency(128), 128.0 / 152);  // 84.2 %
  EXPECT_DOUBLE_EQ(pcie_payload_efficiency(4096), 4096.0 / 4120);
  EXPECT_DOUBLE_EQ(pcie_payload_efficiency(0), 1);
}

// (MTU - 20 IPv4 - 20 TCP - 12 timestamps) / (MTU + 8 preamble and SFD + 14 header + 4 FCS + 12 gap).
TEST(LinkEfficiency, TcpSegmentsInEthernetFrames) {
  EXPECT_DOUBLE_EQ(tcp_payload_efficiency(1500), 1448.0 / 1538);  // 94.1 %
  EXPECT_DOUBLE_EQ(tcp_payload_efficiency(9000), 8948.0 / 9038);  // 99.0 %
  EXPECT_DOUBLE_EQ(tcp_payload_efficiency(576), 524.0 / 614);
}

TEST(LinkEfficiency, StructuredNodeLinksCarryPayloadRates) {
  PlatformSpec s = structured(NodeFabric::nvswitch, 1, 4, 2, 2);
  const std::int64_t bytes = 64'000'000;
  const collectives::Schedule nvlink_hop{4, {{{{0, 3, bytes}}}}};
  EXPECT_DOUBLE_EQ(collectives::schedule_time_s(nvlink_hop, Fabric(s)), 2 * kNvlinkS + bytes / kNvlinkBps);
  s.node.nvlink_payload_bytes = 256;
  s.node.pcie_max_payload_bytes = 128;
  const Fabric f(s);
  EXPECT_DOUBLE_EQ(collectives::schedule_time_s(nvlink_hop, f), 2 * kNvlinkS + bytes / (kNvlinkBps * 256 / 272));
  for (int id = 0; id < f.link_count(); ++id) {
    const std::string name = f.link_name(id);
    const double bandwidth_Bps = f.link_bandwidth_Bps(id);
    if (name.find("pcie") != std::string::npos) {
      EXPECT_DOUBLE_EQ(bandwidth_Bps, kPcieBps * 128 / 152) << name;
    }
    if (name.find("nvlink") != std::string::npos) {
      EXPECT_DOUBLE_EQ(bandwidth_Bps, kNvlinkBps * 256 / 272) << name;
    }
  }
  // The closed forms' costs see the same payload rate.
  EXPECT_DOUBLE_EQ(1 / link_costs(s).intra.beta_s_per_byte, kNvlinkBps * 256 / 272);
}

/// What loading a structured platform with `node_keys` in its [node] table gives: the spec or the error.
std::string load_error(const std::string& fabric, const std::string& node_keys) {
  const std::string text = "name = \"x\"\ntopology = \"two_level\"\nnodes = 1\ngpus_per_node = 2\n"
                           "[inter_link]\nbandwidth = \"100Gbps\"\nlatency = \"1us\"\n"
                           "[node]\nfabric = \"" + fabric + "\"\n" + node_keys +
                           "[node.nvlink]\nbandwidth = \"300GBps\"\nlatency = \"1us\"\n"
                           "[node.pcie]\nbandwidth = \"32GBps\"\nlatency = \"1us\"\n";
  try {
    toml::table table = toml::parse(text, std::string("p.toml"));
    const PlatformSpec spec = scenario::load_platform(table);
    return std::to_string(spec.node.nvlink_payload_bytes) + " " + std::to_string(spec.node.pcie_max_payload_bytes);
  } catch (const core::InputError& e) {
    return e.what();
  }
}

TEST(LinkEfficiency, PlatformKeys) {
  EXPECT_EQ(load_error("nvswitch", ""), "0 0");
  EXPECT_EQ(load_error("nvswitch", "nvlink_payload = \"128B\"\npcie_max_payload = \"512B\"\n"), "128 512");
  EXPECT_EQ(load_error("nvswitch", "nvlink_payload = \"100B\"\n"),
            "p.toml:10:18: 'platform.node.nvlink_payload' = 100 bytes; an NVLink packet carries 1 to 16 data flits of "
            "16 B: 16B to 256B in steps of 16B");
  EXPECT_EQ(load_error("nvswitch", "pcie_max_payload = \"300B\"\n"),
            "p.toml:10:20: 'platform.node.pcie_max_payload' = 300 bytes; PCIe's max payload size is 128B, 256B, 512B, "
            "1KiB, 2KiB or 4KiB");
}

}  // namespace
}  // namespace dtsim::platform
