#pragma once
/// How SimGrid lays out the actors' stacks, and what a number of actors costs the process.
///
/// SimGrid's defaults (8 MiB per stack, one guard page each) reserve 8 MiB of address space per actor and, as
/// the guard page is mprotect-ed inside the allocation, split it into two mappings: a parameter server with a
/// few thousand actors alive exceeds `ulimit -v 6000000`, and 16,384 workers at two actors each exceed the
/// kernel's 65,530 mappings. dtsim's actors need far less stack (kActorStackBytes); guard pages are kept while
/// their mappings fit well in the process's limit (every test run has them, so an overflow faults there) and
/// dropped beyond, where they would abort the run.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/process_limits.hpp"

namespace dtsim::actors {

/// Stack of one actor. Most actors need under 8 KiB (measured with a guard page, Release build, SimGrid 3.32, raw
/// contexts); the deepest of the test suite, an actor whose comm fails when a link goes down and unwinds SimGrid's
/// exception (Failures.LinkDownBreaksTheAllReduceAcrossIt), faults in 20 KiB and runs in 24 KiB (measured
/// 2026-11-25). The whole stack is resident whatever the actor uses: without guard pages SimGrid allocates it with
/// calloc, which clears it (a flow run of 16,384 workers, 32,768 actors: 1.15 GiB peak RSS with 32 KiB stacks,
/// 0.70 GiB with 16 KiB). A multiple of 16, as SimGrid requires.
inline constexpr std::int64_t kActorStackBytes = 32 * 1024;
static_assert(kActorStackBytes % 16 == 0, "SimGrid's contexts/stack-size is a multiple of 16");

/// SimGrid's objects per actor besides its stack (ActorImpl, s4u::Actor, context, closure, name) and the heap's
/// fragmentation around them. A flow run (mlp, ddp, one iteration, fat tree, no guard pages) with 16 KiB stacks took
/// 43.7 KiB more resident memory per worker from 1,024 to 16,384 workers: two stacks, its host (run/capacity.cpp) and
/// about 4 KiB per actor. With 32 KiB stacks ResNet-50's flow run (bench/RESULTS.md, "The flow level's growth
/// redrawn") peaked at 1,351 MiB at 16,384 GPUs and 5,271 MiB at 65,536: 82 KiB per worker at both, 6 to 7 KiB per
/// worker more than stacks, hosts and 4 KiB per actor estimate, so an estimate that counts 4 KiB let a run under a
/// `ulimit -v` just above it end in bad_alloc. 8 KiB per actor covers both sizes (the estimate plus what the
/// process holds at the start: 9 and 4 % above them).
inline constexpr std::int64_t kActorObjectBytes = 8 * 1024;

/// Mappings one guard page costs: the page protected inside the heap block splits the heap's mapping.
inline constexpr std::int64_t kMappingsPerGuardPage = 2;

/// True when `actors` guard pages fit in half the mappings the process has left (the other half stays for
/// everything else the run maps).
bool guard_pages_fit(std::int64_t actors, const core::ProcessLimits& limits);

/// Bytes of address space (and, at worst, of memory) `actors` live actors take.
std::int64_t actor_bytes(std::int64_t actors);

/// SimGrid configuration arguments ("--cfg=contexts/...") for a run with up to `actors` live actors.
std::vector<std::string> context_arguments(std::int64_t actors, const core::ProcessLimits& limits);

}  // namespace dtsim::actors
