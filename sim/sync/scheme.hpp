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
  std::string type;          ///< "integer", "number" or "boolean" (kept as 0 or 1)
  std::string default_text;  ///< as written in a file; "required" when the scheme cannot run without it
  std::string description;
  double min = 0;            ///< inclusive range
  double max = 0;
  int SyncPolicy::*field = nullptr;  ///< an integer kept in a SyncPolicy field; null: in SyncPolicy::parameters
  std::string needed = "";       ///< required keys: what the scheme misses without it ("its switch point")
  std::string placeholder = "";  ///< required keys: the value in words for the error ("iterations")
};

/// An option's default as a number (a boolean's "true" is 1, "false" 0); not for required options.
inline double default_value(const SchemeOption& o) {
  if (o.type == "boolean") return o.default_text == "true" ? 1 : 0;
  return std::stod(o.default_text);
}

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
  kSampledModels,   ///< as kModels among each round's participants, weighted by their shard sizes (FedAvg)
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
  /// Sets the fields that follow from the options and the job once they are loaded and checked (FedAvg's round
  /// length, from its clients' shard, their epochs and `batch_size`).
  virtual void derive(SyncPolicy&, int /*batch_size*/) const {}
  /// The workers that compute and exchange in iteration `iteration` (from 0), in increasing order; the others
  /// sit it out and wait for its end. Its exchanges are collectives over these workers' hosts alone (or their
  /// pushes and pulls). Every scheme but client sampling: all `workers`.
  virtual std::vector<int> participants(const SyncPolicy&, int workers, int /*iteration*/) const {
    std::vector<int> all(static_cast<std::size_t>(workers));
    for (int w = 0; w < workers; ++w) all[static_cast<std::size_t>(w)] = w;
    return all;
  }
  /// How many model-sized vectors an exchange moves: 1, or 2 where the momentum buffers are averaged too.
  virtual int exchanged_copies(const SyncPolicy&) const { return 1; }
  /// Numerics mode: whether a model average also averages the workers' momentum buffers (Yu, Jin & Yang 2019).
  virtual bool averages_momentum(const SyncPolicy&) const { return false; }
  /// The scheme with its parameters, e.g. "ssp (staleness 3)".
  virtual std::string describe(const SyncPolicy& p) const { return p.scheme; }
  /// Why the scheme cannot run on `architecture` (survey Table 5), or "".
  virtual std::string incompatibility(const SyncPolicy&, const ArchitectureTraits& /*architecture*/) const {
    return "";
  }
  /// Whether iteration `iteration` (from 0) exchanges.
  virtual bool exchanges(const SyncPolicy&, int /*iteration*/) const { return true; }
  /// Whether exchanging iteration `iteration` averages the models after each worker's step rather than reducing
  /// the gradients before one (a layout times the two differently: a model average cannot start before the step).
  virtual bool averages_models(const SyncPolicy&, int /*iteration*/) const { return false; }
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
