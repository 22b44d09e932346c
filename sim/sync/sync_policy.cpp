#include "sim/sync/sync_policy.hpp"

#include <sstream>

#include "sim/core/error.hpp"
#include "sim/sync/architecture_traits.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::sync {

bool SyncPolicy::exchanges(int iteration) const { return rules().exchanges(*this, iteration); }

std::optional<int> SyncPolicy::staleness_bound() const { return rules().staleness_bound(*this); }

int SyncPolicy::exchanges_in_flight() const { return rules().exchanges_in_flight(*this); }

std::vector<int> SyncPolicy::participants(int workers, int iteration) const {
  return rules().participants(*this, workers, iteration);
}

const Scheme& SyncPolicy::rules() const { return scheme_named(scheme); }

double SyncPolicy::parameter(std::string_view key) const {
  if (const auto it = parameters.find(key); it != parameters.end()) return it->second;
  for (const SchemeOption& o : rules().options())
    if (o.key == key && o.default_text != "required") return default_value(o);
  DTSIM_CHECK(false, "scheme " + scheme + " has no default for option " + std::string(key));
}

std::string describe(const SyncPolicy& p) {
  if (p.lag_threshold > 0) {
    std::ostringstream words;
    words << p.scheme << " with LAG (threshold " << p.lag_threshold << ", window " << p.lag_window << ")";
    return words.str();
  }
  if (p.backup_workers > 0) return p.scheme + " (" + std::to_string(p.backup_workers) + " backup workers)";
  return p.rules().describe(p);
}

std::vector<std::string> sync_names() {
  std::vector<std::string> names;
  for (const SchemeEntry& e : scheme_registry()) names.emplace_back(e.name);
  return names;
}

std::string incompatibility(const SyncPolicy& policy, std::string_view architecture_name) {
  const ArchitectureTraits& architecture = architecture_named(architecture_name);
  if (std::string why = policy.rules().incompatibility(policy, architecture); !why.empty()) return why;
  const bool server = architecture.meets == Meets::kServers;
  const bool bsp = policy.rules().waits_for_every_push();
  if (policy.lag_threshold > 0 && !(server && bsp))
    return "LAG lets a worker skip its upload while the server reuses its last gradient: it needs sync = \"bsp\" "
           "on architecture " +
           architectures_meeting(Meets::kServers);
  if (policy.backup_workers > 0 && !(server && bsp))
    return "backup workers drop the slowest gradients at a server that closes a round early: they need sync = "
           "\"bsp\" on architecture " +
           architectures_meeting(Meets::kServers);
  return "";
}

}  // namespace dtsim::sync
