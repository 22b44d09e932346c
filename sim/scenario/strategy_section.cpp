#include "sim/scenario/strategy_section.hpp"

#include <optional>

#include "compressors/registry.hpp"
#include "sim/collectives/nccl_in_network.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/platform/fabric.hpp"
#include "sim/parallel/gradient_dtype.hpp"
#include "sim/scenario/key_hints.hpp"
#include "sim/scenario/keys.hpp"
#include "sim/scenario/parallel_section.hpp"
#include "sim/sync/architecture_traits.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::scenario {
namespace {

/// A [strategy.<name>] table: only when `key`'s choice takes it (`taken`; `takers`: the choices that do, quoted),
/// so no option is silently ignored.
std::optional<Section> option_table(Section& strategy, const std::string& name, const std::string& key,
                                    const std::string& chosen, bool taken, const std::string& takers) {
  auto table = strategy.table(name);
  if (!table) return std::nullopt;
  if (!taken)
    throw core::InputError(strategy.where_key(name),
                           "[strategy." + name + "] is set but " + key + " = \"" + chosen + "\"",
                           "remove the table or set " + key + " = " + takers);
  allow_keys(*table, "strategy." + name);
  return table;
}

/// A [strategy.<name>] table taken by the choice of the same name only.
std::optional<Section> option_table(Section& strategy, const std::string& name, const std::string& key,
                                    const std::string& chosen) {
  return option_table(strategy, name, key, chosen, chosen == name, "\"" + name + "\"");
}

/// An architecture's option table [strategy.<name>].
std::optional<Section> architecture_table(Section& strategy, const std::string& name, const std::string& chosen) {
  return option_table(strategy, name, "architecture", chosen, sync::architecture_named(chosen).options == name,
                      sync::architectures_taking(name));
}

std::int64_t positive_size(Section& s, const std::string& key) {
  const std::int64_t bytes = s.size(key);
  if (bytes <= 0) throw core::InputError(s.where_key(key), "'" + key + "' is zero", "it must be at least 1B");
  return bytes;
}

int integer_key(Section& t, const std::string& table, const std::string& key) {
  const KeySpec& spec = key_spec(table, key);
  if (spec.default_text == "required") return static_cast<int>(t.required_integer(key, spec.min, spec.max));
  return static_cast<int>(t.integer(key, std::stoll(spec.default_text), spec.min, spec.max));
}

void load_scheduler_options(Section& strategy, const std::string& chosen, scheduling::SchedulerOptions& o) {
  if (auto t = option_table(strategy, "fusion", "scheduler", chosen)) {
    if (t->has("threshold")) o.fusion_threshold_bytes = t->size("threshold");
    if (t->has("cycle_time")) {
      o.fusion_cycle_s = t->duration("cycle_time");
      if (o.fusion_cycle_s <= 0)
        throw core::InputError(t->where_key("cycle_time"), "the cycle time is zero", "it must be positive");
    }
    t->finish();
  }
  if (auto t = option_table(strategy, "ddp", "scheduler", chosen)) {
    if (t->has("first_bucket")) o.ddp_first_bucket_bytes = positive_size(*t, "first_bucket");
    if (t->has("bucket_cap")) o.ddp_bucket_cap_bytes = positive_size(*t, "bucket_cap");
    t->finish();
  }
  if (auto t = option_table(strategy, "priority", "scheduler", chosen)) {
    if (t->has("partition")) o.partition_bytes = positive_size(*t, "partition");
    if (t->has("credit")) o.credit_bytes = positive_size(*t, "credit");
    t->finish();
  }
}

/// strategy.framework and its [strategy.horovod] table. Horovod's fusion is the framework's own: the scheduler
/// "fusion" is refused beside it (use "wfbp": each gradient handed to Horovod as it is ready).
void load_framework(Section& strategy, Scenario& s) {
  s.framework = choice_key(strategy, "strategy", "framework");
  if (auto t = option_table(strategy, "horovod", "framework", s.framework)) {
    if (t->has("fusion_threshold")) s.framework_options.horovod_fusion_threshold_bytes = t->size("fusion_threshold");
    if (t->has("cycle_time")) s.framework_options.horovod_cycle_s = t->duration("cycle_time");
    s.framework_options.horovod_response_cache = t->boolean("response_cache", true);
    t->finish();
  }
  if (s.framework == "none") return;
  if (s.framework == "horovod" && s.scheduler == "fusion")
    throw core::InputError(strategy.where_key("scheduler"),
                           "scheduler \"fusion\" is Horovod's tensor fusion, which framework \"horovod\" already runs",
                           "scheduler = \"wfbp\" (each gradient handed to Horovod when ready) with [strategy.horovod], "
                           "or framework = \"none\" with scheduler \"fusion\"");
  if (s.scheduler == "priority")
    throw core::InputError(strategy.where_key("framework"),
                           "scheduler 'priority' is ByteScheduler's own runtime (partitions within a credit)",
                           "framework = \"none\" with scheduler 'priority'");
  if (sync::architecture_named(s.architecture).meets != sync::Meets::kCollective)
    throw core::InputError(strategy.where_key("framework"),
                           "framework \"" + s.framework + "\" hands buckets to an all-reduce, and architecture \"" +
                               s.architecture + "\" exchanges otherwise",
                           "framework = \"none\", or architecture = \"allreduce\"");
}

/// One option of the chosen scheme: its value in `t`, else its default; a required one missing is the user's.
double scheme_option(std::optional<Section>& t, Section& strategy, const sync::SyncPolicy& p,
                     const sync::SchemeOption& o) {
  const std::string table = "[strategy." + p.scheme + "]";
  if (o.default_text == "required" && (!t || !t->has(o.key))) {
    if (!t)
      throw core::InputError(strategy.where_key("sync"), "sync = \"" + p.scheme + "\" needs " + o.needed,
                             "add " + table + " with " + o.key + " = <" + o.placeholder + ">");
    return static_cast<double>(t->required_integer(o.key, 0, 0));  // throws: missing key
  }
  if (!t || !t->has(o.key)) return sync::default_value(o);
  if (o.type == "boolean") return t->boolean(o.key, false) ? 1 : 0;
  if (o.type == "integer")
    return static_cast<double>(
        t->integer(o.key, 0, static_cast<std::int64_t>(o.min), static_cast<std::int64_t>(o.max)));
  return t->number(o.key, o.min, o.max);
}

/// The chosen scheme's [strategy.<name>] table (every other scheme's table is refused), its checks and what
/// follows from it.
void load_sync_options(Section& strategy, sync::SyncPolicy& p, int workers, int batch_size) {
  std::optional<Section> chosen;
  for (const sync::SchemeEntry& e : sync::scheme_registry()) {
    if (e.scheme().options().empty()) continue;
    auto t = option_table(strategy, std::string(e.name), "sync", p.scheme);  // refuses the table of a scheme not chosen
    if (p.scheme == e.name) chosen = std::move(t);
  }
  const sync::Scheme& scheme = p.rules();
  for (const sync::SchemeOption& o : scheme.options()) {
    const double value = scheme_option(chosen, strategy, p, o);
    if (o.field) p.*o.field = static_cast<int>(value);
    else p.parameters[o.key] = value;
  }
  if (chosen) chosen->finish();
  if (const auto problem = scheme.check(p, workers))
    throw core::InputError(problem->key.empty() || !chosen || !chosen->has(problem->key)
                               ? strategy.where_key("sync")
                               : chosen->where_key(problem->key),
                           problem->problem, problem->allowed);
  scheme.derive(p, batch_size);
}

/// Servers the platform cannot hold: dedicated ones need hosts after the workers, colocated ones a worker each.
void refuse_server_hosts(const std::string& where, const Scenario& s) {
  const ParameterServer& ps = s.ps;
  const int hosts = s.platform.hosts();
  if (ps.dedicated && s.workers + ps.servers > hosts)
    throw core::InputError(where,
                           std::to_string(ps.servers) + " dedicated servers after " + std::to_string(s.workers) +
                               " workers need " + std::to_string(s.workers + ps.servers) + " hosts; platform '" +
                               s.platform.name + "' has " + std::to_string(hosts),
                           "at most " + std::to_string(hosts - s.workers) +
                               " dedicated servers, fewer workers, or placement = \"colocated\"");
  if (!ps.dedicated && ps.servers > s.workers)
    throw core::InputError(where, "more colocated servers than workers",
                           "at most " + std::to_string(s.workers) + " (one per worker host)");
}

/// A server architecture may change the parameter server's defaults (BytePS: sync::ArchitectureTraits).
void load_ps(Section& strategy, Scenario& s) {
  ParameterServer& ps = s.ps;
  const sync::ArchitectureTraits& a = sync::architecture_named(s.architecture);
  if (a.partition_bytes > 0) ps.partition_bytes = a.partition_bytes;
  if (a.per_node_first) ps.hierarchical = true;
  if (a.summation_Bps > 0) ps.summation_Bps = a.summation_Bps;
  auto t = architecture_table(strategy, "ps", s.architecture);
  if (!t) {
    if (a.meets == sync::Meets::kServers) refuse_server_hosts(strategy.where_key("architecture"), s);
    return;
  }
  ps.servers = integer_key(*t, "strategy.ps", "servers");
  ps.dedicated = choice_key(*t, "strategy.ps", "placement") == "dedicated";
  if (t->has("partition")) ps.partition_bytes = t->size("partition");
  // Without the key: the architecture's default (set above).
  if (const auto summation = t->optional_string("summation"); summation == "free") {
    ps.summation_Bps.reset();
  } else if (summation) {
    try {
      ps.summation_Bps = core::parse_bandwidth(*summation);
    } catch (const core::InputError& e) {
      throw core::InputError(t->where_key("summation"), e.problem(), "a throughput such as \"10GBps\", or \"free\"");
    }
  }
  ps.hierarchical = t->boolean("hierarchical", ps.hierarchical);
  if (t->has("credit")) ps.credit_bytes = t->size("credit");
  ps.pull = choice_key(*t, "strategy.ps", "pull");
  refuse_server_hosts(t->where_key("servers"), s);
  t->finish();
}

void load_gossip(Section& strategy, Scenario& s) {
  auto t = architecture_table(strategy, "gossip", s.architecture);
  if (!t) return;
  s.gossip.topology = choice_key(*t, "strategy.gossip", "topology");
  if (t->has("degree") || t->has("seed")) {
    if (s.gossip.topology != "random")
      throw core::InputError(t->where_key(t->has("degree") ? "degree" : "seed"),
                             "degree and seed shape random graphs, not topology \"" + s.gossip.topology + "\"",
                             "remove them or set topology = \"random\"");
    s.gossip.degree = integer_key(*t, "strategy.gossip", "degree");
    const KeySpec& seed = key_spec("strategy.gossip", "seed");
    s.gossip.seed = static_cast<std::uint64_t>(t->integer("seed", 0, seed.min, seed.max));
  }
  if (t->has("exchange")) {
    s.gossip.power_gossip = choice_key(*t, "strategy.gossip", "exchange") == "powergossip";
    if (s.gossip.power_gossip && !s.sync.staleness_bound())
      throw core::InputError(t->where_key("exchange"), "PowerGossip exchanges with every neighbour in rounds; sync = "
                             "\"asp\" gossips by push-sum to one peer",
                             "use sync = \"bsp\" with exchange = \"powergossip\", or exchange = \"models\"");
  }
  if (t->has("consensus_step")) {
    s.gossip.consensus_step = t->number("consensus_step", 0.0, 1.0);
    if (s.gossip.consensus_step == 0.0)
      throw core::InputError(t->where_key("consensus_step"), "consensus_step = 0 never moves towards the neighbours",
                             "allowed: a number in (0, 1]");
  }
  t->finish();
}

/// strategy.nccl_algo / nccl_proto: NCCL_ALGO / NCCL_PROTO for the nccl collective, refused with any other
/// collective or architecture.
void load_nccl_force(Section& strategy, Scenario& s) {
  for (const char* key : {"nccl_algo", "nccl_proto"}) {
    if (!strategy.has(key)) continue;
    if (s.collective != "nccl" && s.collective != "auto")
      throw core::InputError(strategy.where_key(key),
                             std::string(key) + " forces NCCL's choice, and collective \"" + s.collective +
                                 "\" is not NCCL's",
                             "set collective = \"nccl\" (or \"auto\"), or remove " + std::string(key));
    if (sync::architecture_named(s.architecture).meets != sync::Meets::kCollective)
      throw core::InputError(strategy.where_key(key),
                             std::string(key) + " forces NCCL's all-reduce, and architecture \"" + s.architecture +
                                 "\" does not all-reduce",
                             "architecture = " + sync::architectures_meeting(sync::Meets::kCollective) +
                               ", or remove " + std::string(key));
    const std::string value = choice_key(strategy, "strategy", key);
    if (std::string_view(key) == "nccl_algo") s.nccl.algorithm = collectives::parse_nccl_algorithm(value);
    else s.nccl.protocol = collectives::parse_nccl_protocol(value);
  }
  // CollNet and NVLS need their switch (NCCL would ignore the setting; dtsim says why).
  if (!s.nccl.algorithm || !collectives::nccl_in_network(*s.nccl.algorithm)) return;
  const std::string algorithm = collectives::nccl_algorithm_name(*s.nccl.algorithm);
  const collectives::Group group{s.workers, s.platform.gpus_per_node};
  if (!collectives::nccl_in_network_enabled(*s.nccl.algorithm, group, platform::link_costs(s.platform)))
    throw core::InputError(strategy.where_key("nccl_algo"),
                           "nccl_algo = \"" + algorithm + "\" sums at a switch that platform '" + s.platform.name +
                               "' does not give " + std::to_string(s.workers) + " workers",
                           "nvls: [platform.node] nvls = true and the workers in one node; collnet_chain: sharp = "
                           "true and workers on several nodes; collnet_direct: also NVSwitch nodes");
  if (s.nccl.protocol && *s.nccl.protocol != collectives::NcclProtocol::simple)
    throw core::InputError(strategy.where_key("nccl_proto"), "NCCL runs " + algorithm + " with Simple only",
                           "nccl_proto = \"Simple\", or no nccl_proto");
}

/// The analytic level times servers and neighbours in rounds: every worker's push of a bucket before its pull,
/// every neighbour's model before the next bucket, each worker's buckets in order. What else decides their
/// timing is refused, with the level that runs it.
void refuse_analytic_exchange(Section& strategy, const StrategyWhere& where, const Scenario& s) {
  const std::string simulated = "fidelity = \"flow\" (or \"message\") simulates it";
  if (s.sync.staleness_bound() != 0)
    throw core::InputError(where.sync,
                           "sync = \"" + s.sync.scheme + "\" lets a worker push and pull without waiting for the "
                               "others' pushes, so when it waits depends on the order the pushes reach the " +
                               (sync::architecture_named(s.architecture).meets == sync::Meets::kServers
                                    ? "servers"
                                    : "peers") +
                               "; the analytic level times architecture \"" + s.architecture + "\" in rounds",
                           simulated + ", or sync = \"bsp\" (or a local-SGD scheme) at the analytic level");
  if (s.sync.backup_workers > 0)
    throw core::InputError(strategy.where_key("backup_workers"),
                           "backup workers close a round without the slowest pushes, an order statistic of the "
                           "workers' times; the analytic level times rounds that every push closes",
                           simulated + ", or no backup workers at the analytic level");
  if (s.sync.lag_threshold > 0)
    throw core::InputError(strategy.where_key("lag"),
                           "LAG's skipped uploads are decided by the training run, which the analytic level does "
                           "not replay: it pushes every upload",
                           simulated);
  if (s.ps.credit_bytes > 0 && sync::architecture_named(s.architecture).meets == sync::Meets::kServers)
    throw core::InputError(where.fidelity,
                           "a push credit of " + std::to_string(s.ps.credit_bytes) + " bytes lets the partitions "
                               "of later buckets overtake earlier ones by layer, several pushes in flight at once "
                               "sharing the links; the analytic level pushes each bucket whole, in order",
                           "[strategy.ps] credit = \"0B\" at the analytic level; " + simulated);
}

}  // namespace

