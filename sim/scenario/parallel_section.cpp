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

int integer_key(Section& p, const std::string& key, std::int64_t fallback) {
  const KeySpec& spec = key_spec("parallel", key);
  return static_cast<int>(p.integer(key, fallback, spec.min, spec.max));
}

/// framework = "megatron": Megatron-LM's DistributedDataParallelConfig knobs, and the combinations it cannot run.
void megatron_options(Section& p, Scenario& s) {
  parallel::FrameworkOptions& f = s.parallel.framework;
  const parallel::Sharding sharding = s.parallel.sharding;
  const std::string named = "framework = \"megatron\" with ";
  if (sharding != parallel::Sharding::none && sharding != parallel::Sharding::zero1)
    throw core::InputError(p.where_key("framework"),
                           named + "sharding = \"" + std::string(parallel::sharding_name(sharding)) +
                               "\": Megatron-LM's data parallelism keeps every gradient in its contiguous buffer and "
                               "the whole bf16 model on each GPU, sharding only the fp32 main parameters and optimizer "
                               "state (its distributed optimizer)",
                           "sharding = \"zero1\" (use_distributed_optimizer) or \"none\" (all-reduce)");
  if (s.scheduler != "wfbp" || s.framework != "none" || !s.compression.compressor.empty())
    throw core::InputError(p.where_key("framework"),
                           named + (!s.compression.compressor.empty() ? "[compression]"
                                    : s.scheduler != "wfbp"        ? "scheduler \"" + s.scheduler + "\""
                                                                   : "strategy.framework = \"" + s.framework + "\"") +
                               ": Megatron-LM forms its own gradient buckets (bucket_size) and reduces them "
                               "uncompressed from its backward hooks",
                           "the defaults (scheduler = \"wfbp\", strategy.framework = \"none\", no compression)");
  f.overlap_grad_reduce = p.boolean("overlap_grad_reduce", false);
  f.overlap_param_gather = p.boolean("overlap_param_gather", false);
  if (p.has("bucket_size") && !f.overlap_grad_reduce)
    throw core::InputError(p.where_key("bucket_size"),
                           "bucket_size without overlap_grad_reduce: Megatron-LM then reduces each model chunk's "
                           "gradients in one bucket after the backward (distributed_data_parallel.py sets bucket_size "
                           "to None)",
                           "overlap_grad_reduce = true, or no bucket_size");
  // Absent: Megatron-LM's max(40M, 1M x data) elements, which follows the layout (left out of the resolved scenario,
  // whose reload derives it again).
  if (p.has("bucket_size")) f.bucket_size = integer_key(p, "bucket_size", 0);
  if (f.overlap_param_gather && sharding != parallel::Sharding::zero1)
    throw core::InputError(p.where_key("overlap_param_gather"),
                           "overlap_param_gather with sharding = \"none\": every GPU updates the whole model, so no "
                           "updated parameters are gathered (the all-gather is the distributed optimizer's)",
                           "sharding = \"zero1\", or overlap_param_gather = false");
  if (f.overlap_param_gather && !f.overlap_grad_reduce)
    throw core::InputError(p.where_key("overlap_param_gather"),
                           "overlap_param_gather without overlap_grad_reduce: Megatron-LM refuses it "
                           "(megatron/training/arguments.py: \"Must use --overlap-param-gather with "
                           "--overlap-grad-reduce\")",
                           "overlap_grad_reduce = true, or overlap_param_gather = false");
}

