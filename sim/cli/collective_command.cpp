#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/actors/simgrid_run.hpp"
#include "sim/cli/commands.hpp"
#include "sim/collectives/auto_allreduce.hpp"
#include "sim/collectives/bus_bandwidth.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::cli {
namespace {

/// "1KiB,64MiB" or "8B:1GiB" (powers of two from the first to the last, as nccl-tests -b/-e/-f 2).
std::vector<std::int64_t> parse_sizes(const std::string& list) {
  std::vector<std::int64_t> sizes;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t comma = list.find(',', begin);
    const std::string item = list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    try {
      if (const std::size_t colon = item.find(':'); colon != std::string::npos) {
        const std::int64_t first = core::parse_size(item.substr(0, colon));
        const std::int64_t last = core::parse_size(item.substr(colon + 1));
        if (first < 1 || last < first)
          throw core::InputError("the range '" + item + "' is empty", "write FIRST:LAST with 1B <= FIRST <= LAST");
        for (std::int64_t s = first; s <= last; s *= 2) sizes.push_back(s);
      } else {
        sizes.push_back(core::parse_size(item));
      }
    } catch (const core::InputError& e) {
      throw e.at("--sizes " + list);
    }
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return sizes;
}

}  // namespace

int collective_command(const CollectiveArguments& args) {
  const platform::PlatformSpec spec = scenario::load_platform_reference(args.platform);
  if (args.workers > spec.hosts())
    throw core::InputError("--workers " + std::to_string(args.workers),
                           "platform '" + spec.name + "' has " + std::to_string(spec.hosts()) + " GPUs",
                           "at most " + std::to_string(spec.hosts()));
  const scenario::Fidelity fidelity = scenario::parse_fidelity(args.fidelity);
  const std::vector<std::int64_t> sizes = parse_sizes(args.sizes);
  const collectives::LinkCosts costs = platform::link_costs(spec);
  collectives::NcclForce force;
  for (const auto& [flag, value] : {std::pair{"--nccl-algo", args.nccl_algo}, {"--nccl-proto", args.nccl_proto}}) {
    if (value.empty()) continue;
    if (args.algorithm != "nccl" && args.algorithm != "auto")
      throw core::InputError(std::string(flag) + " " + value, "it forces NCCL's choice, and --algorithm " +
                                 args.algorithm + " is not NCCL's", "--algorithm nccl (or auto)");
    try {
      if (std::string_view(flag) == "--nccl-algo") force.algorithm = collectives::parse_nccl_algorithm(value);
      else force.protocol = collectives::parse_nccl_protocol(value);
    } catch (const core::InputError& e) {
      throw e.at(std::string(flag) + " " + value);
    }
  }
  const auto collective = collectives::make_collective(args.algorithm, costs, force);
  const collectives::Group group{args.workers, spec.gpus_per_node};
  std::vector<collectives::Schedule> plans;
  for (std::int64_t bytes : sizes) plans.push_back(collective->plan(group, bytes));
  std::vector<double> times;
  if (fidelity == scenario::Fidelity::analytic) {
    const platform::Fabric fabric(spec);
    for (const auto& plan : plans) times.push_back(collectives::schedule_time_s(plan, fabric));
  } else {
    times = actors::simulate_schedules_s(spec, plans, fidelity == scenario::Fidelity::flow);
  }
  const auto* chooser = dynamic_cast<const collectives::AutoAllreduce*>(collective.get());
  // NCCL's choice per size, as NCCL_DEBUG=INFO's tuning lines name it ("tree/LL"): a last column for nccl/auto.
  const auto* nccl = dynamic_cast<const collectives::NcclAllreduce*>(collective.get());
  if (args.format == "csv") {
    fmt::print("bytes,algorithm,algbw_GBps,busbw_GBps,time_s{}\n", nccl ? ",nccl_choice,nccl_model_s" : "");
  } else {
    fmt::print("# all-reduce on {} ({} GPUs of {} per node), {} fidelity; algbw = S/t, busbw = algbw x 2(n-1)/n\n",
               spec.name, args.workers, spec.gpus_per_node, args.fidelity);
    fmt::print("{:>14} {:>20} {:>14} {:>12} {:>12}{}\n", "size (B)", "algorithm", "time (us)", "algbw GB/s",
               "busbw GB/s", nccl ? fmt::format(" {:>14} {:>15}", "nccl_choice", "NCCL model (us)") : "");
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double bytes = static_cast<double>(sizes[i]);
    // NCCL's own prediction for its choice (tuning.cc's latency + bytes / algBw), beside dtsim's simulated time.
    const collectives::NcclChoice choice = nccl ? nccl->chosen(group, bytes) : collectives::NcclChoice{};
    const double model_s = nccl ? collectives::nccl_predicted_s(choice, group, costs, bytes) : 0.0;
    const std::string algorithm = chooser ? chooser->chosen(group, bytes)
                                  : nccl  ? collectives::nccl_algorithm_name(choice.algorithm)
                                          : std::string(collective->name());
    const double algbw = collectives::algorithm_bandwidth_Bps(bytes, times[i]) / 1e9;
    const double busbw =
        collectives::bus_bandwidth_Bps(collectives::Operation::allreduce, args.workers, bytes, times[i]) / 1e9;
    if (args.format == "csv")
      fmt::print("{},{},{:.17g},{:.17g},{:.17g}{}\n", sizes[i], algorithm, algbw, busbw, times[i],
                 nccl ? fmt::format(",{},{:.17g}", choice.name(), model_s) : "");
    else
      fmt::print("{:>14} {:>20} {:>14.3f} {:>12.3f} {:>12.3f}{}\n", sizes[i], algorithm, times[i] * 1e6, algbw, busbw,
                 nccl ? fmt::format(" {:>14} {:>15.3f}", choice.name(), model_s * 1e6) : "");
  }
  return 0;
}

}  // namespace dtsim::cli
