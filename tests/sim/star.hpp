#pragma once
// Test fixtures shared by the simulation tests: a star platform and its alpha-beta constants.
#include "sim/collectives/collective.hpp"
#include "sim/platform/platform_spec.hpp"

namespace dtsim::testing {

/// A star of `hosts` hosts, 12.5 GB/s and 5 us per link: alpha = 10 us, beta = 1 / 12.5e9 s per byte.
inline platform::PlatformSpec star(int hosts, double bandwidth_Bps = 12.5e9, double latency_s = 5e-6) {
  platform::PlatformSpec spec;
  spec.name = "test-star";
  spec.topology = platform::Topology::star;
  spec.nodes = hosts;
  spec.gpus_per_node = 1;
  spec.intra = {bandwidth_Bps, latency_s};
  return spec;
}

/// star(...) whose switch sums (sharp = true): its reduction unit at the switch, switch endpoint 0.
inline platform::PlatformSpec sharp_star(int hosts, double bandwidth_Bps = 12.5e9, double latency_s = 5e-6) {
  platform::PlatformSpec spec = star(hosts, bandwidth_Bps, latency_s);
  spec.sharp = true;
  return spec;
}

/// `nodes` nodes of `gpus` GPUs: GPU links of `intra`, one NIC per node of `inter`.
inline platform::PlatformSpec two_level(int nodes, int gpus, platform::LinkSpec intra = {50e9, 1e-6},
                                        platform::LinkSpec inter = {12.5e9, 5e-6}) {
  platform::PlatformSpec spec;
  spec.name = "test-two-level";
  spec.topology = platform::Topology::two_level;
  spec.nodes = nodes;
  spec.gpus_per_node = gpus;
  spec.intra = intra;
  spec.inter = inter;
  return spec;
}

/// Per-message cost between two hosts of `star(...)`: two links' latency, one link's bandwidth.
inline collectives::AlphaBeta star_alpha_beta(double bandwidth_Bps = 12.5e9, double latency_s = 5e-6) {
  return {2 * latency_s, 1.0 / bandwidth_Bps};
}

/// The ring all-reduce closed form, written out independently of the library.
inline double ring_formula_s(int p, double n, collectives::AlphaBeta ab) {
  return 2.0 * (p - 1) * ab.alpha_s + 2.0 * (p - 1) / p * n * ab.beta_s_per_byte;
}

}  // namespace dtsim::testing
