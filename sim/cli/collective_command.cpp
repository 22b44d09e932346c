#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/actors/simgrid_run.hpp"
#include "sim/cli/commands.hpp"
#include "sim/collectives/auto_allreduce.hpp"
#include "sim/collectives/bus_bandwidth.hpp"
#include "sim/collectives/in_network.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/nccl_in_network.hpp"
#include "sim/collectives/operations.hpp"
#include "sim/collectives/schedule_time.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim::cli {
namespace {

constexpr std::size_t kMaxSizes = 10000;

/// "1KiB,64MiB" or "8B:1GiB" (powers of two from the first to the last, as nccl-tests -b/-e/-f 2).
std::vector<std::int64_t> parse_size_list(const std::string& list) {
  std::vector<std::int64_t> sizes;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t comma = list.find(',', begin);
    const std::string item = list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    try {
      if (const std::size_t colon = item.find(':'); colon != std::string::npos) {
        const std::int64_t first = core::parse_nccl_size(item.substr(0, colon));
        const std::int64_t last = core::parse_nccl_size(item.substr(colon + 1));
        if (first < 1 || last < first)
          throw core::InputError("the range '" + item + "' is empty", "write FIRST:LAST with 1B <= FIRST <= LAST");
        for (std::int64_t s = first; s <= last; s *= 2) sizes.push_back(s);
      } else {
        sizes.push_back(core::parse_nccl_size(item));
      }
    } catch (const core::InputError& e) {
      throw e.at("--sizes " + list);
    }
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return sizes;
}

/// nccl-tests' -b MIN -e MAX with -f FACTOR (multiply) or -i STEP (add; 1M by default).
std::vector<std::int64_t> nccl_tests_sizes(const CollectiveArguments& args) {
  const std::string flags = "-b " + args.min_bytes + (args.max_bytes.empty() ? "" : " -e " + args.max_bytes) +
                            (args.step_factor > 1 ? " -f " + std::to_string(args.step_factor) : "") +
                            (args.step_bytes.empty() ? "" : " -i " + args.step_bytes);
  std::vector<std::int64_t> sizes;
  try {
    const std::int64_t first = core::parse_nccl_size(args.min_bytes);
    const std::int64_t last = args.max_bytes.empty() ? first : core::parse_nccl_size(args.max_bytes);
    const std::int64_t step = core::parse_nccl_size(args.step_bytes.empty() ? "1M" : args.step_bytes);
    if (last < first) throw core::InputError("-e is below -b", "-b MIN -e MAX with MIN <= MAX");
    if (args.step_factor <= 1 && step < 1) throw core::InputError("-i is 0", "a step of at least 1 byte");
    if (args.step_factor > 1 && first < 1)
      throw core::InputError("-b 0 with -f never grows", "-b of at least 1 byte with -f, or -i");
    for (std::int64_t s = first;;) {
      if (sizes.size() == kMaxSizes)
        throw core::InputError("more than " + std::to_string(kMaxSizes) + " sizes",
                               "a larger -i, or -f 2 for powers of two");
      sizes.push_back(s);
      if (args.step_factor > 1 ? s > last / args.step_factor : s > last - step) break;
      s = args.step_factor > 1 ? s * args.step_factor : s + step;
    }
  } catch (const core::InputError& e) {
    throw e.at(flags);
  }
  return sizes;
}

std::vector<std::int64_t> sizes_of(const CollectiveArguments& args) {
  if (!args.sizes.empty()) return parse_size_list(args.sizes);
  if (!args.min_bytes.empty()) return nccl_tests_sizes(args);
  throw core::InputError("dtsim collective", "no sizes given",
                         "--sizes LIST, or nccl-tests' -b MIN [-e MAX] [-f FACTOR | -i STEP]");
}

/// nccl-tests' element types (-d) and their sizes in bytes, in nccl-tests' order (src/common.cu test_typenames).
const std::vector<std::pair<std::string, std::int64_t>>& element_types() {
  static const std::vector<std::pair<std::string, std::int64_t>> types{
      {"int8", 1}, {"uint8", 1}, {"int32", 4}, {"uint32", 4}, {"int64", 8},
      {"uint64", 8}, {"half", 2}, {"float", 4}, {"double", 8}, {"bfloat16", 2}};
  return types;
}

std::int64_t element_bytes(const std::string& type) {
  std::vector<std::string> names;
  for (const auto& [name, bytes] : element_types()) {
    if (name == type) return bytes;
    names.push_back(name);
  }
  throw core::unknown_name("element type", type, names).at("-d " + type);
}

/// The operations `dtsim collective --op` runs, by name.
collectives::Operation parse_op(const std::string& name) {
  std::vector<std::string> names;
  for (collectives::Operation op : collectives::nccl_tests_operations()) {
    names.push_back(collectives::operation_names()[static_cast<std::size_t>(op)]);
    if (names.back() == name) return op;
  }
  throw core::unknown_name("operation", name, names).at("--op " + name);
}

/// busbw / algbw as nccl-tests' doc/PERFORMANCE.md writes it.
std::string factor_formula(collectives::Operation op) {
  switch (op) {
    case collectives::Operation::allreduce: return "2(n-1)/n";
    case collectives::Operation::allgather:
    case collectives::Operation::reduce_scatter:
    case collectives::Operation::alltoall: return "(n-1)/n";
    default: return "1";
  }
}

}  // namespace

