#pragma once
/// LAG-WK, the worker-triggered lazily aggregated gradient (Chen, Giannakis, Sun, Yin, "LAG: Lazily
/// Aggregated Gradient for Communication-Efficient Distributed Learning", NeurIPS 2018, rule (12a)). The
/// server keeps g_hat_m, the last gradient worker m uploaded, and steps with (1/n) sum_m g_hat_m. At step k
/// worker m computes g_m at the shared model theta^k and skips its upload (g_hat_m stays) when
///   ||g_m - g_hat_m||^2 <= xi / (lr^2 n^2) sum_{d=1..D} ||theta^{k+1-d} - theta^{k-d}||^2
/// over the model changes seen so far (at most D); with none (the first step) every worker uploads.
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace dtsim::numerics {

/// LAG-WK's rule: true when a worker whose gradient moved by `gradient_change_sq` (||g_m - g_hat_m||^2) must
/// upload, with threshold `xi`, learning rate `lr`, `workers` n and the squared model changes of the last
/// steps `model_changes_sq`; always true when there are none.
bool lag_uploads(double gradient_change_sq, double xi, double lr, int workers,
                 std::span<const double> model_changes_sq);

/// The server's side of LAG-WK: the gradients it holds and the model changes the rule looks back on.
class LazyAggregation {
 public:
  /// Threshold xi > 0 and window D >= 1 for `workers` workers and models of `parameters` parameters.
  LazyAggregation(double xi, int window, int workers, std::size_t parameters);
  /// One step at model `model` (theta^k) with learning rate `lr`: records the model's change since the last
  /// call, decides per worker from its fresh gradient `gradients[m]`, and takes the uploaded ones as g_hat_m.
  /// Returns the uploads, one flag per worker.
  std::vector<bool> step(std::span<const float> model, const std::vector<std::span<const float>>& gradients,
                         double lr);
  /// g_hat_m: the gradient the server holds for worker `m`.
  std::span<const float> held(std::size_t m) const { return held_[m]; }

 private:
  double xi_;
  std::size_t window_;
  std::vector<std::vector<float>> held_;
  std::vector<float> previous_;            ///< theta^{k-1}; empty before the first step
  std::deque<double> model_changes_sq_;    ///< the last D values of ||theta^j - theta^{j-1}||^2, newest last
};

}  // namespace dtsim::numerics
