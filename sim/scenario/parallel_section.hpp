#pragma once
/// The [parallel] table: a 3D-parallel layout of the workers (sim/parallel).
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/section.hpp"

namespace dtsim::scenario {

/// Reads [parallel] into s.parallel; throws core::InputError at the offending key. Needs the model, workers,
/// batch_size, strategy, compression, stragglers, failures and memory settings loaded. Keys that do not apply
/// (schedule without pipelining, sequence_parallel without tensor parallelism) are refused by Section::finish.
void load_parallel(Section& p, Scenario& s);

/// True when the scenario runs a layout other than plain data parallelism (tensor or pipeline parallelism,
/// sharding, or micro-batches), which the task-graph executor runs.
bool uses_layout(const Scenario& s);

/// Micro-batches per replica and iteration.
int micro_batches(const Scenario& s);

/// s.parallel with its micro-batch resolved (the whole batch when not set).
parallel::Layout layout_of(const Scenario& s);

}  // namespace dtsim::scenario
