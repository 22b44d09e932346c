#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/core/atomic_file.hpp"
#include "viz/mean_breakdown.hpp"
#include "viz/reports.hpp"

namespace dtsim::viz {

void write_summary_csv(const std::string& path, const run::RunResult& r) {
  core::write_atomically(path, [&](std::ostream& out) {
    if (!r.info.not_reproducible.empty()) out << "# NOT REPRODUCIBLE: " << r.info.not_reproducible << "\n";
    out << "iteration,time_s,samples_per_s,scaling_efficiency,forward_s,backward_s,update_s,exposed_comm_s,idle_s\n";
    for (const run::IterationResult& it : r.iterations) {
      const run::Breakdown b = mean_breakdown(it);
      fmt::print(out, "{},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g},{:.17g}\n", it.index, it.time_s,
                 it.samples_per_s, it.scaling_efficiency, b.forward_s, b.backward_s, b.update_s, b.exposed_comm_s,
                 b.idle_s);
    }
  });
}

}  // namespace dtsim::viz
