#include "sim/platform/link_efficiency.hpp"

#include "sim/core/error.hpp"

namespace dtsim::platform {

double nvlink_payload_efficiency(int payload_bytes) {
  if (payload_bytes == 0) return 1;
  DTSIM_CHECK(payload_bytes > 0 && payload_bytes <= kNvlinkMaxPayloadBytes && payload_bytes % kNvlinkFlitBytes == 0,
              "an NVLink payload is 1 to 16 flits");
  return static_cast<double>(payload_bytes) / (payload_bytes + kNvlinkFlitBytes);
}

double pcie_payload_efficiency(int max_payload_bytes) {
  if (max_payload_bytes == 0) return 1;
  DTSIM_CHECK(max_payload_bytes > 0, "a PCIe max payload size is positive");
  return static_cast<double>(max_payload_bytes) / (max_payload_bytes + kPcieTlpOverheadBytes);
}

double tcp_payload_efficiency(int mtu_bytes) {
  DTSIM_CHECK(mtu_bytes > kTcpIpHeaderBytes, "an MTU holds the IP and TCP headers");
  return static_cast<double>(mtu_bytes - kTcpIpHeaderBytes) / (mtu_bytes + kEthernetFrameOverheadBytes);
}

LinkSpec payload_rate(const LinkSpec& line, double efficiency) {
  return {line.bandwidth_Bps * efficiency, line.latency_s, line.line_rate()};
}

}  // namespace dtsim::platform
