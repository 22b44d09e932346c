#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::sync {

// One accessor per scheme file (sim/sync/<name>.cpp).
const Scheme& bsp_scheme();
const Scheme& ssp_scheme();
const Scheme& asp_scheme();
const Scheme& local_sgd_scheme();
const Scheme& post_local_sgd_scheme();
const Scheme& overlap_local_sgd_scheme();
const Scheme& adacomm_scheme();
const Scheme& r2sp_scheme();
const Scheme& fedavg_scheme();

namespace {

constexpr SchemeEntry kSchemes[] = {
    {"bsp", &bsp_scheme},
    {"ssp", &ssp_scheme},
    {"asp", &asp_scheme},
    {"local_sgd", &local_sgd_scheme},
    {"post_local_sgd", &post_local_sgd_scheme},
    {"overlap_local_sgd", &overlap_local_sgd_scheme},
    {"adacomm", &adacomm_scheme},
    {"r2sp", &r2sp_scheme},
    {"fedavg", &fedavg_scheme},
};

}  // namespace

std::span<const SchemeEntry> scheme_registry() { return kSchemes; }

const Scheme& scheme_named(std::string_view name) {
  for (const SchemeEntry& e : kSchemes)
    if (e.name == name) return e.scheme();
  DTSIM_CHECK(false, "no synchronisation scheme named '" + std::string(name) + "'");
}

std::string schemes_meeting(Meeting meeting) {
  std::string words;
  for (const SchemeEntry& e : kSchemes)
    if (e.scheme().meeting() == meeting) words += (words.empty() ? "" : " or ") + ("\"" + std::string(e.name) + "\"");
  return words;
}

std::vector<bool> decided_exchanges(const SyncPolicy& policy, std::span<const double> losses) {
  const LossRule rule = policy.rules().loss_rule(policy);
  std::vector<bool> decided;
  if (!rule) return decided;
  for (std::size_t i = 0; i < losses.size(); ++i) decided.push_back(rule(static_cast<int>(i), losses[i]));
  return decided;
}

}  // namespace dtsim::sync
