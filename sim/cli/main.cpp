// dtsim command line: argv -> load -> run -> viz. Exit 0 on success, 2 on bad input, 1 on an internal error.
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "models/gpu_profile.hpp"
#include "models/zoo.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/core/error.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scheduling/scheduler.hpp"
#include "viz/reports.hpp"

namespace {

using namespace dtsim;

constexpr int kBadInput = 2;
constexpr int kInternal = 1;

scenario::Scenario load(const std::string& file, const std::vector<std::string>& overrides) {
  return file.empty() ? scenario::load_default_scenario(overrides) : scenario::load_scenario(file, overrides);
}

int run_command(const std::string& file, const std::vector<std::string>& overrides, const std::string& out_dir) {
  scenario::Scenario s = load(file, overrides);
  if (!out_dir.empty()) s.output.dir = out_dir;
  const run::RunResult result = run::run_simulation(s);
  viz::print_console_summary(std::cout, result);
  viz::write_report_json(s.output.dir + "/report.json", result);
  viz::write_summary_csv(s.output.dir + "/summary.csv", result);
  std::cout << "wrote " << s.output.dir << "/report.json, " << s.output.dir << "/summary.csv";
  if (s.output.timeline) {
    viz::write_chrome_trace(s.output.dir + "/timeline.json", result);
    std::cout << ", " << s.output.dir << "/timeline.json (open in ui.perfetto.dev)";
  }
  std::cout << '\n';
  return 0;
}

int validate_command(const std::string& file, const std::vector<std::string>& overrides) {
  const scenario::Scenario s = load(file, overrides);
  std::cout << file << ": ok (" << s.model.name << ", " << s.workers << " workers on " << s.platform.name << ", "
            << s.scheduler << ", " << scenario::fidelity_name(s.fidelity) << ")\n";
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
      std::printf("%-10s fp32 %6.1f TFLOP/s  fp16 %6.1f TFLOP/s  memory %6.0f GB/s  %s\n", name.c_str(),
                  g.fp32_flops / 1e12, g.fp16_flops / 1e12, g.memory_Bps / 1e9, g.source.c_str());
    }
  } else if (what == "collectives") {
    for (const std::string& name : collectives::collective_names()) std::printf("%s\n", name.c_str());
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dtsim: simulate distributed deep-learning training on a modelled cluster"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "dtsim 0.1.0");

  std::string file;
  std::vector<std::string> overrides;
  std::string out_dir;
  std::string what;

  CLI::App* run = app.add_subcommand("run", "simulate a scenario and write the reports");
  run->add_option("scenario", file, "scenario TOML file (default: the built-in default scenario)");
  run->add_option("--out", out_dir, "output folder (default: output.dir of the scenario)");
  run->add_option("--set", overrides, "override a scenario key: --set section.key=value (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);

  CLI::App* validate = app.add_subcommand("validate", "check a scenario file without simulating");
  validate->add_option("scenario", file, "scenario TOML file")->required();
  validate->add_option("--set", overrides, "override a scenario key: --set section.key=value (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);

  CLI::App* list = app.add_subcommand("list", "list built-in models, GPUs, collectives, schedulers or platforms");
  list->add_option("what", what, "models | gpus | collectives | schedulers | platforms")
      ->required()
      ->check(CLI::IsMember({"models", "gpus", "collectives", "schedulers", "platforms"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kBadInput;
  }
  try {
    if (*run) return run_command(file, overrides, out_dir);
    if (*validate) return validate_command(file, overrides);
    return list_command(what);
  } catch (const core::InputError& e) {
    std::cerr << "dtsim: error: " << e.what() << '\n';
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << "dtsim: internal error: " << e.what() << '\n';
    return kInternal;
  }
}
