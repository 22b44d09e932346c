// Hierarchical two-level all-reduce (Horovod's HOROVOD_HIERARCHICAL_ALLREDUCE; Jia et al. 2018 use a
// variant): intra-node reduce-scatter, inter-node ring all-reduce of each shard, intra-node all-gather.
// The schedule, its picture and its cost are in grid_allreduce.hpp (X = ranks per node, Y = nodes).
#include "sim/collectives/factories.hpp"
#include "sim/collectives/grid_allreduce.hpp"

namespace dtsim::collectives {

std::unique_ptr<Collective> make_hierarchical() { return std::make_unique<GridAllreduce>("hierarchical"); }

}  // namespace dtsim::collectives
