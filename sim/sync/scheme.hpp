#pragma once
/// One synchronisation scheme: everything the loader, the executors, numerics mode and the architecture check
/// ask of it. Each scheme is one file of this folder (bsp.cpp, local_sgd.cpp, ...) and one line of the registry
/// (scheme_registry.cpp); SyncPolicy's queries forward to the scheme its `scheme` names, so nothing outside
/// this folder compares scheme names.
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/sync/architecture_traits.hpp"
#include "sim/sync/sync_policy.hpp"

namespace dtsim::sync {

/// One key of a scheme's option table [strategy.<scheme>], as the loader reads it and the key reference lists it.
struct SchemeOption {
  std::string key;
  std::string type;          ///< "integer" or "number"
  std::string default_text;  ///< as written in a file; "required" when the scheme cannot run without it
  std::string description;
  double min = 0;            ///< inclusive range
  double max = 0;
  int SyncPolicy::*field = nullptr;  ///< an integer kept in a SyncPolicy field; null: in SyncPolicy::parameters
  std::string needed = "";       ///< required keys: what the scheme misses without it ("its switch point")
  std::string placeholder = "";  ///< required keys: the value in words for the error ("iterations")
};

/// Why a loaded policy cannot run: the option key to point at ("" for the sync key), the problem, what is allowed.
struct OptionProblem {
  std::string key;
  std::string problem;
  std::string allowed;
};

/// How the workers' updates meet in numerics mode (numerics/sync_config.hpp has the arithmetic).
enum class Meeting {
  kGradients,       ///< the gradients are averaged every exchanging iteration (bsp)
  kStaleGradients,  ///< as kGradients, each taken at a model `staleness` steps old (ssp)
  kAsyncPushes,     ///< each push is one server step; on gossip, push-sum (asp)
  kModels,          ///< the workers step alone and average their models when they exchange (local SGD family)
  kOverlapModels,   ///< as kModels, the average arriving one period late and pulling through an anchor model
};

/// Told iteration after iteration (from 0, in order) the mean mini-batch loss, whether the iteration exchanges.
using LossRule = std::function<bool(int iteration, double loss)>;

/// A synchronisation scheme (stateless; its parameters live in the SyncPolicy it is asked about).
class Scheme {
 public:
  virtual ~Scheme() = default;
  /// The scheme's name in words, e.g. "stale synchronous parallel" (the key reference's "<title> options").
  virtual std::string title() const = 0;
  /// The keys of [strategy.<name>], in documentation order; empty: the scheme takes no table.
  virtual std::vector<SchemeOption> options() const { return {}; }
  /// A loaded policy the scheme cannot run on `workers` workers, or nothing.
  virtual std::optional<OptionProblem> check(const SyncPolicy&, int /*workers*/) const { return std::nullopt; }
  /// The scheme with its parameters, e.g. "ssp (staleness 3)".
  virtual std::string describe(const SyncPolicy& p) const { return p.scheme; }
  /// Why the scheme cannot run on `architecture` (survey Table 5), or "".
  virtual std::string incompatibility(const SyncPolicy&, const ArchitectureTraits& /*architecture*/) const {
    return "";
  }
  /// Whether iteration `iteration` (from 0) exchanges.
  virtual bool exchanges(const SyncPolicy&, int /*iteration*/) const { return true; }
  /// How many iterations a pull may lag behind the slowest worker's push (none: unbounded).
  virtual std::optional<int> staleness_bound(const SyncPolicy&) const { return 0; }
  /// How many later exchanging iterations may begin before an exchange must be complete: 0, a worker waits for
  /// its exchange at the end of its iteration; 1, at the end of the next exchanging iteration.
  virtual int exchanges_in_flight(const SyncPolicy&) const { return 0; }
  /// Whether every worker's push meets in every round (bsp), so a server may close a round early (backup
  /// workers) or reuse a worker's last upload (LAG).
  virtual bool waits_for_every_push() const { return false; }
  /// Whether the server takes the workers' pushes of a partition in a fixed round-robin order (R2SP).
  virtual bool pushes_in_turn() const { return false; }
  /// How numerics mode meets the workers' updates.
  virtual Meeting meeting() const { return Meeting::kGradients; }
  /// The fewest iterations >= `iterations` a run of this scheme may end on (whole local periods).
  virtual int whole_iterations(const SyncPolicy&, int iterations) const { return iterations; }
  /// Iterations after which the time line repeats past its end (a local period); none: every iteration alike.
  virtual std::optional<int> repeating_period(const SyncPolicy&) const { return std::nullopt; }
  /// Schemes whose exchanges follow the training loss: a fresh rule that, told each iteration's mean
  /// mini-batch loss in order, says whether that iteration exchanges. Others: null.
  virtual LossRule loss_rule(const SyncPolicy&) const { return nullptr; }
};

/// One registered scheme.
struct SchemeEntry {
  std::string_view name;           ///< TOML name = file name
  const Scheme& (*scheme)();       ///< the scheme
};

/// Every registered scheme, in documentation order.
std::span<const SchemeEntry> scheme_registry();
/// The scheme named `name`; a name the loader did not check is a bug (DTSIM_CHECK).
const Scheme& scheme_named(std::string_view name);
/// The names of the schemes whose updates meet as `meeting` says, quoted and joined with "or" (for messages).
std::string schemes_meeting(Meeting meeting);
/// The exchanges `policy`'s loss rule decides from the losses of a training run, one per step (empty when the
/// scheme has no loss rule); SyncPolicy::decided carries them to the timing executors.
std::vector<bool> decided_exchanges(const SyncPolicy& policy, std::span<const double> losses);

}  // namespace dtsim::sync
