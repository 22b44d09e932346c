#pragma once
/// How the workers' updates meet in numerics mode: sim/sync's schemes and architectures read as arithmetic
/// on model replicas (survey seed 001, sections 3.1 and 4). n workers, x_i worker i's model, g_i its
/// mini-batch gradient at x_i, opt_i(x, g) its optimizer's step, "mean" in double rounded once:
///   kAverageGradients  bsp on an all-reduce or a parameter server: x_i <- opt_i(x_i, mean of the kept g_j);
///                      replicas stay equal, which is the server's one step pulled dense
///   kStaleGradients    ssp on a parameter server: as above, with every g_j taken at the model of `staleness`
///                      steps earlier (Ho et al. 2013, the bound always reached); staleness 0 is bsp
///   kAverageGradients with lag_threshold > 0: LAG-WK (numerics/lag.hpp), the server averages the last
///                      gradient each worker uploaded; a worker whose gradient changed little skips its upload
///   kAsyncPushes       asp on a parameter server: pushes arrive round robin, each one server step
///                      opt(x, g_i / n); worker i then pulls x, so its next gradient is n - 1 updates old
///   kModelAverage      local_sgd, post_local_sgd: x_i <- opt_i(x_i, g_i), and on an exchanging iteration
///                      x_i <- opt_i(mean_j x_j, mean_j g_j), for SGD the model average 1/n sum_j (x_j - lr g_j);
///                      with average_momentum (Yu, Jin & Yang, ICML 2019) v_i <- mean_j v_j first. With
///                      `participants` (FedAvg, McMahan et al. 2017): only the iteration's participants P draw
///                      mini-batches and step; an exchange forms x <- opt_i(sum_P n_j x_j / sum_P n_j, sum_P n_j
///                      g_j / sum_P n_j), n_j worker j's shard size, and every worker, sampled or not, takes x
///   kOverlapAverage    Overlap Local-SGD (Wang, Liang & Joshi, ICASSP 2020; their distoptim/OverlapLocalSGD.py with
///                      no global momentum): x_i <- opt_i(x_i, g_i); on an exchanging iteration x_i <- x_i -
///                      pull (x_i - z), then z <- mean_j x_j; z starts at the initial model, so the average a pull
///                      uses is the one started a period earlier (its all-reduce overlaps the local steps)
///   kGossip            D-PSGD (Lian et al. 2017): x_i <- opt_i(sum_j W_ij x_j, g_i) on an exchanging
///                      iteration, opt_i(x_i, g_i) otherwise; with compression CHOCO-SGD (Koloskova, Stich & Jaggi,
///                      ICML 2019, Algorithm 1): x_i <- opt_i(x_i, g_i); q_i = C(x_i - xh_i); xh_i += q_i (every
///                      neighbour applies the same q_i to its copy of xh_i); x_i += gamma sum_j W_ij (xh_j - xh_i);
///                      with power_gossip PowerGossip (numerics/power_gossip.hpp): x_i <- x_i - gamma sum_j W_ij
///                      P_ij (rank 1 of x_i - x_j per matrix), then x_i <- opt_i(x_i, g_i at the unmixed x_i)
///   kPushSum           SGP (Assran et al. 2019): x_i <- opt_i(x_i, g_i at z_i = x_i / w_i), then every
///                      worker keeps half of (x_i, w_i) and sends half to its peer; z_i is the model
/// Optimizer state (momentum, Adam moments) stays with its worker or server and is averaged only where said.
#include <cstdint>
#include <functional>
#include <vector>

namespace dtsim::numerics {

/// The update rules above.
enum class Scheme { kAverageGradients, kStaleGradients, kAsyncPushes, kModelAverage, kOverlapAverage, kGossip, kPushSum };

/// A scheme with its parameters; each scheme reads the ones it needs.
struct SyncConfig {
  Scheme scheme = Scheme::kAverageGradients;                        ///< the update rule
  int staleness = 0;                                                ///< kStaleGradients: steps of delay
  std::function<bool(std::int64_t iteration)> exchanges;           ///< kModelAverage, kGossip: empty = always
  /// Told each step's mean mini-batch loss before `exchanges` is asked about the step (AdaComm's periods).
  std::function<void(std::int64_t iteration, double loss)> observe;
  std::vector<double> mixing;                                       ///< kGossip: W, n x n row-major, doubly stochastic
  std::function<int(int worker, std::int64_t iteration)> peer;      ///< kPushSum: where worker sends
  std::function<std::vector<bool>(std::int64_t iteration)> kept;    ///< kAverageGradients: gradients used; empty = all
  bool compressed_pull = false;  ///< kAverageGradients, kStaleGradients: the server compresses the averaged update
  double lag_threshold = 0.0;    ///< kAverageGradients: LAG's xi; 0 = every worker uploads every step
  int lag_window = 10;           ///< kAverageGradients with LAG: D, the model changes the rule looks back on
  double consensus_step = 1.0;   ///< kGossip with compression or power_gossip: the consensus step gamma
  bool power_gossip = false;     ///< kGossip: PowerGossip's rank-1 edge differences instead of whole models
  double pull = 0.2;             ///< kOverlapAverage: alpha, how far the anchor pulls each worker
  /// kModelAverage: the workers that compute in an iteration (increasing); empty: all, unweighted.
  std::function<std::vector<int>(std::int64_t iteration)> participants;
  bool average_momentum = false;  ///< kModelAverage: average the momentum buffers with the models
};

}  // namespace dtsim::numerics
