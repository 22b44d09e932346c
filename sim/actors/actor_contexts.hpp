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

/// SimGrid's objects per actor besides its stack (ActorImpl, s4u::Actor, context, closure, name), measured: a flow
/// run (mlp, ddp, one iteration, fat tree, no guard pages) with 16 KiB stacks took 43.7 KiB more resident memory per
/// worker from 1,024 to 16,384 workers: two stacks, its host (about 3 KiB, run/capacity.cpp) and about 4 KiB per actor.
inline constexpr std::int64_t kActorObjectBytes = 4 * 1024;

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
