#pragma once
/// The ranks of a parallel layout at different speeds (stragglers) as classes of ranks that run alike: the analytic
/// level schedules one run of its stage's program per class instead of one per rank, so that one slow GPU among
/// 1,024 costs a few dozen runs. Classes are the coarsest equitable partition (colour refinement, Weisfeiler and
/// Leman 1968): ranks start apart by stage and speed, and split until every rank of a class sees the same classes
/// in each of its groups (tensor, data, ...) and at each pipeline stage of its pipeline. Under the list schedule's
/// model ranks of one class then have the same timeline: their inputs (speeds, the readiness of every collective
/// they join and of every send they receive) are the same.
#include <string>
#include <vector>

#include "sim/parallel/layout.hpp"
#include "sim/run/stragglers.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::run {

struct RankClasses {
  std::vector<int> class_of;        ///< [rank]
  std::vector<int> representative;  ///< [class]: its lowest rank; classes in order of stage, then of that rank
  std::vector<int> instances;       ///< [stage]: its classes (list_schedule's instances)
  taskgraph::Meetings meetings;     ///< per class: the classes its collectives join, the classes it sends to
};

/// Every rank's speeds as a key: its work factor in each of `iterations` iterations and its speed profile (two
/// ranks with equal keys compute alike).
std::vector<double> speed_key(const scenario::Stragglers& stragglers, const Slowdown& slowdown, int rank,
                              int iterations);

/// The classes of the ranks of `placement` whose speeds are `keys` ([rank]), for collectives on `groups` (names
/// Placement::members knows).
RankClasses rank_classes(const parallel::Placement& placement, const std::vector<std::vector<double>>& keys,
                         const std::vector<std::string>& groups);

}  // namespace dtsim::run
