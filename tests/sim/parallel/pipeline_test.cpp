// Pipeline schedules: the passes of each stage in order.
#include "sim/parallel/pipeline_schedule.hpp"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "sim/core/error.hpp"

namespace dtsim::parallel {
namespace {

std::string text(const std::vector<Pass>& passes) {
  std::string s;
  for (const Pass& p : passes)
    s += (s.empty() ? "" : " ") + std::string(p.forward ? "F" : "B") + std::to_string(p.micro_batch) +
         (p.chunk > 0 ? "." + std::to_string(p.chunk) : "");
  return s;
}

TEST(PipelineSchedule, OneFOneBWarmsUpThenAlternates) {
  EXPECT_EQ(text(one_f_one_b(0, 4, 6, 1)), "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5");
  EXPECT_EQ(text(one_f_one_b(3, 4, 6, 1)), "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5");
  EXPECT_EQ(text(one_f_one_b(0, 4, 2, 1)), "F0 F1 B0 B1");  // fewer micro-batches than stages
}

TEST(PipelineSchedule, GPipeRunsEveryForwardFirst) { EXPECT_EQ(text(gpipe(1, 4, 3, 1)), "F0 F1 F2 B2 B1 B0"); }

TEST(PipelineSchedule, InterleavedVisitsChunksInGroupsOfStages) {
  // Megatron-LM's order for 2 stages, 2 chunks, 4 micro-batches on stage 0: warm-up (2-0-1)*2 + (2-1)*2 = 4.
  EXPECT_EQ(text(interleaved_1f1b(0, 2, 4, 2)), "F0 F1 F0.1 F1.1 F2 B0.1 F3 B1.1 F2.1 B0 F3.1 B1 B2.1 B3.1 B2 B3");
}

TEST(PipelineSchedule, EveryPassOnceForwardBeforeBackward) {
  for (const std::string& name : pipeline_schedule_names())
    for (int stage = 0; stage < 4; ++stage) {
      const int chunks = name == "interleaved" ? 3 : 1;
      const std::vector<Pass> passes = pipeline_schedule(name)(stage, 4, 8, chunks);
      std::set<std::tuple<bool, int, int>> seen;
      for (const Pass& p : passes) {
        EXPECT_TRUE(seen.insert({p.forward, p.micro_batch, p.chunk}).second) << name;
        if (!p.forward) {
          EXPECT_TRUE(seen.count({true, p.micro_batch, p.chunk})) << name;
        }
      }
      EXPECT_EQ(seen.size(), static_cast<std::size_t>(2 * 8 * chunks)) << name;
    }
}

TEST(PipelineSchedule, RefusalsSayWhy) {
  EXPECT_EQ(pipeline_schedule_refusal("1f1b", 4, 8, 1), "");
  EXPECT_NE(pipeline_schedule_refusal("1f1b", 4, 8, 2), "");
  EXPECT_NE(pipeline_schedule_refusal("interleaved", 4, 6, 2), "");  // 6 micro-batches on 4 stages
  EXPECT_NE(pipeline_schedule_refusal("interleaved", 4, 8, 1), "");
  EXPECT_EQ(pipeline_schedule_refusal("interleaved", 4, 8, 2), "");
  EXPECT_THROW(pipeline_schedule("zb"), core::InputError);
}

}  // namespace
}  // namespace dtsim::parallel
