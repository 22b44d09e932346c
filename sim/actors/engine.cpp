#include "sim/actors/engine.hpp"

#include <string>
#include <vector>

#include "sim/actors/actor_contexts.hpp"

namespace dtsim::actors {

simgrid::s4u::Engine make_engine([[maybe_unused]] std::int64_t actors) {  // unused under DTSIM_SANITIZE
  std::vector<std::string> args{"dtsim", "--log=root.thresh:warning"};
#ifdef DTSIM_SANITIZE
  // AddressSanitizer cannot follow exceptions (killed actors) across SimGrid's swapped actor stacks; system
  // threads as actor contexts keep it exact (with their own stacks: ASan needs far more).
  args.emplace_back("--cfg=contexts/factory:thread");
#else
  for (std::string& a : context_arguments(actors, core::read_process_limits())) args.push_back(std::move(a));
#endif
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  argv.push_back(nullptr);
  return simgrid::s4u::Engine(&argc, argv.data());
}

}  // namespace dtsim::actors
