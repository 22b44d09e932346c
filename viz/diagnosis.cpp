#include "viz/diagnosis.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/shell_quote.hpp"
#include "sim/core/units.hpp"
#include "viz/link_products.hpp"
#include "viz/path_kinds.hpp"
#include "viz/quantity_text.hpp"

namespace dtsim::viz {
namespace {

using nlohmann::json;

/// An overhead bounds the run when it costs at least this share of the iteration.
constexpr double bounding_share = 0.2;

struct Phases {
  double forward_s = 0, backward_s = 0, update_s = 0, exposed_s = 0, idle_s = 0;
  double compute_s() const { return forward_s + backward_s + update_s; }
  void add(const json& b, double weight) {
    forward_s += weight * b["forward_s"].get<double>();
    backward_s += weight * b["backward_s"].get<double>();
    update_s += weight * b["update_s"].get<double>();
    exposed_s += weight * b["exposed_comm_s"].get<double>();
    idle_s += weight * b["idle_s"].get<double>();
  }
};

/// The mean worker over the iterations, and each traced worker over the iterations.
struct Workers {
  Phases mean;
  std::vector<Phases> traced;
};

Workers workers_of(const json& report) {
  Workers w;
  const auto& iterations = report["iterations"];
  const double weight = 1.0 / static_cast<double>(iterations.size());
  for (const auto& it : iterations) {
    w.mean.add(it["breakdown_mean"], weight);
    const auto& per_worker = it["breakdown_per_worker"];
    w.traced.resize(std::max(w.traced.size(), per_worker.size()));
    for (std::size_t k = 0; k < per_worker.size(); ++k) w.traced[k].add(per_worker[k], weight);
  }
  return w;
}

/// The platform key of a link's bandwidth: NICs, GPU links, star links and switch-to-switch links; the links of
/// structured nodes (sim/platform/node_fabric.cpp) by their names: *_pcie*, *nvlink*, node<n>_nic<k>, rail<k>_spine.
std::string link_key(const std::string& link, const std::string& topology) {
  if (link.find("_pcie") != std::string::npos) return "platform.node.pcie";
  if (link.find("nvlink") != std::string::npos) return "platform.node.nvlink";
  if (link.rfind("rail", 0) == 0) return "platform.network_link";
  if (link.rfind("nic", 0) == 0 || (link.rfind("node", 0) == 0 && link.find("_nic") != std::string::npos))
    return "platform.inter_link";
  if (link.rfind("gpu", 0) == 0) return "platform.intra_link";
  if (topology == "star") return "platform.link";
  if (topology == "graph" || topology == "two_level") return "";
  return "platform.network_link";
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

struct Context {
  const json& report;
  const json& setup;
  double iteration_s;
  Workers workers;
  Diagnosis d;

  void propose(const std::vector<std::string>& settings, std::string why) {
    d.what_ifs.push_back({run_command(report, settings), std::move(why), settings});
  }
  std::string share(double seconds) const {
    return fmt::format("{} ({} of the iteration)", duration_text(seconds), percent_text(seconds / iteration_s));
  }
};

/// `seconds` of a critical path `path_s` long: "8.97 s (30 %)".
std::string path_share(double seconds, double path_s) {
  return fmt::format("{} ({})", duration_text(seconds), percent_text(seconds / path_s));
}

/// Each kind of link that carries traffic (the busiest link of each platform key, busiest kind first) as the next
/// product generation of that kind (viz/link_products): none where no key sets it or its bandwidth is no product's.
void propose_next_links(Context& c) {
  std::vector<std::string> seen;
  for (const json& link : c.report["links"]) {
    const double utilisation = link["utilisation"];
    const std::string key = link_key(link["name"], c.setup["topology"]);
    if (key.empty() || utilisation <= 0 || std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    const double now_Bps = link.value("line_rate_Bps", 0.0);  // the product's line rate, as configured
    if (const auto next = next_link_product(key, now_Bps))
      c.propose({key + ".bandwidth=" + bandwidth_setting(next->bandwidth_Bps)},
                fmt::format("{} ({}, busiest {} {} busy) as the next product: {}", key, bandwidth_setting(now_Bps),
                            link["name"].get<std::string>(), percent_text(utilisation), next->name));
  }
}

double critical_path_s(const json& report, const std::string& category, int* tasks = nullptr) {
  double total = 0;
  int count = 0;
  for (const auto& e : report["critical_path"])
    if (e["category"] == category) {
      total += e["end_s"].get<double>() - e["start_s"].get<double>();
      ++count;
    }
  if (tasks) *tasks = count;
  return total;
}

/// The evidence and what-ifs of data-parallel gradient exchanges (the buckets, the busiest link, start-up latency).
void explain_exchanges(Context& c) {
  const json& report = c.report;
  const auto& per_bucket = report["exposed_comm_per_bucket_s"];
  std::vector<std::pair<double, std::size_t>> exposed;
  for (std::size_t b = 0; b < per_bucket.size(); ++b)
    if (per_bucket[b].get<double>() > 0) exposed.push_back({per_bucket[b].get<double>(), b});
  std::sort(exposed.rbegin(), exposed.rend());
  if (!exposed.empty()) {
    std::string largest;
    for (std::size_t k = 0; k < std::min<std::size_t>(3, exposed.size()); ++k)
      largest += fmt::format("{}bucket {} {}", k ? ", " : "", exposed[k].second, duration_text(exposed[k].first));
    c.d.evidence.push_back(fmt::format("{} of {} buckets are exposed in the last iteration of worker 0; the largest: {}.",
                                       exposed.size(), per_bucket.size(), largest));
  }
  int exchanges = 0;
  const double comm_path_s = critical_path_s(report, "comm", &exchanges);
  if (comm_path_s > 0)
    c.d.evidence.push_back(fmt::format("The critical path of the last iteration spends {} in {} exchanges.",
                                       duration_text(comm_path_s), exchanges));
  const std::string topology = c.setup["topology"];
  const std::string scheduler = c.setup["scheduler"];
  const std::string architecture = c.setup["architecture"];
  const auto buckets = c.setup["buckets"].get<std::int64_t>();
  // Start-up latency (paid per step of every bucket's collective) against transfer time on the busiest link.
  double latency_share = buckets > 8 ? 0.5 : 0.0;
  const auto& links = report["links"];
  if (!links.empty()) {
    const json& hot = links[0];
    const double utilisation = hot["utilisation"], bytes = hot["bytes_per_iteration"];
    const double busy_s = utilisation * c.iteration_s;
    std::int64_t alike = 0;  // each entry stands for `count` links (schema 2: one)
    for (const json& l : links)
      if (l["utilisation"].get<double>() >= 0.99 * utilisation) alike += l.value("count", std::int64_t{1});
    c.d.evidence.push_back(fmt::format("Busiest link: {} carries {} per iteration and is busy {} of it{}.",
                                       hot["name"].get<std::string>(), core::format_bytes(bytes),
                                       percent_text(utilisation),
                                       alike > 1 ? fmt::format(" ({} links alike)", alike) : std::string()));
    // The link carries bytes only while exchanges run, and in an all-reduce every worker takes part in every
    // exchange: worker 0's exchanges in flight (the union of its buckets' collectives, overlapped with backward
    // or not) hold the link's busy time, and what they hold beyond it is start-up latency and waits.
    double in_flight_s = 0;
    for (const auto& it : report["iterations"]) in_flight_s += it.value("exchanges_in_flight_s", 0.0);
    in_flight_s /= static_cast<double>(report["iterations"].size());
    if (architecture.find("all-reduce") != std::string::npos && in_flight_s > 0 && busy_s <= in_flight_s) {
      const double latency_s = in_flight_s - busy_s;
      latency_share = latency_s / in_flight_s;
      c.d.accounts.push_back({"exchanges in flight (worker 0, mean per iteration)", in_flight_s,
                              {{"busiest link busy", busy_s}, {"start-up latency and waits", latency_s}}});
      c.d.evidence.push_back(fmt::format(
          "It is busy {} of the {} worker 0's exchanges are in flight; the other {} ({}) is start-up latency, paid "
          "at every step of each of the {} buckets' collectives, and waits: the exchange is mostly {}.",
          duration_text(busy_s), duration_text(in_flight_s), duration_text(latency_s), percent_text(latency_share),
          buckets, latency_share >= 0.5 ? "latency-bound" : "bandwidth-bound"));
    }
  }
  const auto fewer_start_ups = [&] {
    for (const char* s : {"mg_wfbp", "ddp", "fusion"})
      if (scheduler != s && buckets > 1)
        c.propose({std::string("strategy.scheduler=") + s},
                  fmt::format("merges small gradients into fewer buckets: {} pays the start-ups once per bucket", scheduler));
    if (architecture.find("all-reduce") == std::string::npos) return;
    if (topology != "star" && c.setup["collective"] != "hierarchical")
      c.propose({"strategy.collective=hierarchical"},
                "reduces within each node first: fewer steps, and only a shard of the gradient crosses nodes");
    else if (c.setup["collective"] == "ring")
      c.propose({"strategy.collective=recursive_doubling"}, "log2(p) start-ups per collective instead of the ring's 2(p-1)");
  };
  const auto fewer_bytes = [&] {
    propose_next_links(c);
    const std::string sync = c.setup["sync"];
    // Gradients in bf16 (refused with compression, numerics mode's real fp32 gradients and PowerGossip's factors).
    if (c.setup.value("gradient_dtype", "") == "fp32" && c.setup["compression"].get<std::string>().empty() &&
        !c.report.contains("training") && architecture.find("gossip") == std::string::npos)
      c.propose({"strategy.gradient_dtype=bf16"}, "gradients kept and exchanged in bf16: half the bytes of every "
                                                  "gradient exchange");
    if (c.setup["compression"].get<std::string>().empty() && architecture.find("gossip") == std::string::npos &&
        (starts_with(sync, "bsp") || starts_with(sync, "ssp") || starts_with(sync, "asp"))) {
      c.propose({"compression.compressor=fp16"}, "halves the bytes on the wire");
      c.propose({"compression.compressor=topk", "compression.error_feedback=residual"},
                "sends the largest 1 % of each gradient, with error feedback");
    }
  };
  // The larger cause first; the other too when it is a quarter of the communication.
  if (latency_share >= 0.5) {
    fewer_start_ups();
    if (latency_share <= 0.75) fewer_bytes();
  } else {
    fewer_bytes();
    if (latency_share >= 0.25) fewer_start_ups();
  }
}

/// Exposed communication, the compute stream's wait for the exchanges, bounds a run read from its breakdown.
void explain_communication(Context& c, double exposed_s) {
  c.d.bound = "communication";
  c.d.answer = "Bounded by exposed communication: " + c.share(exposed_s) +
               " is spent waiting for gradients after backward.";
  explain_exchanges(c);
}

void explain_stragglers(Context& c, std::size_t slowest, double median_s) {
  c.d.bound = "stragglers";
  const Phases& slow = c.workers.traced[slowest];
  c.d.answer = fmt::format("Bounded by stragglers: worker {} computes {} per iteration, {} more than the median "
                           "worker, and the others wait for it.",
                           slowest, duration_text(slow.compute_s()), c.share(slow.compute_s() - median_s));
  c.d.evidence.push_back(fmt::format("The mean worker waits {} as exposed communication and {} idle per iteration.",
                                     duration_text(c.workers.mean.exposed_s), duration_text(c.workers.mean.idle_s)));
  const auto slow_workers = std::count_if(c.workers.traced.begin(), c.workers.traced.end(),
                                          [&](const Phases& p) { return p.compute_s() > 1.05 * median_s; });
  c.d.evidence.push_back(fmt::format("{} of the {} traced workers compute more than 5 % above the median {}.",
                                     slow_workers, c.workers.traced.size(), duration_text(median_s)));
  const std::string sync = c.setup["sync"];
  if (starts_with(sync, "bsp")) {
    c.propose({"strategy.sync=local_sgd"}, "workers average models every 4 iterations, so they wait for the slowest "
                                           "a quarter as often");
    c.propose({"strategy.architecture=ps", fmt::format("strategy.backup_workers={}", std::max<long>(1, slow_workers))},
              "a parameter server closes each round without the slowest workers' gradients");
  }
}

/// The kind of communication that holds the most of `path` (null when none does).
const PathKind* largest_communication(const PathKinds& path) {
  const PathKind* largest = nullptr;
  for (const PathKind& k : path.kinds)
    if (!is_compute(k.category) && k.seconds > 0 && (!largest || k.seconds > largest->seconds)) largest = &k;
  return largest;
}

/// The evidence and what-ifs of the communication on `path`, the kind that holds the most of it first;
/// `exposed_s`: the compute stream's wait for it (the mean worker's).
void explain_path_kinds(Context& c, const PathKinds& path, double exposed_s) {
  const PathKind* largest = largest_communication(path);
  if (!largest) return;
  for (const PathKind& k : path.kinds)
    if (!is_compute(k.category) && k.seconds > 0)
      c.d.evidence.push_back(fmt::format("The critical path spends {} on {}.", path_share(k.seconds, path.length_s),
                                         communication_text(k.category)));
  c.d.evidence.push_back(fmt::format(
      "The compute stream waits {} for communication (exposed); the rest of the communication on the path overlaps "
      "computation.",
      duration_text(exposed_s)));
  if (largest->category == "comm" || largest->category == "compress") {
    explain_exchanges(c);
    return;
  }
  propose_next_links(c);
  if (path.seconds("tp") > 0.1 * path.length_s &&
      c.setup["architecture"].get<std::string>().find("sequence parallel") == std::string::npos)
    c.propose({"parallel.sequence_parallel=true"},
              "splits norms and dropout over the tensor group (all-gather and reduce-scatter instead of all-reduce)");
  if (path.seconds("cp") > 0.1 * path.length_s &&
      c.setup["architecture"].get<std::string>().find("context all_gather") != std::string::npos)
    c.propose({"parallel.context_comm=p2p"},
              "ring attention: each key/value block travels while attention computes on the one before");
}

/// Compute (or the memory-bound optimizer step) bounds: `compute_s` of it, `update_s` in the optimizer step;
/// `path`: the critical path of the last iteration when the verdict is read from it. Communication that holds a
/// fifth of the iteration (of the path) without bounding it is named, and its what-ifs follow compute's.
void explain_compute(Context& c, double compute_s, double update_s, const PathKinds* path, double exposed_s) {
  const bool memory = update_s >= 0.25 * compute_s;
  c.d.bound = memory ? "memory" : "compute";
  const char* what = memory ? "memory bandwidth" : "compute";
  const PathKind* largest = path ? largest_communication(*path) : nullptr;
  const bool communication_matters =
      path ? path->communication_s() >= bounding_share * path->length_s : exposed_s >= bounding_share * c.iteration_s;
  if (path)
    c.d.answer = fmt::format("Bounded by {}: computation is {} of the critical path of the last iteration; "
                             "communication {}{}.",
                             what, path_share(compute_s, path->length_s),
                             path_share(path->communication_s(), path->length_s),
                             communication_matters && largest
                                 ? fmt::format(", the most of it {} {}", communication_text(largest->category),
                                               path_share(largest->seconds, path->length_s))
                                 : std::string());
  else
    c.d.answer = fmt::format("Bounded by {}: compute is {}; {}.", what, c.share(compute_s),
                             communication_matters ? "exposed communication " + c.share(exposed_s) + ", less than compute"
                                                   : std::string("communication is hidden behind it or small"));
  c.d.evidence.push_back(fmt::format("The optimizer step, memory-bound (it streams weights, gradients and momentum), "
                                     "takes {}, {} of compute.",
                                     duration_text(update_s), percent_text(update_s / compute_s)));
  if (const auto& links = c.report["links"]; !links.empty())
    c.d.evidence.push_back(fmt::format("Exposed communication is {}; the busiest link, {}, is busy {} of the iteration.",
                                       c.share(c.workers.mean.exposed_s), links[0]["name"].get<std::string>(),
                                       percent_text(links[0]["utilisation"].get<double>())));
  const std::string gpu = c.setup["gpu"], precision = c.setup["precision"];
  if (precision == "fp32" || precision == "tf32")
    c.propose({"gpu.precision=fp16"}, "half-precision tensor cores: faster layers");
  // A platform states its GPUs: faster GPUs come with the built-in cluster that has them (64 A100s).
  if ((gpu == "v100" || gpu == "rtx2080ti") && c.setup["workers"].get<int>() <= 64)
    c.propose({"platform=a100_8x8_200gbib", "gpu.profile=a100"},
              memory ? "the built-in DGX A100 cluster: more memory bandwidth for the optimizer step"
                     : "the built-in DGX A100 cluster: faster GPUs (and a faster network)");
  if (!communication_matters) return;
  if (path)
    explain_path_kinds(c, *path, exposed_s);
  else
    explain_exchanges(c);
}

/// Communication bounds a run whose verdict is read from its critical path (it holds more of it than
/// computation): the kind that holds the most of it names the answer; `exposed_s`: the compute stream's wait for
/// it (the mean worker's).
void explain_path_communication(Context& c, const PathKinds& path, double exposed_s) {
  const PathKind* largest = largest_communication(path);
  c.d.bound = "communication";
  c.d.answer = fmt::format("Bounded by {}: {} of the critical path of the last iteration; communication {} in all, "
                           "computation {}.",
                           communication_text(largest->category), path_share(largest->seconds, path.length_s),
                           path_share(path.communication_s(), path.length_s),
                           path_share(path.compute_s(), path.length_s));
  explain_path_kinds(c, path, exposed_s);
}

}  // namespace

std::string run_command(const json& report, const std::vector<std::string>& settings) {
  const std::string scenario = report["setup"]["scenario"];
  std::string command = "dtsim run";
  if (scenario.rfind("built-in", 0) != 0) command += " " + core::shell_quote(scenario);
  // An override of a key the change sets, or of a key inside it (platform.inter_link.* for platform=...), goes.
  const auto key = [](const std::string& setting) { return setting.substr(0, setting.find('=')); };
  const auto replaced = [&](const std::string& o) {
    return std::any_of(settings.begin(), settings.end(), [&](const std::string& s) {
      return key(o) == key(s) || key(o).starts_with(key(s) + ".");
    });
  };
  if (report.contains("provenance"))
    for (const std::string o : report["provenance"]["overrides"])
      if (!replaced(o)) command += " --set " + core::shell_quote(o);
  for (const std::string& s : settings) command += " --set " + core::shell_quote(s);
  return command;
}

Diagnosis diagnose(const json& report) {
  const json& summary = report["summary"];
  if (report["iterations"].empty())
    return {"none", "No iteration completed, so there is no iteration time to explain.", {}, {}, {}};
  Context c{report, report["setup"], summary["mean_iteration_s"].get<double>(), workers_of(report), {}};
  const Phases& mean = c.workers.mean;
  c.d.evidence.push_back(fmt::format(
      "Per iteration, mean over workers: forward {}, backward {}, update {}, exposed communication {}, idle {}.",
      duration_text(mean.forward_s), duration_text(mean.backward_s), duration_text(mean.update_s),
      duration_text(mean.exposed_s), duration_text(mean.idle_s)));
  // Where every worker is a whole replica, the median traced worker's compute is the work and a slower worker's
  // surplus the stragglers' cost (the stages of a layout differ by design); the slowest worker's own exposed
  // communication is what the network costs (the others' includes their wait for it).
  const bool whole_replicas = !c.setup.contains("replicas") || c.setup["replicas"] == c.setup["workers"];
  std::vector<double> compute;
  if (whole_replicas)
    for (const Phases& p : c.workers.traced) compute.push_back(p.compute_s());
  double straggle_s = 0, exposed_s = mean.exposed_s, median_s = mean.compute_s();
  std::size_t slowest = 0;
  if (!compute.empty()) {
    std::vector<double> sorted = compute;
    const auto middle = (sorted.size() - 1) / 2;  // the lower median: of two workers, the faster (as sim/plan/explain)
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(middle), sorted.end());
    median_s = sorted[middle];
    slowest = static_cast<std::size_t>(std::max_element(compute.begin(), compute.end()) - compute.begin());
    straggle_s = compute[slowest] - median_s;
    if (straggle_s > 0.05 * median_s) exposed_s = c.workers.traced[slowest].exposed_s;
  }
  // Bulk-synchronous iterations all run the same task graph, so the last one's critical path speaks for them:
  // the verdict is read from it. A wait for a straggler shows on it as communication, so stragglers are
  // checked first.
  if (c.setup["sync"] == "bsp" && !report["critical_path"].empty()) {
    const PathKinds path = path_kinds(report["critical_path"]);
    Account& on_path = c.d.accounts.emplace_back(Account{"critical path of the last iteration", path.length_s, {}});
    for (const PathKind& k : path.kinds) on_path.parts_s.emplace_back(k.category, k.seconds);
    if (straggle_s >= bounding_share * c.iteration_s)
      explain_stragglers(c, slowest, median_s);
    else if (path.communication_s() > path.compute_s())
      explain_path_communication(c, path, exposed_s);
    else
      explain_compute(c, path.compute_s(), path.seconds("update"), &path, exposed_s);
    return c.d;
  }
  // Other schemes' iterations differ by design (local steps, stale or skipped exchanges, dropped workers): the
  // verdict is over all of them, from the workers' breakdown.
  const bool communication_bounds = exposed_s >= bounding_share * c.iteration_s && exposed_s > mean.compute_s();
  if (straggle_s >= bounding_share * c.iteration_s && (!communication_bounds || straggle_s > exposed_s))
    explain_stragglers(c, slowest, median_s);
  else if (communication_bounds)
    explain_communication(c, exposed_s);
  else
    explain_compute(c, mean.compute_s(), mean.update_s, nullptr, exposed_s);
  return c.d;
}

}  // namespace dtsim::viz