int collective_command(const CollectiveArguments& args) {
  const platform::PlatformSpec spec = scenario::load_platform_reference(args.platform);
  if (args.workers > spec.hosts())
    throw core::InputError("--workers " + std::to_string(args.workers),
                           "platform '" + spec.name + "' has " + std::to_string(spec.hosts()) + " GPUs",
                           "at most " + std::to_string(spec.hosts()));
  if (args.workers < 2)
    throw core::InputError("--workers " + std::to_string(args.workers), "one rank moves nothing: no time to measure",
                           "at least 2");
  const collectives::Operation op = parse_op(args.op);
  const bool allreduce = op == collectives::Operation::allreduce;
  const std::string algorithm = !args.algorithm.empty() ? args.algorithm : allreduce ? "ring" : "nccl";
  const std::int64_t type_bytes = element_bytes(args.type);
  const scenario::Fidelity fidelity = scenario::parse_fidelity(args.fidelity);
  const std::vector<std::int64_t> sizes = sizes_of(args);
  const collectives::LinkCosts costs = platform::link_costs(spec);
  collectives::NcclForce force;
  for (const auto& [flag, value] : {std::pair{"--nccl-algo", args.nccl_algo}, {"--nccl-proto", args.nccl_proto}}) {
    if (value.empty()) continue;
    if (algorithm != "nccl" && algorithm != "auto")
      throw core::InputError(std::string(flag) + " " + value, "it forces NCCL's choice, and --algorithm " +
                                 algorithm + " is not NCCL's", "--algorithm nccl (or auto)");
    if (!allreduce && (std::string_view(flag) == "--nccl-algo" || op == collectives::Operation::alltoall ||
                       op == collectives::Operation::sendrecv))
      throw core::InputError(std::string(flag) + " " + value,
                             "NCCL runs " + args.op + (std::string_view(flag) == "--nccl-algo" ? " with the ring only (NCCL_ALGO sets the all-reduce's)"
                                                                                               : " point to point with Simple only"),
                             std::string("no ") + flag + ", or --op allreduce");
    try {
      if (std::string_view(flag) == "--nccl-algo") force.algorithm = collectives::parse_nccl_algorithm(value);
      else force.protocol = collectives::parse_nccl_protocol(value);
    } catch (const core::InputError& e) {
      throw e.at(std::string(flag) + " " + value);
    }
  }
  const collectives::Group group{args.workers, spec.gpus_per_node};
  const bool forced_in_network = force.algorithm && collectives::nccl_in_network(*force.algorithm);
  if (algorithm == "in_network" || forced_in_network)
    if (const std::string why = collectives::in_network_refusal(group, costs); !why.empty())
      throw core::InputError(forced_in_network ? "--nccl-algo " + args.nccl_algo : "--algorithm in_network",
                             "it sums at a switch: " + why + " on platform '" + spec.name + "'",
                             "a platform whose switch sums, or another algorithm");
  if (forced_in_network && force.protocol && *force.protocol != collectives::NcclProtocol::simple)
    throw core::InputError("--nccl-proto " + args.nccl_proto, "NCCL runs " + args.nccl_algo + " with Simple only",
                           "--nccl-proto Simple, or no --nccl-proto");
  std::unique_ptr<collectives::Collective> collective;
  try {
    collective = collectives::make_operation(op, algorithm, costs, force);
  } catch (const core::InputError& e) {
    throw e.at("--op " + args.op + " --algorithm " + algorithm);
  }
  // Plans are built only where the level needs every transfer: the analytic level times the collective's plan
  // in closed form or by its per-hop walk (plan_time_s) where it knows one, the flow level takes its fused plan,
  // so a ring of p ranks costs O(p), not its 2(p-1) x p transfers.
  std::vector<double> times;
  if (fidelity == scenario::Fidelity::analytic) {
    const platform::Fabric fabric(spec);
    for (std::int64_t bytes : sizes) {
      const std::optional<double> walked = collective->plan_time_s(group, bytes, fabric);
      times.push_back(walked ? *walked : collectives::schedule_time_s(collective->plan(group, bytes), fabric));
    }
  } else {
    const bool fuse = fidelity == scenario::Fidelity::flow;
    std::vector<std::vector<std::vector<actors::Flow>>> flows;
    for (std::int64_t bytes : sizes) {
      std::optional<std::vector<collectives::FusedStep>> fused;
      if (fuse) fused = collective->fused_plan(group, bytes);
      flows.push_back(fused ? actors::flow_steps(*fused) : actors::flow_steps(collective->plan(group, bytes), fuse));
    }
    times = actors::simulate_flows_s(spec, flows, args.workers);
  }
  const auto* chooser = dynamic_cast<const collectives::AutoAllreduce*>(collective.get());
  // NCCL's choice per size, as NCCL_DEBUG=INFO's tuning lines name it ("tree/LL"), and NCCL's own prediction for it
  // (tuning.cc's latency + bytes / algBw) beside dtsim's simulated time: last columns for NCCL's algorithms.
  const auto* nccl = dynamic_cast<const collectives::NcclTuned*>(collective.get());
  const double factor = collectives::bus_bandwidth_factor(op, args.workers);
  if (args.format == "csv") {
    fmt::print("{}{}\n", kCollectiveCsvHeader, nccl ? kCollectiveCsvNcclColumns : "");
  } else {
    fmt::print("# {} on {} ({} GPUs of {} per node), {} fidelity; algbw = S/t, busbw = algbw x {} = {:.4g}\n", args.op,
               spec.name, args.workers, spec.gpus_per_node, args.fidelity, factor_formula(op), factor);
    fmt::print("{:>14} {:>12} {:>8} {:>20} {:>14} {:>12} {:>12}{}\n", "size (B)", "count", "type", "algorithm",
               "time (us)", "algbw GB/s", "busbw GB/s",
               nccl ? fmt::format(" {:>14} {:>15}", "nccl_choice", "NCCL model (us)") : "");
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double bytes = static_cast<double>(sizes[i]);
    const std::string choice = nccl ? nccl->choice_name(group, bytes) : "";
    const std::optional<double> model_s = nccl ? nccl->model_s(group, bytes) : std::nullopt;
    // NCCL's prediction: seconds in csv (empty where NCCL has none), microseconds in the table ("-").
    const std::string model_csv = model_s.has_value() ? fmt::format("{:.17g}", model_s.value()) : "";
    const std::string model_us = model_s.has_value() ? fmt::format("{:.3f}", model_s.value() * 1e6) : "-";
    const std::string name = chooser ? chooser->chosen(group, bytes)
                             : nccl  ? choice.substr(0, choice.find('/'))
                                     : std::string(collective->name());
    const double algbw = collectives::algorithm_bandwidth_Bps(bytes, times[i]) / 1e9;
    const double busbw = algbw * factor;
    const std::int64_t count = sizes[i] / type_bytes;
    if (args.format == "csv")
      fmt::print("{},{},{},{},{:.17g},{:.17g},{:.17g}{}\n", sizes[i], count, args.type, name, algbw, busbw, times[i],
                 nccl ? fmt::format(",{},{}", choice, model_csv) : "");
    else
      fmt::print("{:>14} {:>12} {:>8} {:>20} {:>14.3f} {:>12.3f} {:>12.3f}{}\n", sizes[i], count, args.type, name,
                 times[i] * 1e6, algbw, busbw,
                 nccl ? fmt::format(" {:>14} {:>15}", choice, model_us) : "");
  }
  return 0;
}

}  // namespace dtsim::cli
