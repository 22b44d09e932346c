#pragma once
/// Factories of the algorithms whose classes live in their .cpp files; the registry tables point at them.
#include <memory>

#include "sim/collectives/block_collective.hpp"
#include "sim/collectives/nccl_tuning.hpp"
#include "sim/collectives/traced_collective.hpp"

namespace dtsim::collectives {

/// recursive_doubling.cpp (all-reduce)
std::unique_ptr<Collective> make_recursive_doubling();
/// rabenseifner.cpp
std::unique_ptr<Collective> make_rabenseifner();
/// binomial_tree.cpp
std::unique_ptr<Collective> make_binomial_tree();
/// binary_tree.cpp; segment count tuned for `tuned_for`
std::unique_ptr<Collective> make_binary_tree(const LinkCosts& tuned_for);
/// double_binary_tree.cpp; segment count tuned for `tuned_for`
std::unique_ptr<Collective> make_double_binary_tree(const LinkCosts& tuned_for);
/// hierarchical.cpp
std::unique_ptr<Collective> make_hierarchical();
/// torus2d.cpp
std::unique_ptr<Collective> make_torus2d();
/// in_network.cpp; chunks tuned for `tuned_for` (its reducing switch)
std::unique_ptr<Collective> make_in_network(const LinkCosts& tuned_for);

/// ring_allgatherv.cpp
std::unique_ptr<BlockCollective> make_ring_allgatherv();
/// recursive_doubling_allgatherv.cpp
std::unique_ptr<BlockCollective> make_recursive_doubling_allgatherv();
/// bruck_allgatherv.cpp
std::unique_ptr<BlockCollective> make_bruck_allgatherv();
/// ring_reduce_scatter.cpp
std::unique_ptr<BlockCollective> make_ring_reduce_scatter();
/// recursive_halving_reduce_scatter.cpp
std::unique_ptr<BlockCollective> make_recursive_halving_reduce_scatter();
/// binomial_gather.cpp
std::unique_ptr<BlockCollective> make_binomial_gather();
/// binomial_broadcast.cpp
std::unique_ptr<Collective> make_binomial_broadcast();
/// scatter_allgather_broadcast.cpp
std::unique_ptr<Collective> make_scatter_allgather_broadcast();
/// binomial_reduce.cpp
std::unique_ptr<Collective> make_binomial_reduce();
/// nccl_broadcast.cpp
std::unique_ptr<Collective> make_nccl_broadcast(const LinkCosts& tuned_for, const NcclForce& force);
/// nccl_alltoall.cpp: PXN where the nodes have several NICs (NCCL's default)
std::unique_ptr<Collective> make_nccl_alltoall(const LinkCosts& tuned_for);
/// nccl_alltoall.cpp: every send through the sender's own NIC (NCCL_PXN_DISABLE=1)
std::unique_ptr<Collective> make_direct_alltoall(const LinkCosts& tuned_for);
/// nccl_sendrecv.cpp
std::unique_ptr<Collective> make_nccl_sendrecv(const LinkCosts& tuned_for);

}  // namespace dtsim::collectives
