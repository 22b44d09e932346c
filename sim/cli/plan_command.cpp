#include <unistd.h>

#include <iostream>

#include "sim/cli/commands.hpp"
#include "sim/core/atomic_file.hpp"
#include "sim/plan/plan_report.hpp"
#include "sim/scenario/plan_spec.hpp"
#include "sim/sweep/folder_lock.hpp"

namespace dtsim::cli {

int plan_command(const PlanArguments& args) {
  scenario::PlanSpec plan = scenario::load_plan(args.file);
  if (!args.out_dir.empty()) plan.output_dir = args.out_dir;
  const int jobs = args.jobs > 0 ? args.jobs : plan.jobs;
  // Its candidates run as a sweep's points in this folder: a second plan or sweep into it is refused.
  const sweep::FolderLock lock(plan.output_dir, 0, 1, "dtsim plan " + args.file);
  const plan::PlanResult result =
      plan::search(plan, {self_executable(), jobs, "analytic"}, std::cerr, isatty(STDERR_FILENO) == 1);
  plan::print_plan(std::cout, plan, result);
  const std::string json_path = plan.output_dir + "/plan.json";
  core::write_atomically(json_path, [&](std::ostream& out) {
    out << plan::plan_json(plan, result, args.command_line).dump(2) << '\n';
  });
  std::cout << "wrote " << json_path << "\n";
  return result.recommended >= 0 ? 0 : 1;
}

}  // namespace dtsim::cli
