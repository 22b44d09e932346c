// Actor stack layout: guard pages while their mappings fit, and the bytes a number of actors takes.
#include "sim/actors/actor_contexts.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dtsim::actors {
namespace {

core::ProcessLimits limits_with(std::int64_t max_map_count, std::int64_t mappings_used) {
  core::ProcessLimits limits;
  limits.max_map_count = max_map_count;
  limits.mappings_used = mappings_used;
  return limits;
}

TEST(ActorContexts, GuardPagesWhileTheirMappingsFitInHalfWhatIsLeft) {
  // 65,530 mappings, 530 in use: half of the 65,000 left is 32,500, two per guard page.
  EXPECT_TRUE(guard_pages_fit(16250, limits_with(65530, 530)));
  EXPECT_FALSE(guard_pages_fit(16251, limits_with(65530, 530)));
}

TEST(ActorContexts, ArgumentsSetTheStackAndTheGuard) {
  const auto few = context_arguments(10, limits_with(65530, 500));
  ASSERT_EQ(few.size(), 2U);
  EXPECT_EQ(few[0], "--cfg=contexts/stack-size:" + std::to_string(kActorStackBytes / 1024));
  EXPECT_EQ(few[1], "--cfg=contexts/guard-size:1");
  // 16,384 workers at two actors each: guard pages would need 65,536 mappings.
  EXPECT_EQ(context_arguments(32768, limits_with(65530, 500))[1], "--cfg=contexts/guard-size:0");
}

TEST(ActorContexts, BytesPerActorAreTheStackAndItsObjects) {
  EXPECT_EQ(actor_bytes(0), 0);
  EXPECT_EQ(actor_bytes(1000), 1000 * (kActorStackBytes + kActorObjectBytes));
}

}  // namespace
}  // namespace dtsim::actors
