#include "sim/sync/sync_policy.hpp"

#include <sstream>

namespace dtsim::sync {

bool SyncPolicy::exchanges(int iteration) const {
  if (scheme == "local_sgd") return (iteration + 1) % period == 0;
  if (scheme == "post_local_sgd") return iteration < switch_after || (iteration - switch_after + 1) % period == 0;
  return true;
}

std::optional<int> SyncPolicy::staleness_bound() const {
  if (scheme == "asp") return std::nullopt;
  if (scheme == "ssp") return staleness;
  return 0;
}

std::string describe(const SyncPolicy& p) {
  if (p.scheme == "ssp") return "ssp (staleness " + std::to_string(p.staleness) + ")";
  if (p.scheme == "local_sgd") return "local_sgd (period " + std::to_string(p.period) + ")";
  if (p.scheme == "post_local_sgd")
    return "post_local_sgd (bsp for " + std::to_string(p.switch_after) + " iterations, then period " +
           std::to_string(p.period) + ")";
  if (p.lag_threshold > 0) {
    std::ostringstream words;
    words << p.scheme << " with LAG (threshold " << p.lag_threshold << ", window " << p.lag_window << ")";
    return words.str();
  }
  if (p.backup_workers > 0) return p.scheme + " (" + std::to_string(p.backup_workers) + " backup workers)";
  return p.scheme;
}

std::vector<std::string> sync_names() { return {"bsp", "ssp", "asp", "local_sgd", "post_local_sgd"}; }

std::vector<std::string> architecture_names() { return {"allreduce", "ps", "byteps", "gossip"}; }

std::string incompatibility(const SyncPolicy& policy, std::string_view architecture) {
  const bool server = architecture == "ps" || architecture == "byteps";
  if (architecture == "allreduce" && policy.scheme == "asp")
    return "asp needs a server that applies each worker's gradient as it arrives; an all-reduce sums every "
           "worker's gradient at once (survey Table 5: not applicable)";
  if (architecture == "allreduce" && policy.scheme == "ssp")
    return "ssp lets workers read a model missing others' recent gradients, which an all-reduce (every worker "
           "in every exchange) cannot serve (survey Table 5: not supported)";
  if (architecture == "gossip" && policy.scheme == "ssp")
    return "ssp bounds staleness against a global model, which gossip does not have (survey Table 5: not "
           "supported)";
  if (policy.lag_threshold > 0 && !(server && policy.scheme == "bsp"))
    return "LAG lets a worker skip its upload while the server reuses its last gradient: it needs sync = \"bsp\" "
           "on architecture \"ps\" or \"byteps\"";
  if (policy.backup_workers > 0 && !(server && policy.scheme == "bsp"))
    return "backup workers drop the slowest gradients at a server that closes a round early: they need sync = "
           "\"bsp\" on architecture \"ps\" or \"byteps\"";
  return "";
}

}  // namespace dtsim::sync
