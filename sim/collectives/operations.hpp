#pragma once
/// The operations nccl-tests measures (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf,
/// broadcast_perf, sendrecv_perf), each with its registered algorithms, as `dtsim collective --op` runs them.
/// A plan's `bytes` is nccl-tests' size: the all-reduce's and broadcast's vector, the all-gather's output and the
/// reduce-scatter's input (bytes / p per rank's block), what each rank sends in all in an all-to-all (bytes / p to
/// each peer), what each rank sends in a send/recv.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/collectives/bus_bandwidth.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/nccl_tuning.hpp"

namespace dtsim::collectives {

/// allreduce, allgather, reduce_scatter, alltoall, broadcast, sendrecv: the operations make_operation builds.
std::vector<Operation> nccl_tests_operations();
/// Registry keys of `op`'s algorithms: the all-reduce's collective_names(); all-to-all alltoall_names() and auto;
/// the others nccl and auto (NCCL's: dtsim's hosts are GPUs).
std::vector<std::string> operation_algorithm_names(Operation op);
/// `op` by algorithm `algorithm`, tuned for `tuned_for`, NCCL's choice forced by `force` (NCCL_ALGO applies to the
/// all-reduce only, as in NCCL); throws core::InputError listing the known names.
std::unique_ptr<Collective> make_operation(Operation op, std::string_view algorithm, const LinkCosts& tuned_for,
                                           const NcclForce& force = {});
/// Registry keys of the all-to-all algorithms: nccl (grouped point-to-point sends, PXN where nodes have several
/// NICs: NCCL's default), direct (every send through the sender's own NIC: NCCL_PXN_DISABLE=1).
std::vector<std::string> alltoall_names();
/// The all-to-all `name`; throws core::InputError listing the known names.
std::unique_ptr<Collective> make_alltoall(std::string_view name, const LinkCosts& tuned_for);

}  // namespace dtsim::collectives
