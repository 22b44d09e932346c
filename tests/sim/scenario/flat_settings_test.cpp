// A resolved scenario flattened to dotted keys, as `dtsim compare` diffs it, and less some keys, as `dtsim explain`
// changes a layout run's.
#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/scenario/flat_settings.hpp"

namespace dtsim::scenario {
namespace {

TEST(FlatSettings, DottedKeysForTablesAndIndexedKeysForArraysOfTables) {
  const auto settings = flat_settings(R"(workers = 16
[strategy]
scheduler = "wfbp"
overlap = true
[platform]
sizes = [1, 2]
[[platform.links]]
latency = "5us"
[[platform.links]]
latency = "1us"
)",
                                      "test");
  const std::map<std::string, std::string> expected{{"workers", "16"},
                                                    {"strategy.scheduler", "\"wfbp\""},
                                                    {"strategy.overlap", "true"},
                                                    {"platform.sizes", "[ 1, 2 ]"},
                                                    {"platform.links[0].latency", "\"5us\""},
                                                    {"platform.links[1].latency", "\"1us\""}};
  EXPECT_EQ(settings, expected);
}

TEST(FlatSettings, TextThatIsNotTomlIsAnInputError) {
  try {
    flat_settings("workers = = 3\n", "run/report.json");
    FAIL() << "no error";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("run/report.json:1:"), std::string::npos) << e.what();
  }
}

TEST(FlatSettings, WithoutSettingsLeavesOutExactlyTheKeysNamed) {
  const std::string text = without_settings(R"(workers = 16
[parallel]
tensor = 8
sequence_parallel = false
schedule = "1f1b"
[strategy]
scheduler = "wfbp"
)",
                                            {"parallel.sequence_parallel", "parallel.schedule", "parallel.absent", "workers"},
                                            "test");
  const std::map<std::string, std::string> expected{{"parallel.tensor", "8"}, {"strategy.scheduler", "\"wfbp\""}};
  EXPECT_EQ(flat_settings(text, "test"), expected);
}

}  // namespace
}  // namespace dtsim::scenario