/// [parallel] framework and the knobs of the framework it names (the others are unknown keys there).
void framework_options(Section& p, Scenario& s) {
  parallel::Layout& l = s.parallel;
  parallel::FrameworkOptions& f = l.framework;
  f.framework = parallel::parse_framework(choice_key(p, "parallel", "framework"));
  const std::string sharding = "sharding = \"" + std::string(parallel::sharding_name(l.sharding)) + "\"";
  if (f.framework == parallel::Framework::megatron) {
    megatron_options(p, s);
    return;
  }
  if (f.framework != parallel::Framework::generic && l.sharding != parallel::Sharding::zero3)
    throw core::InputError(p.where_key("framework"),
                           "framework = \"" + std::string(parallel::framework_name(f.framework)) + "\" with " + sharding +
                               ": the framework models are those of sharded parameters (FSDP FULL_SHARD, ZeRO-3)",
                           "sharding = \"zero3\", or framework = \"generic\"");
  if (f.framework == parallel::Framework::fsdp) {
    f.limit_all_gathers = p.boolean("limit_all_gathers", true);
    f.backward_prefetch = parallel::parse_backward_prefetch(choice_key(p, "parallel", "backward_prefetch"));
  }
  if (f.framework == parallel::Framework::deepspeed) {
    f.prefetch_bucket_size = integer_key(p, "prefetch_bucket_size", f.prefetch_bucket_size);
    f.param_persistence_threshold = integer_key(p, "param_persistence_threshold", f.param_persistence_threshold);
    f.reduce_bucket_size = integer_key(p, "reduce_bucket_size", f.reduce_bucket_size);
  }
}

/// Why the sync scheme cannot run on the layout's data dimension (empty when it can). Schemes that reduce
/// gradients or average models run there; ssp and asp are already refused on every collective architecture.
std::string sync_refusal(const Scenario& s) {
  const sync::Scheme& scheme = s.sync.rules();
  if (scheme.loss_rule(s.sync))
    return "its periods follow the training loss, which numerics mode computes for a small model replicated whole "
           "on every worker; a layout's shards are timed, not trained (sync = \"local_sgd\" averages at a fixed "
           "period)";
  if (scheme.meeting() == sync::Meeting::kSampledModels)
    return "FedAvg samples clients that each train a whole model on their own data and sit other rounds out; a "
           "layout's replica is tensor x pipeline GPUs of one cluster training one shard of the batch, not a client "
           "(sync = \"local_sgd\" averages every replica at a fixed period)";
  const bool averages = scheme.meeting() == sync::Meeting::kModels || scheme.meeting() == sync::Meeting::kOverlapModels;
  const parallel::Sharding sharding = s.parallel.sharding;
  if (averages && sharding != parallel::Sharding::none && sharding != parallel::Sharding::hybrid)
    return "its replicas step alone between model averages, and sharding = \"" +
           std::string(parallel::sharding_name(sharding)) +
           "\" spreads one replica's optimizer state over every data-parallel GPU, so no GPU can step without the "
           "others' gradients (reduce-scattered every step); sharding = \"hybrid\" shards within a node and "
           "averages across nodes";
  return "";
}

