#include "sim/plan/shards.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "sim/plan/provenance.hpp"

namespace dtsim::plan {
namespace fs = std::filesystem;

std::vector<int> shard_of(const std::vector<int>& order, int shard, int shards) {
  std::vector<int> mine;
  for (std::size_t p = static_cast<std::size_t>(shard); p < order.size(); p += static_cast<std::size_t>(shards))
    mine.push_back(order[p]);
  return mine;
}

std::string shard_summary_path(const scenario::PlanSpec& plan, int shard, int shards) {
  return fmt::format("{}/shards/shard-{}-of-{}.json", plan.output_dir, shard, shards);
}

nlohmann::json shard_summary(const scenario::PlanSpec& plan, const PlanResult& r, int shard, int shards,
                             const std::string& command) {
  nlohmann::json candidates = nlohmann::json::array();
  int simulated = 0, dropped = 0, failed = 0, rechecked = 0;
  for (const Outcome& o : r.outcomes) {
    // The shard's own: simulated (kept, dropped after its round, failed) or dropped before it ran.
    const bool ran = o.analytic.ok || !o.analytic.error.empty();
    if (!ran && o.pruned != "dominated") continue;
    nlohmann::json c = {{"index", o.candidate.index}, {"label", o.candidate.label}, {"pruned", o.pruned}};
    if (ran) c["analytic"] = o.analytic.run;
    if (o.flow) c["flow"] = o.flow->run;
    simulated += o.simulated();
    dropped += o.pruned == "dominated";
    failed += o.pruned == "failed";
    rechecked += o.flow.has_value();
    candidates.push_back(std::move(c));
  }
  return {{"schema", "dtsim.plan-shard/1"},
          {"provenance", plan_provenance(plan, command)},
          {"shard", shard},
          {"shards", shards},
          {"simulated", simulated},
          {"dropped", dropped},
          {"failed", failed},
          {"rechecked", rechecked},
          {"candidates", candidates}};
}

std::vector<std::string> shard_status(const scenario::PlanSpec& plan) {
  const fs::path dir = fs::path(plan.output_dir) / "shards";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return {};
  const nlohmann::json mine = plan_provenance(plan, "");
  const std::regex name(R"(shard-(\d+)-of-(\d+)\.json)");
  std::map<int, std::set<int>> finished;  // by shards: the shards with a current summary
  std::map<int, int> stale;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string file = entry.path().filename().string();
    if (!std::regex_match(file, m, name)) continue;
    const int shard = std::stoi(m[1]), shards = std::stoi(m[2]);
    std::ifstream in(entry.path());
    const nlohmann::json summary = nlohmann::json::parse(in, nullptr, false);
    const bool current = summary.is_object() && summary.contains("provenance") &&
                         summary["provenance"].value("dtsim_digest", "") == mine["dtsim_digest"] &&
                         summary["provenance"].value("plan_digest", "") == mine["plan_digest"];
    if (current)
      finished[shards].insert(shard);
    else
      ++stale[shards];
  }
  std::vector<std::string> out;
  for (const auto& [shards, done] : finished) {
    std::string missing;
    for (int i = 0; i < shards; ++i)
      if (!done.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
    out.push_back(missing.empty()
                      ? fmt::format("all {} shards of the job array have finished", shards)
                      : fmt::format("{} of {} shards have finished; not shard {}: what they have not simulated is "
                                    "simulated here", done.size(), shards, missing));
  }
  for (const auto& [shards, count] : stale)
    out.push_back(fmt::format("{} summaries of shards (of {}) were made by another dtsim or another version of {}: "
                              "their runs are not reused", count, shards, plan.source));
  return out;
}

}  // namespace dtsim::plan
