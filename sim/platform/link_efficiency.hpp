#pragma once
/// Payload efficiency of the links inside a node: the share of a link's data rate left for payload once each
/// packet's protocol overhead is on the wire. A structured node's NVLink and PCIe links carry data at their
/// line rate times this where the platform gives the packet sizes (node_fabric.cpp), so every level and the
/// NCCL model see the achievable rate.
///
///     NVLink packet:  | header flit 16 B (CRC inside) | data flits, 16 B each, up to 16 (256 B) |
///     PCIe TLP:       | STP token 4 B | header 16 B (4 DW) | data, up to max payload size | LCRC 4 B |
///
/// and of kernel TCP over Ethernet between nodes (network.transport = "tcp"), per frame of one MTU:
///
///     Ethernet frame: | preamble, SFD 8 B | header 14 B | IPv4 20 B | TCP 20 B + timestamps 12 B | data | FCS 4 B | gap 12 B |
///                                                      |<------------------------- MTU ------------------------->|
#include "sim/platform/platform_spec.hpp"

namespace dtsim::platform {

/// NVLink's flit and packet size: 128-bit flits; a write packet is one header flit and up to 16 data flits, 256
/// bytes (Foley and Danskin, "Ultra-Performance Pascal GPU and NVLink Interconnect", IEEE Micro 37(2), 2017;
/// the same packet layout for NVLink 2, 3 and 4 per NVIDIA's Volta, Ampere and Hopper architecture whitepapers).
constexpr int kNvlinkFlitBytes = 16;
constexpr int kNvlinkMaxPayloadBytes = 256;
/// Bytes a PCIe TLP adds to its payload from Gen 3 on (PCI Express Base Specification 3.0 and later, 4.2.2 and
/// 2.2): the 4-byte STP framing token with the sequence number, a 4-DW header (64-bit addresses), the 4-byte
/// LCRC; no ECRC. DLLPs (acknowledgements, flow-control credits) are not counted: a few percent more.
constexpr int kPcieTlpOverheadBytes = 4 + 16 + 4;

/// Bytes Ethernet puts on the wire around each frame's MTU: 7 B preamble and 1 B start delimiter, 14 B header (two
/// addresses, the type), 4 B frame check sequence, 12 B minimum inter-packet gap (IEEE 802.3, clauses 3 and 4).
constexpr int kEthernetFrameOverheadBytes = 8 + 14 + 4 + 12;
/// Bytes of each MTU that are IP and TCP headers: IPv4 20 B (RFC 791), TCP 20 B (RFC 793) and its 12 B timestamp
/// option (RFC 7323), which Linux sends by default (net.ipv4.tcp_timestamps = 1).
constexpr int kTcpIpHeaderBytes = 20 + 20 + 12;
/// Ethernet's default MTU (RFC 894): 1500 B.
constexpr int kEthernetDefaultMtuBytes = 1500;

/// payload / (payload + one header flit): 16/17 = 94.1 % at 256 B; 1 for 0 (no packet size given).
double nvlink_payload_efficiency(int payload_bytes);
/// max payload / (max payload + 24): 91.4 % at 256 B, 84.2 % at 128 B; 1 for 0 (no payload size given).
double pcie_payload_efficiency(int max_payload_bytes);
/// TCP payload per byte on an Ethernet wire: (MTU - 52) / (MTU + 38): 94.1 % at 1500 B, 99.0 % at 9000 B.
double tcp_payload_efficiency(int mtu_bytes);
/// `line` with its bandwidth times `efficiency` (latency unchanged).
LinkSpec payload_rate(const LinkSpec& line, double efficiency);

}  // namespace dtsim::platform
