#include <algorithm>
#include <cstdio>
#include <iostream>

#include "models/gpu_profile.hpp"
#include "models/zoo.hpp"
#include "sim/cli/commands.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/platform/describe_platform.hpp"
#include "sim/platform/simgrid_xml.hpp"
#include "sim/run/memory_check.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/coverage.hpp"
#include "sim/scenario/keys.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scheduling/scheduler.hpp"
#include "sim/sync/scheme.hpp"
#include "sim/sync/architecture_traits.hpp"
#include "sim/sync/sync_policy.hpp"
#include "viz/reports.hpp"
#include "viz/run_folder.hpp"

namespace dtsim::cli {
namespace {

scenario::Scenario load(const std::string& file, const std::vector<std::string>& overrides) {
  return file.empty() ? scenario::load_default_scenario(overrides) : scenario::load_scenario(file, overrides);
}

}  // namespace

int run_command(const std::string& file, const std::vector<std::string>& overrides, const std::string& out_dir,
                const std::string& command_line, bool explain) {
  scenario::Scenario s = load(file, overrides);
  if (!out_dir.empty()) s.output.dir = out_dir;
  // The folder is claimed once the run has its result: a run refused (one that does not fit) leaves an earlier
  // run's outputs alone, and the run's own memory check is the only one (a layout's builds its task graph). A
  // folder the run could not claim is refused before anything is simulated.
  viz::check_run_folder(s.output.dir);
  run::RunResult result =
      run::run_simulation(s, [](const std::string& note) { std::cerr << "dtsim: note: " << note << '\n'; });
  const std::vector<std::string> removed = viz::claim_run_folder(s.output.dir);
  result.info.command_line = command_line;
  const std::vector<std::string> outputs = viz::run_output_names(s.output.timeline);
  const nlohmann::json report = viz::report_json(result, outputs);
  viz::print_console_summary(std::cout, result, report);
  if (!removed.empty()) std::cout << "removed " << removed.size() << " outputs of an earlier run in " << s.output.dir << '\n';
  // report.json last: a folder whose report.json lists a file holds that file from the same run.
  viz::write_summary_csv(s.output.dir + "/summary.csv", result);
  if (s.output.timeline) viz::write_chrome_trace(s.output.dir + "/timeline.json", result);
  viz::write_report_json(s.output.dir + "/report.json", report);
  std::cout << "wrote";
  for (const std::string& name : outputs) std::cout << (name == outputs.front() ? " " : ", ") << s.output.dir << '/' << name;
  if (s.output.timeline) std::cout << " (open the timeline in ui.perfetto.dev)";
  std::cout << '\n';
  // What-ifs are proposed only with their simulated effect, by the one function `dtsim explain` prints them with.
  if (explain && !result.iterations.empty()) return explain_command(s.output.dir, 2, true);
  if (!result.iterations.empty())
    std::cout << "what-ifs: `dtsim explain " << s.output.dir
              << "` simulates each (one change to this run) and ranks them by effect; `dtsim run --explain` does both\n";
  return 0;
}

int validate_command(const std::string& file, const std::vector<std::string>& overrides, bool resolved) {
  const scenario::Scenario s = load(file, overrides);
  if (resolved) {
    std::cout << s.provenance.resolved_toml << '\n';
    return 0;
  }
  const memory::MemoryBreakdown m = run::check_memory(s);
  std::cout << s.source << ": ok (" << s.model.name << ", " << s.workers << " workers on " << s.platform.name << ", "
            << s.scheduler << ", " << scenario::fidelity_name(s.fidelity) << ")\n";
  std::cout << "  memory per GPU (" << m.where << ")" << (m.fits() ? "" : ": DOES NOT FIT (memory.check = \"warn\")")
            << '\n';
  for (const std::string& line : m.lines()) std::cout << line << '\n';
  return 0;
}

int list_command(const std::string& what) {
  if (what == "models") {
    for (const std::string& name : models::model_names()) {
      const models::Model m = models::make_model(name);
      std::printf("%-14s %13lld parameters %5lld tensors  %s\n", name.c_str(),
                  static_cast<long long>(m.parameter_count()), static_cast<long long>(m.tensor_count()),
                  m.source.c_str());
    }
  } else if (what == "gpus") {
    for (const std::string& name : models::gpu_names()) {
      const models::GpuProfile g = models::gpu_profile(name);
      // Dense TFLOP/s; 0: no such units.
      std::printf("%-10s fp32 %6.1f  fp16 %6.1f  fp8 %6.1f  fp4 %6.1f TFLOP/s  memory %4.0f GiB %6.0f GB/s  %3d SMs  %s\n",
                  name.c_str(), g.fp32_flops / 1e12, g.fp16_flops / 1e12, g.fp8_flops / 1e12, g.fp4_flops / 1e12,
                  g.memory_bytes / 1073741824.0, g.memory_Bps / 1e9, g.sm_count, g.source.c_str());
    }
  } else if (what == "collectives") {
    for (const std::string& name : collectives::collective_names()) std::printf("%s\n", name.c_str());
  } else if (what == "keys") {
    std::cout << scenario::scenario_reference_markdown();
  } else if (what == "coverage") {
    std::cout << scenario::coverage_markdown();
  } else if (what == "sync") {
    // The survey's Table 5 as dtsim enforces it: which scheme runs on which architecture.
    std::printf("%-12s", "");
    const auto width = [](const std::string& scheme) { return std::max(15, static_cast<int>(scheme.size())); };
    for (const std::string& scheme : sync::sync_names()) std::printf(" %-*s", width(scheme), scheme.c_str());
    std::printf("\n");
    for (const std::string& architecture : sync::architecture_names()) {
      std::printf("%-12s", architecture.c_str());
      for (const std::string& scheme : sync::sync_names()) {
        sync::SyncPolicy policy;
        policy.scheme = scheme;
        std::printf(" %-*s", width(scheme), sync::incompatibility(policy, architecture).empty() ? "yes" : "-");
      }
      std::printf("\n");
    }
    std::printf("(-: refused with the reason; backup workers and LAG need bsp on ps or byteps)\n");
    for (const sync::SchemeEntry& e : sync::scheme_registry())
      std::printf("%-18s %s\n", std::string(e.name).c_str(), e.scheme().title().c_str());
  } else if (what == "schedulers") {
    for (const std::string& name : scheduling::scheduler_names())
      std::printf("%-8s %s\n", name.c_str(), scheduling::scheduler_description(name).c_str());
  } else {
    for (const std::string& name : scenario::builtin_platform_names()) {
      const scenario::Scenario s = scenario::load_default_scenario({"platform=" + name, "workers=1"});
      std::printf("%-18s %5d GPUs  %s\n", name.c_str(), s.platform.hosts(), s.platform.description.c_str());
    }
  }
  return 0;
}

int platform_show_command(const std::string& platform, bool xml) {
  const platform::PlatformSpec spec = scenario::load_platform_reference(platform);
  std::cout << (xml ? platform::export_simgrid_xml(spec) : platform::format_description(platform::describe_platform(spec)));
  return 0;
}

}  // namespace dtsim::cli
