#include "sim/calibration/platform_toml.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "sim/core/error.hpp"

namespace dtsim::calibration {
namespace {

/// `x` with 12 decimals, trailing zeros dropped: "2.5", "230.123456789012".
std::string decimal(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.12f", x);
  std::string s = buffer;
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

void link(std::ostringstream& out, const std::string& table, double latency_s, double bandwidth_Bps) {
  out << "[" << table << "]\n"
      << "bandwidth = \"" << decimal(bandwidth_Bps * 1e-9) << "GBps\"\n"
      << "latency = \"" << decimal(latency_s * 1e6) << "us\"\n\n";
}

}  // namespace

std::string platform_toml(const AlphaBetaFit& fit, const std::string& name, const std::vector<std::string>& sources,
                          int nodes) {
  DTSIM_CHECK(fit.intra || fit.inter, "a platform from a fit without a level");
  const bool two_level = fit.inter && fit.gpus_per_node > 1;
  if (nodes > 0 && !fit.inter)
    throw core::InputError("--nodes " + std::to_string(nodes) + ": the measurements stay inside one node, so nothing "
                                                                 "says what links nodes",
                           "add measurements across nodes (nccl-tests with several nodes), or write the "
                           "inter-node links into a two_level platform yourself");
  if (fit.intra && fit.inter && !two_level)
    throw core::InputError("inter-node measurements with 1 GPU per node next to intra-node ones with several",
                           "inter-node measurements with the node size of the intra-node ones");
  std::ostringstream out;
  out << "# Fitted by dtsim calibrate from:\n";
  for (const std::string& s : sources) out << "#   " << s << '\n';
  for (const std::string& line : describe_fit(fit)) out << "# " << line << '\n';
  out << "name = \"" << name << "\"\n"
      << "description = \"alpha-beta costs fitted to measured " << fit.collective << " all-reduce times\"\n";
  if (!two_level) {
    const collectives::AlphaBeta cost = fit.intra ? fit.intra->cost : fit.inter->cost;
    out << "topology = \"star\"\n"
        << "hosts = " << (nodes > 0 ? nodes : fit.gpus) << "\n\n"
        << (fit.intra ? "# The measured GPUs share one node (NVLink / NVSwitch): modelled as one switch.\n" : "")
        << "# GPU i -> GPU j crosses link i and link j: alpha = 2 x latency, beta = 1 / bandwidth.\n";
    link(out, "link", cost.alpha_s / 2, 1 / cost.beta_s_per_byte);
  } else {
    const collectives::AlphaBeta inter = fit.inter->cost;
    const collectives::AlphaBeta intra = fit.intra ? fit.intra->cost : inter;
    out << "topology = \"two_level\"\n"
        << "nodes = " << (nodes > 0 ? nodes : fit.nodes)
        << (nodes > 0 ? "  # measured on " + std::to_string(fit.nodes) + "; written for dtsim calibrate --nodes" : "")
        << "\n"
        << "gpus_per_node = " << fit.gpus_per_node << "\n\n"
        << (fit.intra ? "" : "# Nothing was measured inside one node: the GPU links get the inter-node cost.\n")
        << "# Inside a node GPU i -> GPU j crosses two GPU links: intra alpha = 2 x latency, beta = 1 / bandwidth.\n";
    link(out, "intra_link", intra.alpha_s / 2, 1 / intra.beta_s_per_byte);
    out << "# Across nodes: GPU link, NIC up, NIC down, GPU link: inter alpha = 2 x GPU-link + 2 x NIC latency,\n"
        << "# beta = 1 / min(GPU-link, NIC bandwidth).\n";
    if (inter.alpha_s < intra.alpha_s)
      out << "# The inter-node alpha fitted is below the intra-node one: NIC latency 0, so routes across nodes\n"
          << "# have the intra-node alpha.\n";
    if (inter.beta_s_per_byte < intra.beta_s_per_byte)
      out << "# The inter-node bandwidth fitted exceeds the intra-node one: the GPU link is the bottleneck of\n"
          << "# routes across nodes, so they have the intra-node beta.\n";
    link(out, "inter_link", std::max(0.0, (inter.alpha_s - intra.alpha_s) / 2), 1 / inter.beta_s_per_byte);
  }
  out << "[network]\nmodel = \"alpha_beta\"\n";
  return out.str();
}

}  // namespace dtsim::calibration
