#pragma once
/// The process's one SimGrid engine, configured as every dtsim run needs it.
#include <cstdint>

#include <simgrid/s4u/Engine.hpp>

namespace dtsim::actors {

/// The engine with SimGrid's own logging limited to warnings, laid out for up to `actors` live actors
/// (actor_contexts.hpp). Call at most once per process.
simgrid::s4u::Engine make_engine(std::int64_t actors);

}  // namespace dtsim::actors
