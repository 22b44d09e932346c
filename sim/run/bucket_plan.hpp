#pragma once
/// The data dimension's buckets, for plain data parallelism and for each pipeline stage of a layout alike: the
/// configured scheduler over the gradients and their backward timeline, then, with a compressor, each bucket's
/// compression work (compress, the compressor's exchanges among the data-parallel ranks, decompress).
#include <span>
#include <string>

#include "sim/collectives/collective.hpp"
#include "sim/run/compression_work.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scheduling/iteration_plan.hpp"
#include "sim/scheduling/scheduling_input.hpp"

namespace dtsim::run {

/// The configured all-reduce on `group` over the platform's link costs as alpha + n beta (its closed form at 0
/// and at 1 GiB): what a scheduler prices a bucket with.
collectives::AlphaBeta allreduce_alpha_beta(const scenario::Scenario& s, const collectives::Group& group);

/// What a framework's element-wise copies cost on `s`'s GPU: memory bandwidth x memory_efficiency, gpu.launch's
/// per-kernel costs (scheduling/copy_costs.hpp); every framework's copies, bucket and sharded alike.
scheduling::CopyCosts copy_costs(const scenario::Scenario& s);
/// What the framework's operations cost on `s`'s GPU and platform when it hands `tensors` tensors to the library:
/// copies at the memory-bound rate (memory bandwidth x memory_efficiency) with gpu.launch's per-kernel costs, and
/// (framework "horovod") its negotiation round over all workers on the platform's links.
scheduling::FrameworkCosts framework_costs(const scenario::Scenario& s, std::size_t tensors);

/// Fills `plan`'s buckets and credit with `s.scheduler`'s buckets of `input`, carried by `s.framework`, and, with a compressor, its work with
/// each bucket's compression among `ranks` data-parallel ranks (compression_work over `pieces`, one entry per tensor
/// of `input`; `note`, when given, says how the kernels were timed).
void plan_buckets(const scenario::Scenario& s, const scheduling::SchedulingInput& input, const GradientPieces& pieces,
                  int ranks, scheduling::IterationPlan& plan, std::string* note = nullptr,
                  std::span<const float> real_gradient = {});

}  // namespace dtsim::run
