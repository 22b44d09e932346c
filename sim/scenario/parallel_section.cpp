#include "sim/scenario/parallel_section.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/core/nearest_names.hpp"
#include "sim/parallel/pipeline_schedule.hpp"
#include "sim/parallel/workload.hpp"
#include "sim/scenario/key_hints.hpp"
#include "sim/scenario/keys.hpp"
#include "sim/scheduling/scheduler.hpp"
#include "sim/sync/architecture_traits.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::scenario {
namespace {

int integer_key(Section& p, const char* key, std::int64_t fallback) {
  const KeySpec& spec = key_spec("parallel", key);
  return static_cast<int>(p.integer(key, fallback, spec.min, spec.max));
}

/// Why the rest of the scenario cannot run under a layout (empty when it can).
std::string combination_refusal(const Scenario& s) {
  if (sync::architecture_named(s.architecture).meets != sync::Meets::kCollective)
    return "architecture \"" + s.architecture + "\": layouts reduce gradients with collectives (architecture = " +
           sync::architectures_meeting(sync::Meets::kCollective) + ")";
  if (s.sync.rules().meeting() != sync::Meeting::kGradients)
    return "sync \"" + s.sync.scheme + "\": layouts average every iteration's gradients (sync = " +
           sync::schemes_meeting(sync::Meeting::kGradients) + ")";
  const parallel::Sharding sharding = s.parallel.sharding;
  if (!s.compression.compressor.empty() && sharding != parallel::Sharding::none)
    return "gradient compression with sharding = \"" + std::string(parallel::sharding_name(sharding)) +
           "\": ZeRO and FSDP reduce-scatter the gradients so that each rank receives only its shard of the sum, "
           "and a compressed payload (sparse indices, signs, low-rank factors) is summed only whole, by an "
           "all-reduce or all-gather that leaves every rank the whole gradient (sharding = \"none\")";
  if (!s.compression.compressor.empty() && s.compression.gradient == "numerics")
    return "compression.gradient = \"numerics\": numerics mode's real gradient is a whole model's, not a "
           "pipeline stage's tensor-parallel shard";
  if (s.stragglers.enabled() || !s.failures.empty())
    return "stragglers and failures: every rank of a layout runs at nominal speed in this version";
  if (scheduling::make_scheduler(s.scheduler, s.scheduler_options)->credit_bytes() > 0)
    return "scheduler \"" + s.scheduler + "\": it updates each layer as its gradients arrive and lets the next "
           "iteration's forward overtake the rest of the exchange, but a layout's optimizer step first clips the "
           "gradients by their global norm (Megatron-LM and DeepSpeed clip at 1.0), which needs every gradient reduced";
  if (s.scheduler != "wfbp" && (sharding == parallel::Sharding::zero3 || sharding == parallel::Sharding::hybrid))
    return "scheduler \"" + s.scheduler + "\" with sharding = \"" + std::string(parallel::sharding_name(sharding)) +
           "\": FSDP reduce-scatters each unit's gradients as its backward ends, in every micro-batch, and frees "
           "them (the unit is the bucket); a bucket of several units would keep their unsharded gradients";
  if (s.sync.backup_workers > 0) return "backup workers: every replica of a layout takes part in every reduction";
  if (s.measured_iteration_s || std::any_of(s.model.layers.begin(), s.model.layers.end(),
                                            [](const models::Layer& l) { return l.measured.has_value(); }))
    return "measured layer or iteration times: a layout's micro-batches and tensor splits need the roofline model's "
           "times (measured ones hold for the batch they were measured at)";
  return "";
}

}  // namespace

void load_parallel(Section& p, Scenario& s) {
  allow_keys(p, "parallel");
  parallel::Layout& l = s.parallel;
  l.tensor = integer_key(p, "tensor", 1);
  l.pipeline = integer_key(p, "pipeline", 1);
  const int model_parallel = l.tensor * l.pipeline;
  if (s.workers % model_parallel != 0)
    throw core::InputError(p.where_key(l.pipeline > 1 ? "pipeline" : "tensor"),
                           "tensor x pipeline = " + std::to_string(model_parallel) + " does not divide workers = " +
                               std::to_string(s.workers),
                           "a tensor x pipeline that divides the workers, or workers = " +
                               core::nearest_multiples(s.workers, model_parallel) + " (multiples of " +
                               std::to_string(model_parallel) + ")");
  l.data = integer_key(p, "data", s.workers / model_parallel);
  if (l.ranks() != s.workers)
    throw core::InputError(p.where_key("data"),
                           "tensor x pipeline x data = " + std::to_string(l.ranks()) + ", workers = " +
                               std::to_string(s.workers),
                           "data = " + std::to_string(s.workers / model_parallel) + ", or workers = " +
                               std::to_string(l.ranks()));
  l.micro_batch = integer_key(p, "micro_batch", s.batch_size);
  if (s.batch_size % l.micro_batch != 0)
    throw core::InputError(p.where_key("micro_batch"),
                           "micro_batch = " + std::to_string(l.micro_batch) + " does not divide batch_size = " +
                               std::to_string(s.batch_size),
                           "a divisor of batch_size (samples per replica per iteration): micro_batch = " +
                               core::nearest_divisors(l.micro_batch, s.batch_size));
  l.sharding = parallel::parse_sharding(choice_key(p, "parallel", "sharding"));
  if (p.has("order")) {
    try {
      l.order = parallel::parse_order(p.string("order", ""));
    } catch (const core::InputError& e) {
      throw e.at(p.where_key("order"));
    }
  }
  if (l.tensor > 1) l.sequence_parallel = p.boolean("sequence_parallel", false);
  if (l.pipeline > 1) {
    l.schedule = choice_key(p, "parallel", "schedule");
    l.virtual_stages = integer_key(p, "virtual_stages", 1);
  }
  if (uses_layout(s)) {
    if (const std::string why = combination_refusal(s); !why.empty())
      throw core::InputError(p.where_table(), "[parallel] with " + why,
                             "plain data parallelism (no [parallel] table) for this, or change it");
    if (const std::string why = parallel::layout_refusal(l, s.model, micro_batches(s)); !why.empty())
      throw core::InputError(p.where_table(), why, "a layout that fits the model");
  }
  p.finish();
}

bool uses_layout(const Scenario& s) {
  return !s.parallel.data_parallel_only() || (s.parallel.micro_batch > 0 && s.parallel.micro_batch != s.batch_size);
}

int micro_batches(const Scenario& s) {
  return s.parallel.micro_batch > 0 ? s.batch_size / s.parallel.micro_batch : 1;
}

parallel::Layout layout_of(const Scenario& s) {
  parallel::Layout l = s.parallel;
  if (l.micro_batch == 0) l.micro_batch = s.batch_size;
  return l;
}

}  // namespace dtsim::scenario
