// fedavg, Federated Averaging with client sampling (McMahan, Moore, Ramage, Hampson & Agüera y Arcas,
// "Communication-Efficient Learning of Deep Networks from Decentralized Data", AISTATS 2017, Algorithm 1): each
// round the server samples m = max(floor(C K), 1) of the K clients; each sampled client starts from the global
// model and runs E local epochs over its shard of n examples in mini-batches of B, u = E ceil(n / B) local steps
// (the paper's E n / B); the server replaces the global model by the sampled clients' models averaged with
// weights n_k / sum n_k. The other clients sit the round out. dtsim's iteration is one local step, so a round is
// u iterations that only the sampled workers compute, the last of which exchanges among them (a collective over
// their hosts, or their pushes and pulls). Every round draws its sample afresh from `seed` and the round's
// number: the same inputs give the same clients. Clients whose shards differ in size (numerics' Dirichlet
// shards) all run u steps, u B / n_k epochs over their own shard; the average still weighs by n_k.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "compressors/rng.hpp"
#include "sim/sync/periodic_scheme.hpp"

namespace dtsim::sync {
namespace {

/// m = max(floor(C K), 1) clients a round (McMahan et al., Algorithm 1).
int clients_per_round(const SyncPolicy& p, int workers) {
  return std::max(1, static_cast<int>(std::floor(p.parameter("fraction") * workers + 1e-9)));
}

class FedAvg final : public PeriodicScheme {
 public:
  std::string title() const override { return "Federated Averaging (client sampling)"; }
  std::vector<SchemeOption> options() const override {
    return {{"fraction", "number", "0.1", "C, the fraction of the clients (workers) sampled each round, in (0, 1]", 0,
             1},
            {"epochs", "integer", "1", "E, the local epochs a sampled client runs over its shard each round", 1, 10000},
            {"shard", "integer", "required", "n, the examples of a client's shard: a round is E ceil(n / B) local steps",
             1, 1000000000, nullptr, "the size of its clients' shards", "examples per client"},
            {"seed", "integer", "1", "the seed of the clients' sampling (one draw per round)", 0, 1000000000}};
  }
  std::optional<OptionProblem> check(const SyncPolicy& p, int) const override {
    if (p.parameter("fraction") == 0)
      return OptionProblem{"fraction", "fraction = 0 samples no client", "allowed: a number in (0, 1]"};
    return std::nullopt;
  }
  void derive(SyncPolicy& p, int batch_size) const override {
    const auto shard = static_cast<std::int64_t>(p.parameter("shard"));
    const std::int64_t steps = static_cast<std::int64_t>(p.parameter("epochs")) * ((shard + batch_size - 1) / batch_size);
    p.period = static_cast<int>(std::min<std::int64_t>(steps, 100000000));
  }
  std::string describe(const SyncPolicy& p) const override {
    std::ostringstream words;
    words << "fedavg (fraction " << p.parameter("fraction") << " of the clients a round, "
          << static_cast<int>(p.parameter("epochs")) << " epochs of " << static_cast<std::int64_t>(p.parameter("shard"))
          << " examples: " << p.period << " local steps)";
    return words.str();
  }
  std::string incompatibility(const SyncPolicy&, const ArchitectureTraits& architecture) const override {
    if (architecture.meets != Meets::kCollective)
      return "FedAvg averages the sampled clients' models in a collective over their hosts; on \"" +
             std::string(architecture.name) + "\" the sampled subset is not modelled: it needs architecture " +
             architectures_meeting(Meets::kCollective);
    return "";
  }
  std::vector<int> participants(const SyncPolicy& p, int workers, int iteration) const override {
    const int m = clients_per_round(p, workers);
    const auto round = static_cast<std::uint64_t>(iteration / p.period);
    compressors::Rng rng(compressors::stream_seed(static_cast<std::uint64_t>(p.parameter("seed")), round, 0));
    std::vector<int> clients(static_cast<std::size_t>(workers));
    for (int w = 0; w < workers; ++w) clients[static_cast<std::size_t>(w)] = w;
    for (int i = 0; i < m; ++i)  // a partial Fisher-Yates shuffle: m draws without replacement
      std::swap(clients[static_cast<std::size_t>(i)],
                clients[static_cast<std::size_t>(i) + rng.below(static_cast<std::uint64_t>(workers - i))]);
    clients.resize(static_cast<std::size_t>(m));
    std::sort(clients.begin(), clients.end());
    return clients;
  }
  Meeting meeting() const override { return Meeting::kSampledModels; }
};

}  // namespace

const Scheme& fedavg_scheme() {
  static const FedAvg scheme;
  return scheme;
}

}  // namespace dtsim::sync