StrategyWhere load_strategy(Section& strategy, Scenario& s) {
  allow_keys(strategy, "strategy");
  StrategyWhere where{strategy.where_key("architecture"), strategy.where_key("sync"), strategy.where_key("fidelity")};
  s.architecture = choice_key(strategy, "strategy", "architecture");
  s.sync.scheme = choice_key(strategy, "strategy", "sync");
  s.collective = choice_key(strategy, "strategy", "collective");
  load_nccl_force(strategy, s);
  if (s.collective == "in_network") {
    const platform::PlatformSpec& p = s.platform;
    if (!p.reduces_in_network())
      throw core::InputError(strategy.where_key("collective"),
                             "collective \"in_network\" sums at a switch, and platform '" + p.name +
                                 "' has no switch that reduces",
                             "a platform with sharp = true (InfiniBand SHARP, a SwitchML switch) or [platform.node] "
                             "nvls = true (NVLink SHARP), or another collective");
    if (!p.sharp && s.workers > p.gpus_per_node)
      throw core::InputError(strategy.where_key("collective"),
                             "collective \"in_network\" on NVLink SHARP sums inside one node, and " +
                                 std::to_string(s.workers) + " workers span several nodes of " +
                                 std::to_string(p.gpus_per_node) + " GPUs",
                             "at most " + std::to_string(p.gpus_per_node) + " workers, or sharp = true on the network");
  }
  s.scheduler = choice_key(strategy, "strategy", "scheduler");
  strategy.has("gradient_dtype");  // read by load_gradient_dtype once the layout, which gives its default, is known
  s.fidelity = parse_fidelity(choice_key(strategy, "strategy", "fidelity"));
  if (s.fidelity == Fidelity::analytic && s.platform.network_model != platform::NetworkModel::alpha_beta)
    throw core::InputError(where.fidelity,
                           "fidelity 'analytic' is closed-form alpha-beta and cannot model network model '" +
                               platform::network_model_name(s.platform.network_model) + "'",
                           "use fidelity = \"flow\" or \"message\", or network.model = \"alpha_beta\" in the platform");
  if (s.fidelity == Fidelity::analytic && s.scheduler == "priority")
    throw core::InputError(where.fidelity,
                           "scheduler 'priority' runs several all-reduces at once within its credit, which the "
                           "analytic level (one collective at a time) cannot model",
                           "use fidelity = \"message\" with scheduler = \"priority\"");
  load_scheduler_options(strategy, s.scheduler, s.scheduler_options);
  load_framework(strategy, s);
  load_sync_options(strategy, s.sync, s.workers, s.batch_size);
  if (s.scheduler == "priority" && (s.sync.rules().repeating_period(s.sync).value_or(1) > 1 ||
                                    s.sync.rules().loss_rule(s.sync)))
    throw core::InputError(strategy.where_key("scheduler"),
                           "sync = \"" + s.sync.scheme + "\" has iterations that do not exchange, and scheduler "
                           "'priority' applies each iteration's exchanges in the next one's forward",
                           "use sync = \"bsp\" with scheduler 'priority', or a FIFO scheduler with local SGD");
  if (s.sync.exchanges_in_flight() > 0 && s.scheduler == "priority")
    throw core::InputError(strategy.where_key("scheduler"),
                           "sync = \"" + s.sync.scheme + "\" leaves an exchange running into the next iterations, "
                           "and scheduler 'priority' waits for each layer's exchange before its forward",
                           "use any other scheduler: each iteration's exchanges in order (FIFO)");
  if (auto t = strategy.table("lag")) {
    allow_keys(*t, "strategy.lag");
    s.sync.lag_threshold = t->number("threshold", 1e-12, 1e12);
    s.sync.lag_window = integer_key(*t, "strategy.lag", "window");
    t->finish();
  }
  if (strategy.has("backup_workers")) {
    const KeySpec& b = key_spec("strategy", "backup_workers");
    s.sync.backup_workers = static_cast<int>(strategy.integer("backup_workers", 0, b.min, b.max));
  }
  if (const std::string why = sync::incompatibility(s.sync, s.architecture); !why.empty())
    throw core::InputError(s.sync.lag_threshold > 0     ? strategy.where_key("lag")
                           : s.sync.backup_workers > 0 ? strategy.where_key("backup_workers")
                                                        : where.sync,
                           "sync = \"" + s.sync.scheme + "\" on architecture \"" + s.architecture + "\": " + why,
                           "see README: Synchronisation and architectures");
  load_ps(strategy, s);
  load_gossip(strategy, s);
  const int participants = s.ps.hierarchical ? (s.workers + s.platform.gpus_per_node - 1) / s.platform.gpus_per_node
                                             : s.workers;
  if (s.sync.backup_workers >= participants)
    throw core::InputError(strategy.where_key("backup_workers"),
                           "backup_workers = " + std::to_string(s.sync.backup_workers) + " leaves no push to close a round",
                           "fewer than the " + std::to_string(participants) + (s.ps.hierarchical ? " nodes" : " workers"));
  const sync::Meets meets = sync::architecture_named(s.architecture).meets;
  if (meets != sync::Meets::kCollective) {
    if (s.fidelity == Fidelity::analytic) refuse_analytic_exchange(strategy, where, s);
    if (s.scheduler == "priority")
      throw core::InputError(strategy.where_key("scheduler"),
                             "scheduler 'priority' drives the all-reduce executor's credit queue",
                             meets == sync::Meets::kNeighbours ? "use a FIFO scheduler with gossip"
                                                        : "use [strategy.ps] credit for priority pushes");
  }
  strategy.finish();
  return where;
}

