#include "sim/run/numerics_sync.hpp"

#include <algorithm>
#include <memory>
#include <numeric>

#include "compressors/rng.hpp"
#include "sim/core/error.hpp"
#include "sim/run/architecture.hpp"
#include "sim/run/stragglers.hpp"
#include "sim/sync/architecture_traits.hpp"
#include "sim/sync/scheme.hpp"

namespace dtsim::run {

std::vector<bool> kept_workers(const scenario::Scenario& s, const Slowdown& slowdown, std::uint64_t seed,
                               std::int64_t iteration) {
  const int per_participant = s.ps.hierarchical ? s.platform.gpus_per_node : 1;
  const int participants = (s.workers + per_participant - 1) / per_participant;
  struct Arrival {
    double slowdown = 1.0;
    double tie = 0.0;
    int participant = 0;
  };
  compressors::Rng rng(compressors::stream_seed(seed, static_cast<std::uint64_t>(iteration), 0));
  std::vector<Arrival> arrivals;
  for (int p = 0; p < participants; ++p) {
    Arrival a{1.0, rng.uniform(), p};
    for (int w = p * per_participant; w < std::min(s.workers, (p + 1) * per_participant) && slowdown; ++w)
      a.slowdown = std::max(a.slowdown, slowdown(w, static_cast<int>(iteration), 0.0, 1.0));
    arrivals.push_back(a);
  }
  std::sort(arrivals.begin(), arrivals.end(), [](const Arrival& a, const Arrival& b) {
    return a.slowdown != b.slowdown ? a.slowdown > b.slowdown : a.tie < b.tie;
  });
  std::vector<bool> kept(static_cast<std::size_t>(s.workers), true);
  for (int d = 0; d < s.sync.backup_workers; ++d) {
    const int p = arrivals[static_cast<std::size_t>(d)].participant;
    for (int w = p * per_participant; w < std::min(s.workers, (p + 1) * per_participant); ++w)
      kept[static_cast<std::size_t>(w)] = false;
  }
  return kept;
}

numerics::SyncConfig numerics_sync(const scenario::Scenario& s, std::uint64_t seed) {
  using numerics::Scheme;
  const sync::SyncPolicy& policy = s.sync;
  numerics::SyncConfig c;
  c.exchanges = [policy](std::int64_t iteration) { return policy.exchanges(static_cast<int>(iteration)); };
  if (const sync::LossRule rule = policy.rules().loss_rule(policy)) {
    // AdaComm: the rule hears each step's loss, then says whether the step exchanges.
    auto decided = std::make_shared<std::vector<bool>>();
    c.observe = [rule, decided](std::int64_t iteration, double loss) {
      decided->push_back(rule(static_cast<int>(iteration), loss));
    };
    c.exchanges = [decided](std::int64_t iteration) { return decided->at(static_cast<std::size_t>(iteration)); };
  }
  c.lag_threshold = policy.lag_threshold;
  c.lag_window = policy.lag_window;
  const sync::Meeting meeting = policy.rules().meeting();
  const Architecture& architecture = architecture_named(s.architecture);
  if (architecture.set_meeting(c, s, meeting)) return c;
  if (meeting == sync::Meeting::kSampledModels) {
    c.scheme = Scheme::kModelAverage;
    c.participants = [policy, workers = s.workers](std::int64_t iteration) {
      return policy.participants(workers, static_cast<int>(iteration));
    };
    return c;
  }
  if (meeting == sync::Meeting::kModels || meeting == sync::Meeting::kOverlapModels) {
    c.average_momentum = policy.rules().averages_momentum(policy);
    c.scheme = meeting == sync::Meeting::kModels ? Scheme::kModelAverage : Scheme::kOverlapAverage;
    c.pull = meeting == sync::Meeting::kOverlapModels ? policy.parameter("alpha") : c.pull;
    return c;
  }
  c.compressed_pull = sync::architecture_named(s.architecture).meets == sync::Meets::kServers && s.ps.pull == "compressed";
  if (meeting == sync::Meeting::kAsyncPushes) {
    c.scheme = Scheme::kAsyncPushes;
  } else if (meeting == sync::Meeting::kStaleGradients) {
    c.scheme = Scheme::kStaleGradients;
    c.staleness = policy.staleness;
  } else if (policy.backup_workers > 0) {
    c.kept = [s, slowdown = slowdown_of(s.stragglers, s.workers), seed](std::int64_t iteration) {
      return kept_workers(s, slowdown, seed, iteration);
    };
  }
  return c;
}

}  // namespace dtsim::run
