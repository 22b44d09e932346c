#pragma once
/// Averaging and gossip mixing of the workers' models, and how far they are apart: the consensus distance
/// (1/n) sum_i ||x_i - x_bar||^2 (Kong et al., "Consensus Control for Decentralized Deep Learning", ICML
/// 2021). Sums run in double and round once, so that equal replicas average to themselves bit for bit.
#include <span>
#include <vector>

namespace dtsim::numerics {

/// Flat parameter buffers of equal size, one per worker.
using Models = std::vector<std::span<const float>>;

/// out = (1/n) sum_i models[i].
void average(const Models& models, std::span<float> out);

/// out = sum_i weights[i] models[i] / sum_i weights[i] (weights > 0); equal weights give average() bit for bit.
void weighted_average(const Models& models, std::span<const double> weights, std::span<float> out);

/// out[i] = sum_j mixing[i n + j] models[j] for the row-major n x n `mixing`; out[i] may not alias a model.
void mix(std::span<const double> mixing, const Models& models, std::span<const std::span<float>> out);

/// (1/n) sum_i ||models[i] - mean||^2 with the mean in double.
double consensus_distance(const Models& models);

}  // namespace dtsim::numerics