/// Why a layout's data-parallel gradients cannot meet at servers or neighbours (empty when they can). They can
/// where every data-parallel rank holds its stage's parameters whole (sharding = "none"): each stage's data groups
/// push to the servers and pull the sums, or each rank averages with the same rank of the neighbouring replicas.
/// ZeRO and FSDP have each rank own the update of its shard (no server can hold it) and keep one sharded copy (no
/// replica to average with).
std::string architecture_refusal(const Scenario& s) {
  const sync::Meets meets = sync::architecture_named(s.architecture).meets;
  if (meets == sync::Meets::kCollective) return "";
  const std::string sharding = "sharding = \"" + std::string(parallel::sharding_name(s.parallel.sharding)) + "\"";
  std::string why, instead = "sharding = \"none\"";
  if (s.parallel.sharding != parallel::Sharding::none && meets == sync::Meets::kServers) {
    why = sharding + " has each data-parallel rank update its own shard of the model, and parameter servers update "
                     "the model they hold: the update cannot happen in both places";
  } else if (s.parallel.sharding != parallel::Sharding::none && s.parallel.sharding != parallel::Sharding::hybrid) {
    why = sharding + " keeps one copy of the model spread over the data-parallel ranks, and gossip averages each "
                     "replica with its neighbours: there is no other replica to average with";
  } else if (s.parallel.sharding == parallel::Sharding::hybrid) {
    why = "hybrid sharding keeps a replica per node, whose shards could each gossip with the same shard of the "
          "neighbouring nodes, but this version gossips only whole stages' gradients";
  } else if (s.parallel.expert > 1) {
    why = "the routed experts' gradients meet over their own expert-data group, which this version all-reduces "
          "beside the servers' or neighbours' exchange of the dense parameters";
    instead = "parallel.expert = 1";
  } else if (s.parallel.context > 1 && meets == sync::Meets::kNeighbours) {
    why = "context-parallel ranks share one replica's sequences, whose gradients must be summed exactly before "
          "replicas average, and this version gossips over the whole data x context group";
    instead = "parallel.context = 1";
  } else if (const sync::Meeting m = s.sync.rules().meeting();
             m == sync::Meeting::kModels || m == sync::Meeting::kOverlapModels || m == sync::Meeting::kSampledModels) {
    why = "sync \"" + s.sync.scheme + "\" averages models, which this version does only by all-reduce on a layout";
    instead = "sync = \"bsp\"";
  } else if (s.gossip.power_gossip && meets == sync::Meets::kNeighbours) {
    why = "PowerGossip's rank-1 factors are per weight matrix, and this version sizes them only for a model "
          "replicated whole";
    instead = "gossip.power_gossip = false";
  } else if (meets == sync::Meets::kNeighbours && s.sync.staleness_bound() != 0) {
    why = "sync \"" + s.sync.scheme + "\" gossips without rounds (SGP's push-sum), and this version gossips a "
          "layout's gradients in rounds, every neighbour's before the step";
    instead = "sync = \"bsp\"";
  } else {
    return "";
  }
  return "architecture \"" + s.architecture + "\": " + why + " (" + instead + ", or architecture = " +
         sync::architectures_meeting(sync::Meets::kCollective) + ")";
}

/// Why the rest of the scenario cannot run under a layout (empty when it can).
std::string combination_refusal(const Scenario& s) {
  if (std::string why = architecture_refusal(s); !why.empty()) return why;
  if (const std::string why = sync_refusal(s); !why.empty()) return "sync \"" + s.sync.scheme + "\": " + why;
  if (s.numerics.enabled)
    return "[numerics]: numerics mode trains its small model replicated whole on every worker; a layout's time "
           "line is not trained (remove [numerics] to time the layout)";
  const parallel::Sharding sharding = s.parallel.sharding;
  if (!s.compression.compressor.empty() && sharding != parallel::Sharding::none)
    return "gradient compression with sharding = \"" + std::string(parallel::sharding_name(sharding)) +
           "\": ZeRO and FSDP reduce-scatter the gradients so that each rank receives only its shard of the sum, "
           "and a compressed payload (sparse indices, signs, low-rank factors) is summed only whole, by an "
           "all-reduce or all-gather that leaves every rank the whole gradient (sharding = \"none\")";
  if (scheduling::make_scheduler(s.scheduler, s.scheduler_options)->credit_bytes() > 0)
    return "scheduler \"" + s.scheduler + "\": it updates each layer as its gradients arrive and lets the next "
           "iteration's forward overtake the rest of the exchange, but a layout's optimizer step first clips the "
           "gradients by their global norm (Megatron-LM and DeepSpeed clip at 1.0), which needs every gradient reduced";
  if (s.scheduler != "wfbp" && (sharding == parallel::Sharding::zero3 || sharding == parallel::Sharding::hybrid))
    return "scheduler \"" + s.scheduler + "\" with sharding = \"" + std::string(parallel::sharding_name(sharding)) +
           "\": FSDP reduce-scatters each unit's gradients as its backward ends, in every micro-batch, and frees "
           "them (the unit is the bucket); a bucket of several units would keep their unsharded gradients";
  if (s.sync.backup_workers > 0)
    return "backup workers: they close a round with the first n - b pushes to a parameter server, and a layout's "
           "tensor, pipeline and data-parallel groups meet in collectives, where every rank's share of the sum must "
           "arrive (no server to drop the slowest)";
  return "";
}

