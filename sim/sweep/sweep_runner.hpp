#pragma once
/// Runs a sweep: one `dtsim run` process per point, several at once, each result written atomically.
#include <ostream>
#include <string>

#include "sim/scenario/sweep_spec.hpp"
#include "sim/sweep/point_result.hpp"

namespace dtsim::sweep {

/// Which points this process runs and how.
struct RunOptions {
  std::string dtsim_binary;  ///< the dtsim executable that runs each point
  int jobs = 1;              ///< points at once
  int shard = 0;             ///< run the points with index % shards == shard
  int shards = 1;
};

/// Runs every point of `spec` in this shard that has no successful result under its content key (`keys`, from point_keys;
/// failed points run again). Points with equal keys run once, as the first of them (in that one's shard): `dtsim run <base> --out <output>/points/<key> --set ...`, then writes
/// points/<key>/point.json with the varied keys and every metric, or the error. Says how many were reused. Shows progress on `progress` (a bar with ETA when it is a
/// terminal, plain lines otherwise). Returns the number of failed points.
int run_sweep(const scenario::SweepSpec& spec, const std::vector<PointKey>& keys, const RunOptions& options,
              std::ostream& progress, bool terminal);

/// Collects the point.json of every point's current content key into results.csv and results.jsonl
/// (atomically); results of settings no longer in the sweep are not listed. Returns (points with a result,
/// failed points).
std::pair<int, int> merge_results(const scenario::SweepSpec& spec, const std::vector<PointKey>& keys);

}  // namespace dtsim::sweep
