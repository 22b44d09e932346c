#pragma once
/// Per-link accounting for reports: bytes on each directed link and the hottest links.
#include <string>
#include <vector>

#include "sim/collectives/schedule.hpp"
#include "sim/platform/fabric.hpp"

namespace dtsim::platform {

/// Adds to `bytes` (indexed by directed link id, sized to fabric.link_count()) what each link carries when
/// `schedule` runs `times` times on Fabric routes. Transfers are summed per rank pair first, so a path is
/// looked up once per pair.
void add_link_bytes(const collectives::Schedule& schedule, double times, const Fabric& fabric,
                    std::vector<double>& bytes);

/// One directed link's load.
struct LinkLoad {
  int link = 0;
  std::string name;
  double bytes = 0;
  double utilisation = 0;  ///< bytes / (bandwidth x duration): the busy fraction of the period
  double bandwidth_Bps = 0;  ///< its payload rate
  double line_rate_Bps = 0;  ///< its product's line rate
};

/// The `count` busiest links: highest utilisation first, then most bytes, then lower id; links with no bytes
/// left out.
std::vector<LinkLoad> hottest_links(const Fabric& fabric, const std::vector<double>& bytes, double duration_s,
                                    int count);

}  // namespace dtsim::platform