/// parallel.layers_per_stage: whole numbers >= 0 (empty when absent); layout_refusal checks their count and sum
/// against the model.
std::vector<int> layers_per_stage(Section& p) {
  const KeySpec& spec = key_spec("parallel", "layers_per_stage");
  const auto values = p.integers("layers_per_stage", spec.min, spec.max);
  if (values && values->empty())
    throw core::InputError(p.where_key("layers_per_stage"), "parallel.layers_per_stage is empty",
                           "the transformer layers of each stage, e.g. layers_per_stage = [7, 8, 8, 7]");
  return values ? std::vector<int>(values->begin(), values->end()) : std::vector<int>{};
}

}  // namespace

void load_parallel(Section& p, Scenario& s) {
  allow_keys(p, "parallel");
  parallel::Layout& l = s.parallel;
  // Every registered dimension but data, whose extent is what the workers leave.
  std::string model_parallel_names;
  int model_parallel = 1;
  std::string outermost_used = "tensor";  // the key the message points at
  for (const parallel::DimensionEntry& d : parallel::dimension_registry()) {
    if (d.name == "data") continue;
    const std::string name(d.name);
    l.*d.extent = integer_key(p, name, 1);
    if (d.folded) continue;  // re-divides the ranks of a stage (layout_refusal checks it)
    model_parallel *= l.*d.extent;
    if (l.*d.extent > 1) {  // the dimensions in use, as the message names them
      model_parallel_names += (model_parallel_names.empty() ? "" : " x ") + name;
      outermost_used = name;
    }
  }
  if (s.workers % model_parallel != 0)
    throw core::InputError(p.where_key(outermost_used),
                           model_parallel_names + " = " + std::to_string(model_parallel) + " does not divide workers = " +
                               std::to_string(s.workers),
                           "a " + model_parallel_names + " that divides the workers, or workers = " +
                               core::nearest_multiples(s.workers, model_parallel) + " (multiples of " +
                               std::to_string(model_parallel) + ")");
  l.data = integer_key(p, "data", s.workers / model_parallel);
  if (l.ranks() != s.workers)
    throw core::InputError(p.where_key("data"),
                           model_parallel_names + " x data = " + std::to_string(l.ranks()) + ", workers = " +
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
  framework_options(p, s);
  if (p.has("order")) {
    try {
      l.order = parallel::parse_order(p.string("order", ""), l);
    } catch (const core::InputError& e) {
      throw e.at(p.where_key("order"));
    }
  }
  if (l.tensor > 1) l.sequence_parallel = p.boolean("sequence_parallel", false);
  if (l.context > 1) l.context_comm = choice_key(p, "parallel", "context_comm");
  if (l.expert > 1) l.moe_shared_expert_overlap = p.boolean("moe_shared_expert_overlap", false);
  if (l.pipeline > 1) {
    l.schedule = choice_key(p, "parallel", "schedule");
    l.virtual_stages = integer_key(p, "virtual_stages", 1);
    l.layers_per_stage = layers_per_stage(p);
  }
  if (uses_layout(s)) {
    if (const std::string why = combination_refusal(s); !why.empty())
      throw core::InputError(p.where_table(), "[parallel] with " + why,
                             "plain data parallelism (no [parallel] table) for this, or change it");
    if (const std::string why = parallel::layout_refusal(l, s.model, micro_batches(s)); !why.empty())
      throw core::InputError(why.starts_with("parallel.layers_per_stage") ? p.where_key("layers_per_stage")
                                                                          : p.where_table(),
                             why, "a layout that fits the model");
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
