#include <functional>
#include <utility>

#include "sim/collectives/auto_allreduce.hpp"
#include "sim/collectives/chunking.hpp"
#include "sim/collectives/factories.hpp"
#include "sim/collectives/nccl_allreduce.hpp"
#include "sim/collectives/nccl_ring_phase.hpp"
#include "sim/collectives/operations.hpp"
#include "sim/collectives/ring_allreduce.hpp"
#include "sim/core/error.hpp"

namespace dtsim::collectives {
namespace {

template <class T, class... Args>
using Table = std::vector<std::pair<std::string, std::function<std::unique_ptr<T>(const Args&...)>>>;

template <class Entry>
std::vector<std::string> keys(const std::vector<Entry>& table) {
  std::vector<std::string> names;
  for (const auto& [name, factory] : table) names.push_back(name);
  return names;
}

template <class Entry, class... Args>
auto make(const std::vector<Entry>& table, std::string_view what, std::string_view name, const Args&... args) {
  for (const auto& [key, factory] : table)
    if (key == name) return factory(args...);
  throw core::unknown_name(what, name, keys(table));
}

const Table<Collective, LinkCosts>& allreduce() {
  static const Table<Collective, LinkCosts> table{
      {"ring", [](const LinkCosts&) { return std::make_unique<RingAllreduce>(); }},
      {"recursive_doubling", [](const LinkCosts&) { return make_recursive_doubling(); }},
      {"rabenseifner", [](const LinkCosts&) { return make_rabenseifner(); }},
      {"binomial_tree", [](const LinkCosts&) { return make_binomial_tree(); }},
      {"binary_tree", make_binary_tree},
      {"double_binary_tree", make_double_binary_tree},
      {"hierarchical", [](const LinkCosts&) { return make_hierarchical(); }},
      {"torus2d", [](const LinkCosts&) { return make_torus2d(); }},
      {"in_network", make_in_network},
      {"nccl", [](const LinkCosts& c) { return std::make_unique<NcclAllreduce>("nccl", c); }},
      {"mpich_auto", [](const LinkCosts& c) { return std::make_unique<AutoAllreduce>(c); }},
      // dtsim's hosts are GPUs, whose users all-reduce with NCCL: `auto` is NCCL's choice.
      {"auto", [](const LinkCosts& c) { return std::make_unique<NcclAllreduce>("auto", c); }},
  };
  return table;
}

const Table<Collective, LinkCosts>& alltoall() {
  static const Table<Collective, LinkCosts> table{
      {"nccl", make_nccl_alltoall},
      {"direct", make_direct_alltoall},
  };
  return table;
}

/// NCCL's all-gather, reduce-scatter, broadcast and send/recv, and the all-to-all's algorithms, by operation; `auto`
/// is NCCL's (dtsim's hosts are GPUs). The all-reduce is make_collective's.
const std::vector<std::pair<Operation, Table<Collective, LinkCosts, NcclForce>>>& operations() {
  const auto ring_phase = [](NcclFunction f) {
    return [f](const LinkCosts& c, const NcclForce& force) { return std::make_unique<NcclRingPhase>(f, c, force); };
  };
  const auto p2p = [](auto make) { return [make](const LinkCosts& c, const NcclForce&) { return make(c); }; };
  static const std::vector<std::pair<Operation, Table<Collective, LinkCosts, NcclForce>>> table{
      {Operation::allgather, {{"nccl", ring_phase(NcclFunction::allgather)}, {"auto", ring_phase(NcclFunction::allgather)}}},
      {Operation::reduce_scatter,
       {{"nccl", ring_phase(NcclFunction::reduce_scatter)}, {"auto", ring_phase(NcclFunction::reduce_scatter)}}},
      {Operation::alltoall,
       {{"nccl", p2p(make_nccl_alltoall)}, {"direct", p2p(make_direct_alltoall)}, {"auto", p2p(make_nccl_alltoall)}}},
      {Operation::broadcast, {{"nccl", make_nccl_broadcast}, {"auto", make_nccl_broadcast}}},
      {Operation::sendrecv, {{"nccl", p2p(make_nccl_sendrecv)}, {"auto", p2p(make_nccl_sendrecv)}}},
  };
  return table;
}

const Table<Collective, LinkCosts, NcclForce>* operation_table(Operation op) {
  for (const auto& [key, table] : operations())
    if (key == op) return &table;
  return nullptr;
}

const Table<Collective>& broadcast() {
  static const Table<Collective> table{
      {"binomial", make_binomial_broadcast},
      {"scatter_allgather", make_scatter_allgather_broadcast},
  };
  return table;
}

const Table<Collective>& reduce() {
  static const Table<Collective> table{{"binomial", make_binomial_reduce}};
  return table;
}

const Table<BlockCollective>& allgatherv() {
  static const Table<BlockCollective> table{
      {"ring", make_ring_allgatherv},
      {"recursive_doubling", make_recursive_doubling_allgatherv},
      {"bruck", make_bruck_allgatherv},
  };
  return table;
}

const Table<BlockCollective>& reduce_scatter() {
  static const Table<BlockCollective> table{
      {"ring", make_ring_reduce_scatter},
      {"recursive_halving", make_recursive_halving_reduce_scatter},
  };
  return table;
}

const Table<BlockCollective>& gather() {
  static const Table<BlockCollective> table{{"binomial", make_binomial_gather}};
  return table;
}

}  // namespace

std::vector<std::string> collective_names() { return keys(allreduce()); }

std::unique_ptr<Collective> make_collective(std::string_view name) {
  return make_collective(name, reference_link_costs());
}

std::unique_ptr<Collective> make_collective(std::string_view name, const LinkCosts& tuned_for) {
  return make(allreduce(), "collective", name, tuned_for);
}

LinkCosts reference_link_costs() { return LinkCosts::uniform({10e-6, 1.0 / 12.5e9}); }

std::vector<Operation> nccl_tests_operations() {
  std::vector<Operation> ops{Operation::allreduce};
  for (const auto& [op, table] : operations()) ops.push_back(op);
  return ops;
}

std::vector<std::string> operation_algorithm_names(Operation op) {
  if (op == Operation::allreduce) return collective_names();
  const auto* table = operation_table(op);
  return table ? keys(*table) : std::vector<std::string>{};
}

std::unique_ptr<Collective> make_operation(Operation op, std::string_view algorithm, const LinkCosts& tuned_for,
                                           const NcclForce& force) {
  if (op == Operation::allreduce) return make_collective(algorithm, tuned_for, force);
  const auto* table = operation_table(op);
  if (!table)
    throw core::InputError("operation '" + operation_names()[static_cast<std::size_t>(op)] + "'", "dtsim does not run it on its own",
                           "one of allreduce, allgather, reduce_scatter, alltoall, broadcast, sendrecv");
  return make(*table, operation_names()[static_cast<std::size_t>(op)] + " algorithm", algorithm, tuned_for, force);
}

std::vector<std::string> alltoall_names() { return keys(alltoall()); }
std::unique_ptr<Collective> make_alltoall(std::string_view name, const LinkCosts& tuned_for) {
  return make(alltoall(), "all-to-all", name, tuned_for);
}

std::vector<std::string> broadcast_names() { return keys(broadcast()); }
std::unique_ptr<Collective> make_broadcast(std::string_view name) { return make(broadcast(), "broadcast", name); }
std::vector<std::string> reduce_names() { return keys(reduce()); }
std::unique_ptr<Collective> make_reduce(std::string_view name) { return make(reduce(), "reduce", name); }

std::vector<std::string> allgatherv_names() { return keys(allgatherv()); }
std::unique_ptr<BlockCollective> make_allgatherv(std::string_view name) {
  return make(allgatherv(), "all-gather", name);
}
std::vector<std::string> reduce_scatter_names() { return keys(reduce_scatter()); }
std::unique_ptr<BlockCollective> make_reduce_scatter(std::string_view name) {
  return make(reduce_scatter(), "reduce-scatter", name);
}
std::vector<std::string> gather_names() { return keys(gather()); }
std::unique_ptr<BlockCollective> make_gather(std::string_view name) { return make(gather(), "gather", name); }

std::vector<std::int64_t> equal_blocks(int ranks, std::int64_t bytes) {
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) sizes[static_cast<std::size_t>(r)] = chunk_bytes(bytes, ranks, r);
  return sizes;
}

std::optional<std::int64_t> uniform_blocks_total(const std::vector<std::int64_t>& block_bytes) {
  std::int64_t bytes = 0;
  for (const std::int64_t b : block_bytes) {
    if (b != block_bytes.front()) return std::nullopt;
    bytes += b;
  }
  if (block_bytes.empty()) return std::nullopt;
  return bytes;
}

}  // namespace dtsim::collectives
