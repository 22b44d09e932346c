#pragma once
/// Per-link accounting for reports: bytes on each directed link and the classes of links alike.
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

/// Links of one kind with one load: the same bytes, bandwidth and line rate on links whose names differ only in
/// their numbers ("su7_rail0_spine_UP" and "su12_rail3_spine_UP"). On a symmetric fabric a few classes stand for
/// every link (Llama 3's 24k cluster widened to 100,000 GPUs: 331 classes for 262,566 loaded links).
struct LinkClass {
  LinkLoad first;  ///< the member with the lowest id (its name stands for the class)
  int count = 0;   ///< links in the class
};

/// Every class of the links with bytes: highest utilisation first, then most bytes, then lowest first id (so the
/// first class of each kind holds that kind's busiest link).
std::vector<LinkClass> link_classes(const Fabric& fabric, const std::vector<double>& bytes, double duration_s);

}  // namespace dtsim::platform
