#pragma once
/// The critical path of a report.json summed by kind of task: what the diagnosis bases its verdict on.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dtsim::viz {

/// Time a kind of task (a task category) holds on the critical path.
struct PathKind {
  std::string category;  ///< forward, backward, recompute, update, comm, compress, tp, dp, gather, pp
  double seconds = 0;
};

/// The critical path by kind: every instant from its first task's start to its last task's end counted once.
struct PathKinds {
  double length_s = 0;          ///< last task's end minus first task's start
  std::vector<PathKind> kinds;  ///< in order of first appearance on the path
  /// Seconds of `category` (0 when absent).
  double seconds(std::string_view category) const;
  /// Forward, backward, recompute and update.
  double compute_s() const;
  /// Everything else: communication (and compression on the data stream) that the compute waited for.
  double communication_s() const { return length_s - compute_s(); }
};

/// Sums `critical_path` (report.json's, tasks in order) by category; a gap before a task (a collective's launch,
/// a dependency's lag) is the time that task's start waited, and counts with it.
PathKinds path_kinds(const nlohmann::json& critical_path);

/// Whether `category` is computation on the compute stream.
bool is_compute(std::string_view category);

/// The words for a kind of communication: "parameter all-gathers (ZeRO-3 / FSDP)", ...
std::string communication_text(std::string_view category);

}  // namespace dtsim::viz
