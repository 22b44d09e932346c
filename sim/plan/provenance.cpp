#include "sim/plan/provenance.hpp"

#include "sim/core/digest.hpp"
#include "sim/core/version.hpp"

namespace dtsim::plan {

nlohmann::json plan_provenance(const scenario::PlanSpec& plan, const std::string& command) {
  nlohmann::json axes = nlohmann::json::array();
  for (const scenario::PlanAxis& a : plan.axes) axes.push_back({{"name", a.name}, {"key", a.key}, {"values", a.values}});
  nlohmann::json settings = {{"platforms", plan.platforms},
                             {"nodes", plan.nodes},
                             {"oversubscription", plan.oversubscription},
                             {"axes", axes},
                             {"compression_kernel_time", plan.compression_kernel_time},
                             {"recheck", plan.recheck},
                             {"recheck_cpu_limit_s", plan.recheck_cpu_limit_s}};
  if (plan.goodput.enabled) {
    const scenario::PlanGoodput& g = plan.goodput;
    settings["goodput"] = {{"gpu_failures_per_hour", g.gpu_per_hour},     {"node_failures_per_hour", g.node_per_hour},
                           {"nic_failures_per_hour", g.nic_per_hour},     {"switch_failures_per_hour", g.switch_per_hour},
                           {"checkpoint_write_Bps", g.write_Bps},         {"checkpoint_read_Bps", g.read_Bps},
                           {"restart_s", g.restart_s},                    {"checkpoint_interval", g.interval},
                           {"checkpoint_interval_s", g.interval_s}};
  }
  return {{"dtsim_version", std::string(core::dtsim_version())},
          {"dtsim_digest", core::file_digest("/proc/self/exe")},
          {"command_line", command},
          {"plan", plan.source},
          {"plan_digest", core::file_digest(plan.source)},
          {"base", plan.base},
          {"set", plan.base_settings},
          {"settings", settings}};
}

}  // namespace dtsim::plan
