// Nominal predictions (nothing fitted to them) of published per-tensor, merged and single all-reduce training runs
// through Horovod: HKBU-HPML/ddl-benchmarks results/2020-05-29 (Shi et al., arXiv 2005.13247), 8 to 32 GPUs over
// 10 Gb/s Ethernet (TCP) and 100 Gb/s InfiniBand (RDMA), scenarios/validation/hkbu_*_horovod.toml. Prints the
// table docs/VALIDATION.md section 20 shows, before (framework "none") and after (framework "horovod"), and bounds
// the mean error and the orderings.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/run/run_simulation.hpp"
#include "sim/scenario/load.hpp"

namespace dtsim {
namespace {

/// One network of the table: its overrides of the scenarios' 10 GbE platform.
struct Network {
  const char* name;
  std::vector<std::string> overrides;
};

/// One model: its scenario and, per network, method (BSP-A2A, WFBP-A2A, MG-WFBP) and GPU count (8, 16, 32), the
/// measured samples per second (results/2020-05-29/README.md).
struct Model {
  const char* name;
  const char* file;
  double measured[2][3][3];
};

constexpr const char* kMethods[] = {"BSP-A2A", "WFBP-A2A", "MG-WFBP"};
constexpr const char* kSchedulers[] = {"none", "wfbp", "mg_wfbp"};
constexpr int kGpus[] = {8, 16, 32};

double samples_per_s(const Model& m, const Network& n, int method, int gpus, const std::string& framework) {
  std::vector<std::string> overrides = n.overrides;
  overrides.insert(overrides.end(), {"workers=" + std::to_string(gpus), "platform.nodes=" + std::to_string(gpus / 4),
                                     "strategy.scheduler=" + std::string(kSchedulers[method]),
                                     "output.timeline=false"});
  scenario::Scenario s =
      scenario::load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/validation/" + m.file, overrides);
  s.framework = framework;  // "none": the buckets handed on as they are (dtsim before the framework model)
  return run::run_simulation(s).samples_per_s;
}

TEST(FrameworkValidation, HorovodPerTensorMergedAndSingleAllreduceOnTcpAndInfiniBand) {
  const Network networks[] = {
      {"10GbE TCP", {}},
      // 100 Gb/s EDR InfiniBand as v100_4x4_100gbib.toml, RDMA. NCCL 2.4-2.5 uses GPUDirect RDMA for a send only
      // when the GPU has NVLink (net.cc netGetGdrSupport: NCCL_NET_GDR_READ -2, "For reads (sends) only enable
      // under certain conditions", ncclNvlinkGpu), for a receive only under the NIC's PCIe switch (NET_GDR_LEVEL
      // PATH_PHB): on these PCIe nodes the network's bytes go through host memory (gpudirect is one flag for both).
      {"100GbIB RDMA",
       {"platform.inter_link.bandwidth=100Gbps", "platform.inter_link.latency=1.5us",
        "platform.network.transport=rdma", "platform.node.gpudirect=false"}},
  };
  const Model models[] = {
      {"ResNet-50",
       "hkbu_resnet50_horovod.toml",
       {{{1282.280, 2485.120, 4920.820}, {1795.740, 3146.780, 5113.180}, {1980.580, 3784.980, 6883.600}},
        {{1821.200, 3602.900, 7126.520}, {2017.120, 3946.060, 7326.560}, {2001.720, 3987.400, 7876.460}}}},
      {"BERT-Base",
       "hkbu_bert_base_horovod.toml",
       {{{518.940, 984.880, 1926.640}, {582.260, 1069.480, 2013.380}, {611.440, 1153.180, 1925.780}},
        {{1082.420, 2112.960, 4184.380}, {1195.680, 2217.220, 4098.680}, {1235.040, 2515.300, 4940.080}}}},
  };
  double error_sum[2] = {0, 0};
  int rows = 0;
  int orderings = 0, wrong[2] = {0, 0};
  std::printf("| network | model | GPUs | method | measured | before | error | after | error |\n");
  for (const Model& m : models)
    for (int n = 0; n < 2; ++n)
      for (int g = 0; g < 3; ++g) {
        double predicted[2][3];
        for (int method = 0; method < 3; ++method) {
          const double measured = m.measured[n][method][g];
          for (int after = 0; after < 2; ++after) {
            predicted[after][method] = samples_per_s(m, networks[n], method, kGpus[g], after ? "horovod" : "none");
            error_sum[after] += std::abs(predicted[after][method] / measured - 1);
          }
          ++rows;
          std::printf("| %s | %s | %d | %s | %.0f | %.0f | %+.1f %% | %.0f | %+.1f %% |\n", networks[n].name, m.name,
                      kGpus[g], kMethods[method], measured, predicted[0][method],
                      100 * (predicted[0][method] / measured - 1), predicted[1][method],
                      100 * (predicted[1][method] / measured - 1));
        }
        // Orderings where the measured gap exceeds 5 %: every pair of methods.
        for (int a = 0; a < 3; ++a)
          for (int b = a + 1; b < 3; ++b) {
            const double ma = m.measured[n][a][g], mb = m.measured[n][b][g];
            if (std::abs(ma / mb - 1) <= 0.05) continue;
            ++orderings;
            for (int after = 0; after < 2; ++after)
              if ((predicted[after][a] > predicted[after][b]) != (ma > mb)) {
                ++wrong[after];
                std::printf("  ordering %s vs %s (%s, %s, %d GPUs) wrong %s\n", kMethods[a], kMethods[b], m.name,
                            networks[n].name, kGpus[g], after ? "after" : "before");
              }
          }
      }
  std::printf("mean error before %.1f %%, after %.1f %% over %d rows; orderings (gap > 5 %%) wrong before %d, after "
              "%d of %d\n",
              100 * error_sum[0] / rows, 100 * error_sum[1] / rows, rows, wrong[0], wrong[1], orderings);
  // Measured (2026-11-28): 9.8 % mean, no ordering of 25 wrong (docs/VALIDATION.md section 20); issue 31's aim.
  EXPECT_LE(error_sum[1] / rows, 0.10);
  EXPECT_EQ(wrong[1], 0);
}

}  // namespace
}  // namespace dtsim
