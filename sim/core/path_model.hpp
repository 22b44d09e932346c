#pragma once
/// The network as the closed-form (analytic) level sees it: a path per rank pair over shared links.
#include <limits>
#include <vector>

namespace dtsim::core {

/// Links traversed from one rank to another and the summed latency of those links.
struct Path {
  double latency_s = 0;
  std::vector<int> links;  ///< directed link ids (each direction of a split-duplex link has its own id)
  /// The most one transfer on this path carries whatever its links' shares (TCP's connections between nodes,
  /// platform::PlatformSpec::transfer_cap_Bps); infinity: the links alone decide.
  double rate_cap_Bps = std::numeric_limits<double>::infinity();
};

/// Routes between ranks and the bandwidth of each directed link. Implemented by platform::Fabric.
class PathModel {
 public:
  virtual ~PathModel() = default;
  /// The path a message takes from rank `from` to rank `to` (from != to).
  virtual Path path(int from, int to) const = 0;
  /// Bandwidth of directed link `link`, bytes per second.
  virtual double link_bandwidth_Bps(int link) const = 0;
  /// Number of directed links (ids are 0 .. link_count()-1).
  virtual int link_count() const = 0;
};

}  // namespace dtsim::core
