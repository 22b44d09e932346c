// Mistakes a user makes at the command line, each refused with exit 2 and the way out (issue 27): the nearest names,
// the nearest valid counts, the platform size that fits, values quoted as they were typed, plausible units.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/shell_command.hpp"

namespace {

namespace fs = std::filesystem;
using dtsim::testing::dtsim;
using dtsim::testing::Outcome;

void expect_refused(const Outcome& o, const std::string& part) {
  EXPECT_EQ(o.code, 2) << o.output;
  EXPECT_NE(o.output.find(part), std::string::npos) << o.output;
}

TEST(Mistakes, AMisspelledModelNameSuggestsTheNearestNames) {
  expect_refused(dtsim("validate --set model.name=llama-3-70b"),
                 "unknown model 'llama-3-70b'; did you mean 'llama3_70b'? known: resnet18, ");
  expect_refused(dtsim("validate --set model.name=llama_70b"), "did you mean 'llama2_70b' or 'llama3_70b'?");
  expect_refused(dtsim("validate --set model.name=gpt3"), "did you mean 'gpt3_125m', 'gpt3_350m', ");
}

TEST(Mistakes, EveryRegistrySuggests) {
  expect_refused(dtsim("validate --set gpu.profile=H100"), "did you mean 'h100'?");
  expect_refused(dtsim("validate --set platform=v100-4x4-10gbe"), "did you mean 'v100_4x4_10gbe'?");
  expect_refused(dtsim("validate --set strategy.collective=rign"), "did you mean 'ring'?");
  expect_refused(dtsim("validate --set strategy.scheduler=WFBP"), "did you mean 'wfbp'?");
  expect_refused(dtsim("validate --set compression.compressor=top-k"), "did you mean 'topk'?");
  expect_refused(dtsim("validate --set strategy.fidelity=Analytic"), "did you mean 'analytic'?");
  expect_refused(dtsim("validate --set batch-size=32"), "did you mean 'batch_size'?");
  expect_refused(dtsim("validate --set strategy.schedular=wfbp"), "did you mean 'scheduler'?");
  // Units: the case of a unit is its meaning, so both readings are named.
  expect_refused(dtsim("validate --set platform.inter_link.bandwidth=10gbps"), "did you mean 'Gbps' or 'GBps'?");
}

TEST(Mistakes, WorkersALayoutCannotDivideGetTheNearestCountsThatItCan) {
  const std::string layout = "validate --set model.name=gpt2_small --set platform=a100_8x8_200gbib --set batch_size=8 "
                             "--set parallel.tensor=4 ";
  expect_refused(dtsim(layout + "--set workers=10"), "or workers = 8 or 12 (multiples of 4)");
  for (const char* workers : {"8", "12"}) EXPECT_EQ(dtsim(layout + "--set workers=" + workers).code, 0) << workers;
  expect_refused(dtsim(layout + "--set workers=8 --set parallel.data=3"), "data = 2, or workers = 12");
  expect_refused(dtsim(layout + "--set workers=8 --set parallel.micro_batch=3"), "micro_batch = 2 or 4");
}

TEST(Mistakes, MoreWorkersThanThePlatformHasSaysHowManyNodesItNeeds) {
  expect_refused(dtsim("validate --set workers=128"),
                 "at most 16 on this platform, or a larger one: --set platform.nodes=32 (nodes of 4 GPUs)");
  const Outcome grown = dtsim("validate --set workers=128 --set platform.nodes=32");
  EXPECT_EQ(grown.code, 0) << grown.output;
  expect_refused(dtsim("validate --set platform=star_16_10gbe --set workers=20"), "--set platform.hosts=20");
}

TEST(Mistakes, ValidateWithoutAFileChecksTheBuiltInDefault) {
  const Outcome o = dtsim("validate --set workers=8");
  EXPECT_EQ(o.code, 0) << o.output;
  EXPECT_NE(o.output.find("built-in default (scenarios/default.toml): ok (resnet50, 8 workers"), std::string::npos)
      << o.output;
  EXPECT_EQ(dtsim("validate --resolved").code, 0);
}

TEST(Mistakes, EveryValueOfAPlatformFileIsCheckedEvenWhereTheScenarioReplacesIt) {
  const fs::path dir = fs::temp_directory_path() / ("dtsim-mistakes-" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (const std::string value : {"true", "0", "nan", "\"\"", "-4"}) {
    {
      std::ofstream platform(dir / "p.toml");
      platform << "name = \"p\"\ntopology = \"two_level\"\nnodes = " << value
               << "\ngpus_per_node = 4\n[intra_link]\nbandwidth = \"100Gbps\"\nlatency = \"1us\"\n"
                  "[inter_link]\nbandwidth = \"10Gbps\"\nlatency = \"5us\"\n";
      std::ofstream scenario(dir / "s.toml");
      scenario << "platform = \"p.toml\"\nworkers = 8\nbatch_size = 32\n[model]\nname = \"resnet18\"\n";
    }
    const Outcome o = dtsim("validate " + (dir / "s.toml").string() + " --set platform.nodes=2");
    expect_refused(o, (dir / "p.toml").string() + ":3:9: 'platform.nodes'");
    EXPECT_NE(o.output.find("the scenario replaces this value, but the file is wrong"), std::string::npos) << value;
  }
  fs::remove_all(dir);
}

TEST(Mistakes, ANulInAValueDoesNotCutTheMessage) {
  const Outcome o = dtsim("validate --set 'model.name=\"res\\u0000net50\"'");
  expect_refused(o, "unknown model 'res\\0net50'; did you mean 'resnet50'? known: resnet18, ");
  expect_refused(dtsim("validate --set 'strategy.scheduler=\"wf\\tbp\"'"), "unknown strategy.scheduler 'wf\\tbp'");
}

TEST(Mistakes, ImplausibleQuantitiesAreRefusedWithTheRange) {
  expect_refused(dtsim("validate --set platform.inter_link.bandwidth=1e-300GBps"),
                 "bandwidth '1e-300GBps' is below the plausible range; a bandwidth is 1Kbps to 1000TBps");
  expect_refused(dtsim("validate --set platform.inter_link.latency=1e300s"),
                 "duration '1e300s' is above the plausible range; a duration is 0s to 3650d (ten years)");
  expect_refused(dtsim("validate --set gpu.fp32=1e-30TFLOPS"),
                 "compute rate '1e-30TFLOPS' is below the plausible range; a compute rate is 1GFLOPS to 1000PFLOPS");
  expect_refused(dtsim("validate --set gpu.memory=2000TiB"),
                 "size '2000TiB' is above the plausible range; a size is 0B to 1024TiB");
}

TEST(Mistakes, AMillionImagesPerGpuAreRefusedBeforeAnythingIsAllocated) {
  // ResNet-50's activations at a batch of 1,000,000 are about 100 TiB: the memory model refuses them at once, well
  // under a 2 GB address space (it used to grow past 2.3 GB and end in bad_alloc).
  const Outcome o = dtsim("run --set batch_size=1000000 --out /dev/null/never");
  expect_refused(o, "resnet50 at batch 1000000 needs 101.69 TiB per GPU");
  EXPECT_NE(o.output.find("batch_size = "), std::string::npos) << o.output;
}

TEST(Mistakes, ANumericsMiniBatchLargerThanTheTrainingSetIsRefusedBeforeTheTrainerAllocatesIt) {
  // adacomm.toml trains on 3,200 examples; a million-example mini-batch a worker took 10 s and about 1.9 GB before
  // it ended in bad_alloc under ulimit -v 2000000.
  const std::string file = std::string(DTSIM_SOURCE_DIR) + "/scenarios/adacomm.toml";
  const fs::path out = fs::temp_directory_path() / ("dtsim-mistakes-numerics-" + std::to_string(getpid()));
  expect_refused(dtsim("run " + file + " --set batch_size=1000000 --out " + out.string()),
                 "batch_size = 1000000 examples a worker, more than the 3200 of the whole training set: every "
                 "mini-batch would repeat its examples, and the workers' mini-batches alone would take 976.56 MiB (8 "
                 "workers x 1000000 examples x 32 features x 4 B); batch_size = 3200 or less, or a larger training "
                 "set ([numerics] examples)");
  fs::remove_all(out);
}

}  // namespace
