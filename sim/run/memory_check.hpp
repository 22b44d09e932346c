#pragma once
/// The memory model applied to a scenario: the peak memory of its fullest GPU, and the refusal of a run that
/// does not fit (before anything is simulated), with the breakdown and the ways out.
#include "sim/memory/memory_breakdown.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scheduling/iteration_plan.hpp"

namespace dtsim::run {

/// Buffers a scheduler packs `plan`'s buckets into (Scheduler::buffer_bytes).
memory::MemoryItem bucket_buffers(const scenario::Scenario& s, const scheduling::IterationPlan& plan);
/// Compression's buffers for `plan`'s work exchanged among `ranks` ranks: the largest bucket's payload sent and
/// received (an all-gather's from every rank) and the error-feedback state, fp32 gradient-sized.
memory::MemoryItem compression_buffers(const scenario::Scenario& s, const scheduling::IterationPlan& plan, int ranks);

/// Peak memory of the fullest GPU of `s`, whose iteration is `plan`: model states, activations at the batch,
/// the architecture's communication buffers, the cuBLAS workspace.
memory::MemoryBreakdown memory_breakdown(const scenario::Scenario& s, const scheduling::IterationPlan& plan);
/// memory_breakdown; when it exceeds the GPU and memory.check is "refuse", throws core::InputError with the
/// breakdown and what would make it fit.
memory::MemoryBreakdown check_memory(const scenario::Scenario& s, const scheduling::IterationPlan& plan);
/// check_memory on the scenario's own iteration plan (`dtsim validate`).
memory::MemoryBreakdown check_memory(const scenario::Scenario& s);

}  // namespace dtsim::run
