#pragma once
/// Synchronisation schemes of data-parallel SGD and the architectures they run on (survey seed 001, sections
/// 3.1 and 4; Table 5 for the valid combinations). The schemes themselves live in sim/sync/scheme.hpp's
/// registry, one file each; SyncPolicy holds the choice and its parameters and answers the executors.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::sync {

class Scheme;

/// When a worker may go on and when an iteration exchanges (the schemes: `dtsim list sync`, sim/sync/*.cpp).
/// Backup workers and LAG are not schemes but options of bsp on a server: they change which pushes a round
/// uses, not when a worker may go on or exchange, and both need a server that aggregates.
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
  /// The scheme's options that have no field above, by key (SchemeOption::field null); absent: the default.
  std::map<std::string, double, std::less<>> parameters;
  /// Schemes whose exchanges follow the training loss: the exchanges numerics mode decided, one per training
  /// step (sync::decided_exchanges); past its end the last period repeats. Null: the scheme's fixed rule.
  std::shared_ptr<const std::vector<bool>> decided;

  /// True when iteration `iteration` (from 0) exchanges gradients or models.
  bool exchanges(int iteration) const;
  /// How many iterations a pull may lag behind the slowest worker's push: 0 for synchronous schemes, s for
  /// ssp, none (unbounded) for asp.
  std::optional<int> staleness_bound() const;
  /// How many later exchanging iterations may begin before an exchange must be complete: 0 (a worker waits at
  /// the end of the iteration that exchanges) or 1 (Overlap Local-SGD: at the end of the next one).
  int exchanges_in_flight() const;
  /// The workers that compute and exchange in iteration `iteration` of `workers` (increasing; Scheme::participants).
  std::vector<int> participants(int workers, int iteration) const;
  /// The scheme `scheme` names, which answers everything else (sim/sync/scheme.hpp).
  const Scheme& rules() const;
  /// Option `key` of the scheme: parameters[key], else the scheme's documented default.
  double parameter(std::string_view key) const;
};

/// The scheme with its parameters, e.g. "ssp (staleness 3)", "local_sgd (period 4)", "bsp (2 backup workers)".
std::string describe(const SyncPolicy& policy);
/// Registry keys of the schemes, as written in `strategy.sync`.
std::vector<std::string> sync_names();
/// Why `policy` cannot run on `architecture` (Table 5 of the survey, plus backup workers, which need a server
/// that aggregates), or an empty string when it can.
std::string incompatibility(const SyncPolicy& policy, std::string_view architecture);

}  // namespace dtsim::sync
