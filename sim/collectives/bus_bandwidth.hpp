#pragma once
/// nccl-tests' bandwidth definitions (NVIDIA nccl-tests, doc/PERFORMANCE.md; algorithms.md 7.2), so dtsim
/// reports numbers comparable with measured ones.
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::collectives {

/// The collectives nccl-tests reports a bus bandwidth for.
enum class Operation {
  allreduce,
  allreduce_in_network,  ///< all-reduce with in-network reduction (SHARP)
  reduce_scatter,
  allgather,
  alltoall,
  broadcast,
  reduce,
  sendrecv,  ///< nccl-tests' sendrecv: every rank sends to the next and receives from the previous
};

/// Names as the CLI takes them, in enum order.
std::vector<std::string> operation_names();
/// The operation called `name`; throws core::InputError listing the known names.
Operation parse_operation(std::string_view name);

/// algbw = S / t. S is the vector size for all-reduce, broadcast and reduce, and the total size (count per
/// rank x ranks) for reduce-scatter, all-gather and all-to-all.
double algorithm_bandwidth_Bps(double bytes, double seconds);
/// busbw / algbw: 2(n-1)/n all-reduce, (n-1)/(n+1) in-network all-reduce, (n-1)/n reduce-scatter,
/// all-gather and all-to-all, 1 broadcast, reduce and send/recv.
double bus_bandwidth_factor(Operation op, int ranks);
/// busbw = algbw x factor: the per-rank link bandwidth the collective achieved.
double bus_bandwidth_Bps(Operation op, int ranks, double bytes, double seconds);

}  // namespace dtsim::collectives
