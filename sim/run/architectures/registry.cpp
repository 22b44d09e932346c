#include <numeric>

#include "sim/core/error.hpp"
#include "sim/run/architecture.hpp"

namespace dtsim::run {

// One accessor per architecture file (sim/run/architectures/<name>.cpp).
const Architecture& allreduce_architecture();
const Architecture& ps_architecture();
const Architecture& byteps_architecture();
const Architecture& gossip_architecture();

namespace {

constexpr ArchitectureEntry kArchitectures[] = {
    {"allreduce", &allreduce_architecture},
    {"ps", &ps_architecture},
    {"byteps", &byteps_architecture},
    {"gossip", &gossip_architecture},
};

}  // namespace

std::span<const ArchitectureEntry> architecture_registry() { return kArchitectures; }

const Architecture& architecture_named(std::string_view name) {
  for (const ArchitectureEntry& e : kArchitectures)
    if (e.name == name) return e.architecture();
  DTSIM_CHECK(false, "no architecture named '" + std::string(name) + "'");
}

void add_to(memory::MemoryItem& item, double bytes, const std::string& words) {
  item.bytes += bytes;
  item.detail += (item.detail.empty() ? "" : " + ") + words;
}

double gradient_wire_bytes(const scheduling::IterationPlan& plan) {
  return std::accumulate(plan.buckets.begin(), plan.buckets.end(), 0.0,
                         [](double sum, const scheduling::Bucket& b) { return sum + static_cast<double>(b.bytes); });
}

}  // namespace dtsim::run
