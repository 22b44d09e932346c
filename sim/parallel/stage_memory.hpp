#pragma once
/// Peak memory of a GPU of one pipeline stage under a 3D-parallel layout.
#include "models/gpu_profile.hpp"
#include "models/model.hpp"
#include "models/optimizer.hpp"
#include "sim/memory/memory_breakdown.hpp"
#include "sim/memory/recomputation.hpp"
#include "sim/parallel/workload.hpp"

namespace dtsim::parallel {

/// What the stage's GPUs hold at their peak:
/// - model states of the stage's parameters (split over the tensor group) by precision, gradient dtype and
///   optimizer (memory::model_states), of which ZeRO-1 shards the optimizer state over the data group, ZeRO-2 also the
///   gradients, ZeRO-3 also the weights, which then hold the two largest units gathered at once (FSDP's
///   limit); hybrid sharding shards over a node's data-parallel ranks;
/// - activations: each chunk's per micro-batch (what its layers keep, memory::kept_bytes, the tensor-split
///   ones divided by the tensor group, the replicated ones too under sequence parallelism; full recomputation
///   keeps each layer's input and rebuilds one layer at a time) times the micro-batches in flight, at the
///   schedule's worst moment (1F1B: stages - stage on stage `stage`; GPipe: all).
memory::MemoryBreakdown stage_memory(const Layout& layout, const Workload& workload, int stage,
                                     const models::Model& model, const models::GpuProfile& gpu,
                                     models::Precision precision, models::Precision gradient_dtype,
                                     const models::Optimizer& optimizer,
                                     memory::Recomputation recomputation, int micro_batches, int hybrid_shard,
                                     models::Fp8Recipe fp8_recipe = models::Fp8Recipe::delayed);

}  // namespace dtsim::parallel