void load_gradient_dtype(Section& strategy, Scenario& s) {
  const models::Precision fallback = parallel::default_gradient_dtype(layout_of(s), s.precision);
  s.gradient_dtype = models::parse_precision(
      strategy.choice("gradient_dtype", std::string(models::precision_name(fallback)), parallel::gradient_dtype_names()));
  if (s.gradient_dtype == models::Precision::fp32) return;
  const std::string dtype = "gradient_dtype = \"" + std::string(models::precision_name(s.gradient_dtype)) + "\"";
  if (!s.compression.compressor.empty())
    throw core::InputError(strategy.where_key("gradient_dtype"),
                           dtype + " with [compression] " + s.compression.compressor +
                               ": the compressors take fp32 gradients (their kernels and wire formats are binary32's)",
                           "gradient_dtype = \"fp32\" with a compressor; compressor = \"bf16\" or \"fp16\" sends fp32 "
                           "gradients in 16 bits (DDP's bf16_compress_hook, fp16_compress_hook)");
  if (s.numerics.enabled)
    throw core::InputError(strategy.where_key("gradient_dtype"),
                           dtype + " with [numerics], whose workers exchange their real fp32 gradients",
                           "gradient_dtype = \"fp32\" with [numerics]; [compression] compressor = \"bf16\" or \"fp16\" "
                           "rounds the exchanged gradients for real");
  if (s.gossip.power_gossip)
    throw core::InputError(strategy.where_key("gradient_dtype"),
                           dtype + " with exchange = \"powergossip\", which sends fp32 low-rank factors of the model "
                           "differences",
                           "gradient_dtype = \"fp32\" with PowerGossip, or exchange = \"models\"");
}

