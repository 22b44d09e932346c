#pragma once
/// Least-squares alpha-beta parameters from measured collective times, one network level at a time
/// (Hockney's model; the closed forms of Thakur, Rabenseifner and Gropp 2005, algorithms.md section 7).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/calibration/measurement.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/nvlink_rings.hpp"

namespace dtsim::calibration {

/// How well predicted times explain measured ones.
struct FitQuality {
  int points = 0;
  double r_squared = 0;            ///< 1 - SS_res / SS_tot over the times
  double mean_relative_error = 0;  ///< mean of |predicted - measured| / measured
  double max_relative_error = 0;   ///< largest |predicted - measured| / measured
};

/// The fitted per-message cost of one network level and how well it explains that level's measurements.
struct LevelFit {
  collectives::AlphaBeta cost;
  FitQuality quality;
  std::vector<collectives::Group> groups;  ///< distinct groups measured, by GPU count
  std::vector<double> crossover_bytes;     ///< per group: n* where the alpha part equals the beta part
  int latency_bound_points = 0;            ///< measurements smaller than their group's n*
  double min_bytes = 0;
  double max_bytes = 0;
  bool alpha_clamped = false;  ///< the unconstrained fit had alpha < 0; alpha = 0 is the best alpha >= 0
  double call_s = 0;           ///< fixed time per call on no link (LinkCosts::call_s), where fitted
  bool call_fitted = false;    ///< the form charges a per-call time and it was fitted (>= 0)
  double buffer_s_per_byte = 0;  ///< time per byte of the input and output buffers (LinkCosts::buffer_s_per_byte)
  bool buffer_fitted = false;    ///< the form charges the buffers and their time was fitted (>= 0)
};

/// The fit of every level the measurements cover.
struct AlphaBetaFit {
  std::string collective;         ///< the collective whose closed form was fitted, e.g. "ring"
  collectives::NvlinkCounts nvlinks;  ///< the node's NVLinks the fit saw (empty: a uniform node)
  int nvswitch_nvlinks = 0;           ///< NVLinks a GPU has to the NVSwitches of the node the fit saw (0: none)
  std::optional<LevelFit> intra;  ///< from groups inside one node
  std::optional<LevelFit> inter;  ///< from groups spanning nodes, with the intra-node cost fixed first
  int gpus = 0;                   ///< most GPUs in any measurement
  int gpus_per_node = 1;          ///< node size of the inter-node measurements (1 when there are none)
  int nodes = 1;                  ///< most nodes any measurement spans
  /// Costs for the closed forms; a level that was not measured takes the other level's cost.
  collectives::LinkCosts link_costs() const;
};

/// Fits `collective`'s closed form (linear in alpha and beta) to the measurements by least squares on the
/// relative residuals, so that a 1 MiB point weighs as much as a 1 GiB one; alpha and beta are kept >= 0.
/// Groups inside one node fit the intra-node cost; groups spanning nodes then fit the inter-node cost with
/// the intra-node cost fixed (at zero when nothing was measured inside a node: a multi-node run alone fits the
/// route across nodes). Throws core::InputError when a level cannot be fitted.
/// With `nvlinks` (the NVLink mesh of the node the measurements ran on; every measurement inside one node) the
/// fitted form is that of NCCL's ring channels (fitted_collective): alpha is one NVLink hop's start-up and
/// 1 / beta one NVLink's bandwidth, the ring count per GPU count coming from the wiring, and the protocol per
/// point NCCL's tuner's (LL128 channels at min(0.92 / beta, 16.7 GB/s): the form is piecewise linear in beta);
/// the per-call time (LinkCosts::call_s) and the buffers' time per byte (LinkCosts::buffer_s_per_byte) are fitted
/// too, each held at 0 where the best one would be negative. With `nvswitch_nvlinks` (an NVSwitch node whose GPUs
/// have that many NVLinks to the switches; every measurement inside one node) the same, NCCL's channels sharing
/// the GPU's port: alpha and beta are the port's (two ports a route, one ring of all the data).
AlphaBetaFit fit_alpha_beta(const std::vector<Measurement>& measurements, std::string_view collective = "ring",
                            const collectives::NvlinkCounts& nvlinks = {}, int nvswitch_nvlinks = 0);

/// The all-reduce whose closed form fit_alpha_beta fits, tuned for `costs`: `collective`; on an NVLink mesh
/// (`costs.nvlinks` not empty) or an NVSwitch node (`costs.nvswitch_nvlinks` > 0) NCCL's ring on the rings of collectives::nccl_rings with the protocol NCCL's tuner
/// picks per size (it prices a channel at NCCL's own 20 GB/s, so the choice does not depend on the costs), whose
/// closed form is 2(p-1) (alpha + chunk) for C rings, the chunk n / (p C) bytes at beta with Simple and at
/// collectives::nccl_channel_efficiency with LL128, plus what NCCL's latency term has beyond the 2(p-1) alphas:
/// what a run on the calibrated platform computes. Throws core::InputError for another collective on a mesh.
std::unique_ptr<collectives::Collective> fitted_collective(std::string_view collective,
                                                           const collectives::LinkCosts& costs);

/// Quality of the times closed_form_s(group, bytes, costs) predicts for the measurements (at least one).
FitQuality fit_quality(const std::vector<Measurement>& measurements, const collectives::Collective& collective,
                       const collectives::LinkCosts& costs);

/// n*: the message size at which the alpha part of the closed form (start-ups) equals its beta part (bytes
/// over bandwidth); p alpha / beta for a ring all-reduce. Smaller messages are latency-bound.
double crossover_bytes(const collectives::Collective& collective, const collectives::Group& group,
                       const collectives::LinkCosts& costs);

/// The fit in words, one line each: per level its cost, its quality, and which sizes are latency-bound.
std::vector<std::string> describe_fit(const AlphaBetaFit& fit);

}  // namespace dtsim::calibration
