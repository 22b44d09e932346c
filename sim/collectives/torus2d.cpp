// 2D-torus all-reduce (Mikami et al. 2018, "ImageNet/ResNet-50 training in 224 seconds"): the ranks as an
// X x Y grid, reduce-scatter along X, all-reduce along Y, all-gather along X, 2(X-1) + 2(Y-1) steps instead
// of the flat ring's 2(XY-1). Here X = ranks per node and Y = nodes, which makes it the same schedule as
// hierarchical; the schedule, its picture and its cost are in grid_allreduce.hpp.
#include "sim/collectives/factories.hpp"
#include "sim/collectives/grid_allreduce.hpp"

namespace dtsim::collectives {

std::unique_ptr<Collective> make_torus2d() { return std::make_unique<GridAllreduce>("torus2d"); }

}  // namespace dtsim::collectives