void check_strategy(const Scenario& s, const StrategyWhere& where) {
  if (s.gossip.power_gossip && !s.compression.compressor.empty())
    throw core::InputError(where.architecture,
                           "[strategy.gossip] exchange = \"powergossip\" compresses each edge's model difference "
                           "itself; [compression] " + s.compression.compressor + " would compress it twice",
                           "remove [compression], or use exchange = \"models\" (CHOCO-SGD with [compression])");
  if (s.sync.rules().loss_rule(s.sync) && !s.numerics.enabled)
    throw core::InputError(where.sync,
                           "sync = \"" + s.sync.scheme + "\" decides its periods from the training loss, which "
                           "timing mode does not have",
                           "add [numerics] (its periods then shape the simulated time line), or use sync = "
                           "\"local_sgd\"");
  if (s.sync.participants(s.workers, 0).size() < static_cast<std::size_t>(s.workers)) {
    const std::string sampled = "sync = \"" + s.sync.scheme + "\" lets only a sample of the workers compute and "
                                "exchange each round";
    if (s.scheduler == "priority")
      throw core::InputError(where.sync, sampled + "; scheduler 'priority' queues each bucket once every worker has it",
                             "use a FIFO scheduler (wfbp, fusion, ddp, ...)");
    if (!s.failures.empty())
      throw core::InputError(where.sync, sampled + "; a failure would have to be matched against each round's sample, "
                                                   "which is not modelled",
                             "remove [[failures]], or sample every worker (fraction = 1)");
    if (s.numerics.enabled && (s.numerics.optimizer != "sgd" || s.numerics.warmup_steps > 0))
      throw core::InputError(where.sync, sampled + "; a worker's optimizer steps only in the rounds it is sampled, so "
                                                   "its momentum or warm-up would follow its sampling history",
                             "numerics.optimizer = \"sgd\" without warmup_steps (McMahan et al.'s clients run plain "
                             "SGD), or sample every worker (fraction = 1)");
    if (s.numerics.enabled && !s.compression.compressor.empty())
      throw core::InputError(where.sync, sampled + "; numerics mode averages the sampled models dense (compressing "
                                                   "their progress is not implemented)",
                             "remove [compression]");
  }
  if (s.sync.rules().averages_momentum(s.sync) && s.numerics.enabled) {
    if (s.numerics.optimizer != "momentum" && s.numerics.optimizer != "nesterov")
      throw core::InputError(where.sync, "average_momentum averages the workers' momentum buffers, and numerics."
                                         "optimizer = \"" + s.numerics.optimizer + "\" keeps none",
                             "numerics.optimizer = \"momentum\" or \"nesterov\", or average_momentum = false");
    if (!s.compression.compressor.empty())
      throw core::InputError(where.sync, "average_momentum with [compression]: compressing the momentum buffers' "
                                         "average is not implemented",
                             "remove [compression], or average_momentum = false");
  }
  if (s.sync.lag_threshold > 0 && !s.compression.compressor.empty())
    throw core::InputError(where.architecture, "LAG compares a worker's exact gradient with the one the server "
                                               "holds, which compression leaves undefined",
                           "remove [compression] or [strategy.lag]");
  if (s.sync.lag_threshold > 0 && !s.numerics.enabled)
    throw core::InputError(where.architecture, "LAG decides each upload from the real gradients, which timing mode "
                                               "does not have",
                           "add [numerics] (the skipped uploads then shape the simulated time line), or remove "
                           "[strategy.lag]");
  const sync::Meets meets = sync::architecture_named(s.architecture).meets;
  if (meets != sync::Meets::kCollective && s.compression.sparse_collective == "gtopk")
    throw core::InputError(where.architecture,
                           "sparse_collective = \"gtopk\" is a tree among all-reduce workers, not architecture \"" +
                               s.architecture + "\"",
                           "use architecture = " + sync::architectures_meeting(sync::Meets::kCollective) +
                               ", or leave sparse_collective at \"allgather\"");
  if (s.ps.pull == "compressed" && s.compression.compressor.empty())
    throw core::InputError(where.architecture, "[strategy.ps] pull = \"compressed\" without a compressor",
                           "add [compression] or use pull = \"dense\"");
  if (!s.numerics.enabled || s.compression.compressor.empty()) return;
  if (s.sync.rules().meeting() == sync::Meeting::kOverlapModels)
    throw core::InputError(where.sync,
                           "numerics mode runs Overlap Local-SGD on dense models; compressing its anchor average "
                           "is not implemented",
                           "remove [compression], or use sync = \"local_sgd\" (compressed model averaging)");
  const bool asynchronous = !s.sync.staleness_bound();
  if (meets == sync::Meets::kNeighbours && asynchronous)
    throw core::InputError(where.sync,
                           "numerics mode compresses gossip as CHOCO-SGD (synchronous); compressed push-sum is not "
                           "implemented",
                           "use sync = \"bsp\" with compressed gossip, or remove [compression]");
  if (meets == sync::Meets::kNeighbours && s.gossip.consensus_step == 0.0)
    throw core::InputError(where.architecture,
                           "compressed gossip (CHOCO-SGD) needs its consensus step size gamma, which depends on the "
                           "compressor",
                           "add [strategy.gossip] consensus_step = a number in (0, 1], e.g. 1 for exact exchange, "
                           "smaller for stronger compression");
  if (meets == sync::Meets::kNeighbours && s.compression.error_feedback != "none")
    throw core::InputError(where.architecture,
                           "CHOCO-SGD's public copies of the models already keep what compression left out; error "
                           "feedback \"" + s.compression.error_feedback + "\" would compensate twice",
                           "error_feedback = \"none\" with compressed gossip");
  if (asynchronous && s.ps.pull == "compressed")
    throw core::InputError(where.sync,
                           "numerics mode with sync = \"asp\" pulls the server's model, which pull = "
                           "\"compressed\" would send as compressed model differences (not implemented)",
                           "use pull = \"dense\" with asp in numerics mode");
  const bool models_travel = s.sync.rules().meeting() == sync::Meeting::kModels || meets == sync::Meets::kNeighbours;
  if (compressors::make_compressor(s.compression.compressor, s.compression.options)->wants_second_moment() &&
      (models_travel || s.ps.pull == "compressed"))
    throw core::InputError(models_travel ? where.sync : where.architecture,
                           "compressor '" + s.compression.compressor + "' decides from each gradient's variance over "
                           "a worker's mini-batch, but this scheme sends " +
                               (models_travel ? "models" : "a compressed average"),
                           "gradient uploads: sync = \"bsp\", \"ssp\" or \"asp\" on " +
                               sync::quoted_names([](const sync::ArchitectureTraits& a) {
                                 return a.meets != sync::Meets::kNeighbours;
                               }) +
                               " with pull = \"dense\"");
}

}  // namespace dtsim::scenario
