#pragma once
/// A platform file (README "Platform files") whose routes reproduce fitted alpha-beta costs.
#include <string>
#include <vector>

#include "sim/calibration/alpha_beta_fit.hpp"

namespace dtsim::calibration {

/// The platform TOML for `fit`, named `name`, with the fit and its quality in comments. One level (all GPUs
/// in one node, or one GPU per node): a star of fit.gpus hosts, link latency = alpha / 2 and bandwidth =
/// 1 / beta. Two levels: two_level with fit.nodes nodes of fit.gpus_per_node GPUs, GPU-link latency =
/// intra alpha / 2, NIC latency = (inter alpha - intra alpha) / 2, GPU-link bandwidth = 1 / intra beta, NIC
/// bandwidth = 1 / inter beta; a comment says where a route cannot reproduce the fit (NIC faster than the
/// GPU link, inter-node alpha below intra-node). `sources` are the measurement files, listed in a comment.
/// `nodes` > 0 writes that many nodes instead of the measured count, to predict a larger (or smaller) cluster
/// with the fitted costs; it needs an inter-node level (core::InputError otherwise).
std::string platform_toml(const AlphaBetaFit& fit, const std::string& name, const std::vector<std::string>& sources,
                          int nodes = 0);

}  // namespace dtsim::calibration
