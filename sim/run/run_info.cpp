#include "sim/run/run_info.hpp"

#include <algorithm>

#include "sim/core/version.hpp"
#include "sim/platform/platform_spec.hpp"

namespace dtsim::run {

RunInfo scenario_info(const scenario::Scenario& s) {
  RunInfo info;
  info.scenario = s.source;
  info.model = s.model.name;
  info.gpu = s.gpu.name;
  info.precision = std::string(models::precision_name(s.precision));
  info.gradient_dtype = std::string(models::precision_name(s.gradient_dtype));
  info.platform = s.platform.name;
  info.topology = platform::topology_name(s.platform.topology);
  info.network_model = platform::network_model_name(s.platform.network_model);
  if (s.fidelity != scenario::Fidelity::analytic) info.network_settings = platform::network_settings(s.platform.network_model);
  info.collective = s.collective;
  // The framework that carries the buckets, where one is named: "wfbp on horovod".
  info.scheduler = s.framework == "none" ? s.scheduler : s.scheduler + " on " + s.framework;
  info.fidelity = scenario::fidelity_name(s.fidelity);
  info.workers = s.workers;
  info.trace_workers = std::min(s.workers, s.output.trace_workers);
  info.batch_per_worker = s.batch_size;
  info.iterations = s.iterations;
  info.parameters = s.model.parameter_count();
  info.gradient_tensors = s.model.tensor_count();
  info.overlap_slowdown = s.gpu.overlap_slowdown;
  info.dtsim_version = std::string(core::dtsim_version());
  info.overrides = s.provenance.overrides;
  info.resolved_scenario = s.provenance.resolved_toml;
  info.scenario_digest = s.provenance.digest;
  for (const scenario::InputFile& f : s.provenance.inputs) info.inputs.emplace_back(f.path, f.digest);
  return info;
}

void set_utilisation(const scenario::Scenario& s, RunResult& r) {
  r.model_flops_per_sample = 3 * s.model.forward_flops();
  r.peak_flops_per_gpu = s.gpu.peak_flops(s.precision);
  r.mfu = r.model_flops_per_sample * r.samples_per_s / (s.workers * r.peak_flops_per_gpu);
}

}  // namespace dtsim::run
