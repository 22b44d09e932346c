#include "sim/scenario/failures_section.hpp"


#include "sim/core/error.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/scenario/key_hints.hpp"
#include "sim/scenario/keys.hpp"

namespace dtsim::scenario {

void load_failures(std::vector<Section> entries, Scenario& s) {
  const platform::Fabric fabric(s.platform);
  for (Section& f : entries) {
    if (s.fidelity == Fidelity::analytic)
      throw core::InputError(f.where_table(), "failures are injected into the simulated run; the analytic level has none",
                             "use fidelity = \"flow\" or \"message\"");
    allow_keys(f, "failures");
    Failure failure;
    failure.at_s = f.duration("at");
    const bool worker = f.has("worker"), link = f.has("link");
    if (worker == link)
      throw core::InputError(f.where_table(), worker ? "a failure names both a worker and a link" : "a failure names no worker or link",
                             "give worker = <index> (a crash) or link = \"<name>\" (a link failure)");
    if (worker) {
      const KeySpec& spec = key_spec("failures", "worker");
      failure.worker = static_cast<int>(f.integer("worker", 0, spec.min, s.workers - 1));
      if (f.has("duration"))
        throw core::InputError(f.where_key("duration"), "a crashed worker does not come back",
                               "duration applies to link failures");
    } else {
      failure.link = f.required_string("link");
      if (fabric.graph().find_link(failure.link) < 0)
        throw core::InputError(f.where_key("link"), "platform '" + s.platform.name + "' has no link '" + failure.link + "'",
                               "a directed link name such as \"" + fabric.link_name(0) + "\" (dtsim platform show lists them)");
      failure.duration_s = f.optional_duration("duration");
      if (failure.duration_s && *failure.duration_s <= 0)
        throw core::InputError(f.where_key("duration"), "the duration is zero", "it must be positive, or absent for good");
    }
    f.finish();
    s.failures.push_back(failure);
  }
  std::stable_sort(s.failures.begin(), s.failures.end(), [](const Failure& a, const Failure& b) { return a.at_s < b.at_s; });
}

}  // namespace dtsim::scenario
