// Nominal predictions (nothing fitted to them) of BytePS's published comparisons with Horovod (NCCL):
// bytedance/byteps docs/performance.md ("NVLink + TCP", "PCIe + RDMA") and README "Performance" (BERT-large),
// scenarios/validation/byteps_*.toml, flow level. Each file is the Horovod run (framework "horovod"); BytePS is the
// same file with architecture "byteps" and one CPU server machine per GPU machine. The CNN rows' GPU time is the
// figures' own one-machine (8-GPU) throughput (measured_iteration_time), no ratio enters. Prints the table
// docs/VALIDATION.md section 21 shows and bounds the mean error of the ratio and the orderings.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/scenario/load.hpp"
#include "tests/sim/run/run_in_child.hpp"

namespace dtsim {
namespace {

/// One comparison: its scenario, the GPU machines (= BytePS's server machines) and the measured BytePS / Horovod
/// throughput ratio.
struct Comparison {
  const char* name;
  const char* file;
  int machines;
  double measured_ratio;
};

double iteration_s(const Comparison& c, bool byteps) {
  std::vector<std::string> overrides{"output.timeline=false"};
  if (byteps)
    overrides.insert(overrides.end(), {"strategy.architecture=byteps", "strategy.framework=none",
                                       "strategy.ps={servers=" + std::to_string(c.machines) + "}"});
  const scenario::Scenario s =
      scenario::load_scenario(std::string(DTSIM_SOURCE_DIR) + "/scenarios/validation/" + c.file, overrides);
  return testing::run_in_child(s).mean_iteration_s;  // one SimGrid engine per process
}

TEST(BytepsValidation, BytepsAgainstHorovodOnTcpRoceAndRdma) {
  // docs/performance.md: "BytePS outperforms Horovod (NCCL) by 44% for Resnet50, and 100% for VGG16" (TCP), "by 7%
  // for Resnet50, and 17% for VGG16" (PCIe + RDMA); README: BERT-large ~90 % scaling against Horovod's ~70 %.
  const Comparison comparisons[] = {
      {"VGG-16, TCP, 64 GPUs", "byteps_vgg16_tcp.toml", 8, 2.00},
      {"ResNet-50, TCP, 64 GPUs", "byteps_resnet50_tcp.toml", 8, 1.44},
      {"VGG-16, RoCE, PCIe, 64 GPUs", "byteps_vgg16_pcie.toml", 8, 1.17},
      {"ResNet-50, RoCE, PCIe, 64 GPUs", "byteps_resnet50_pcie.toml", 8, 1.07},
      {"BERT-large, RDMA, 256 GPUs", "byteps_bert_large_rdma.toml", 32, 0.90 / 0.70},
  };
  double error_sum = 0;
  int wrong = 0, orderings = 0;
  std::printf("| case | Horovod (ms) | BytePS (ms) | ratio | measured | error |\n");
  std::fflush(stdout);  // before the children fork, or they print it again
  for (const Comparison& c : comparisons) {
    const double horovod = iteration_s(c, false), byteps = iteration_s(c, true);
    const double ratio = horovod / byteps;
    error_sum += std::abs(ratio / c.measured_ratio - 1);
    std::printf("| %s | %.1f | %.1f | %.3f | %.2f | %+.1f %% |\n", c.name, 1e3 * horovod, 1e3 * byteps, ratio,
                c.measured_ratio, 100 * (ratio / c.measured_ratio - 1));
    std::fflush(stdout);
    if (std::abs(c.measured_ratio - 1) <= 0.05) continue;  // orderings only where the measured gap exceeds 5 %
    ++orderings;
    if ((ratio > 1) != (c.measured_ratio > 1)) ++wrong;
  }
  const double mean = error_sum / std::size(comparisons);
  std::printf("mean error %.1f %%; orderings (gap > 5 %%) wrong %d of %d\n", 100 * mean, wrong, orderings);
  // Measured (2026-11-29): 13.9 % mean, every ordering right (docs/VALIDATION.md section 21; 19.1 % before the CNN
  // rows took their compute from the figures' one-machine bars and BytePS's pushes went in order per connection).
  EXPECT_LE(mean, 0.14);
  EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace dtsim
