#pragma once
/// Synchronisation schemes of data-parallel SGD and the architectures they run on (survey seed 001, sections
/// 3.1 and 4; Table 5 for the valid combinations).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::sync {

/// When a worker may go on and when an iteration exchanges.
///   bsp            every iteration exchanges; a worker pulls iteration i once every worker pushed i
///   ssp            a worker pulls iteration i once every worker pushed i - staleness (Ho et al. 2013)
///   asp            a worker pulls right after its own push was applied (Hogwild-style, parameter server)
///   local_sgd      iterations compute locally; every `period`-th exchanges (model averaging)
///   post_local_sgd bsp for the first `switch_after` iterations, then local_sgd (Lin et al. 2020)
/// `backup_workers` b (bsp on a parameter server, Chen et al. 2016): a round closes with the first n - b
/// pushes; later pushes of that round are dropped.
struct SyncPolicy {
  std::string scheme = "bsp";
  int staleness = 0;
  int period = 1;
  int switch_after = 0;
  int backup_workers = 0;
  /// LAG (Chen et al. 2018, LAG-WK): a worker skips its upload when its gradient changed by less than
  /// lag_threshold / (lr^2 n^2) x the squared model changes of the last lag_window steps; the server reuses its
  /// last gradient. 0: off.
  double lag_threshold = 0;
  int lag_window = 10;

  /// True when iteration `iteration` (from 0) exchanges gradients or models.
  bool exchanges(int iteration) const;
  /// How many iterations a pull may lag behind the slowest worker's push: 0 for synchronous schemes, s for
  /// ssp, none (unbounded) for asp.
  std::optional<int> staleness_bound() const;
};

/// The scheme with its parameters, e.g. "ssp (staleness 3)", "local_sgd (period 4)", "bsp (2 backup workers)".
std::string describe(const SyncPolicy& policy);
/// Registry keys of the schemes, as written in `strategy.sync`.
std::vector<std::string> sync_names();
/// Registry keys of the architectures, as written in `strategy.architecture`.
std::vector<std::string> architecture_names();
/// Why `policy` cannot run on `architecture` (Table 5 of the survey, plus backup workers, which need a server
/// that aggregates), or an empty string when it can.
std::string incompatibility(const SyncPolicy& policy, std::string_view architecture);

}  // namespace dtsim::sync
