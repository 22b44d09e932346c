#include <functional>

#include "sim/core/error.hpp"
#include "sim/scheduling/ddp.hpp"
#include "sim/scheduling/fusion.hpp"
#include "sim/scheduling/mg_wfbp.hpp"
#include "sim/scheduling/no_overlap.hpp"
#include "sim/scheduling/optimal.hpp"
#include "sim/scheduling/priority.hpp"
#include "sim/scheduling/scheduler.hpp"
#include "sim/scheduling/wfbp.hpp"

namespace dtsim::scheduling {
namespace {

struct Entry {
  std::string name;
  std::string description;
  std::function<std::unique_ptr<Scheduler>(const SchedulerOptions&)> make;
};

const std::vector<Entry>& registry() {
  static const std::vector<Entry> table{
      {"none", "one all-reduce of all gradients after backward (no overlap)",
       [](const SchedulerOptions&) { return std::make_unique<NoOverlap>(); }},
      {"wfbp", "wait-free backpropagation: one all-reduce per tensor as soon as it is ready, FIFO",
       [](const SchedulerOptions&) { return std::make_unique<Wfbp>(); }},
      {"fusion", "Horovod tensor fusion: ready tensors fused up to a threshold every cycle",
       [](const SchedulerOptions& o) { return std::make_unique<Fusion>(o.fusion_threshold_bytes, o.fusion_cycle_s); }},
      {"ddp", "PyTorch DDP buckets: 1 MiB first, then 25 MiB, launched in bucket order",
       [](const SchedulerOptions& o) { return std::make_unique<Ddp>(o.ddp_first_bucket_bytes, o.ddp_bucket_cap_bytes); }},
      {"mg_wfbp", "MG-WFBP: merge a gradient into the next when waiting for it costs less than a start-up",
       [](const SchedulerOptions&) { return std::make_unique<MgWfbp>(); }},
      {"priority", "ByteScheduler/P3: partitions by layer priority within a credit window, overlaps next forward",
       [](const SchedulerOptions& o) { return std::make_unique<Priority>(o.partition_bytes, o.credit_bytes); }},
      {"optimal", "contiguous bucketing that minimises the all-reduce end in the alpha-beta model (DP)",
       [](const SchedulerOptions&) { return std::make_unique<Optimal>(); }},
  };
  return table;
}

const Entry& find(std::string_view name) {
  for (const Entry& e : registry())
    if (e.name == name) return e;
  throw core::unknown_name("scheduler", name, scheduler_names());
}

}  // namespace

std::vector<std::string> scheduler_names() {
  std::vector<std::string> names;
  for (const Entry& e : registry()) names.push_back(e.name);
  return names;
}

std::string scheduler_description(std::string_view name) { return find(name).description; }

std::unique_ptr<Scheduler> make_scheduler(std::string_view name, const SchedulerOptions& options) {
  return find(name).make(options);
}

}  // namespace dtsim::scheduling
