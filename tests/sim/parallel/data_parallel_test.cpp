// The data-parallel iteration as a task graph: its tasks and dependencies, and its schedule against Shi et al.'s
// WFBP recurrence with a launch cost, a fusion cycle and compression, worked out by hand.
#include "sim/parallel/data_parallel.hpp"

#include <gtest/gtest.h>

#include "sim/taskgraph/list_schedule.hpp"

namespace dtsim::parallel {
namespace {

using taskgraph::Op;
using taskgraph::Stream;

/// Three layers (forward 1, 2, 3 ms; backward 2, 4, 6 ms; step 0.5 ms in all); bucket 0 ready after layer 2's
/// backward, compressed 0.1 ms before and decompressed 0.2 ms after its exchange; bucket 1 ready after layer 0's
/// and not before 11 ms after backward starts.
scheduling::IterationPlan plan() {
  scheduling::IterationPlan p;
  p.layers = {{"a", 1e-3, 2e-3, 0.1e-3}, {"b", 2e-3, 4e-3, 0.2e-3}, {"c", 3e-3, 6e-3, 0.2e-3}};
  p.buckets = {{{2}, 3000000, 2, 0}, {{0, 1}, 1000000, 0, 11e-3}};
  p.work = {{0.1e-3, 0.2e-3, {{scheduling::Exchange::Kind::allreduce, 3000000, 0}}},
            {0, 0, {{scheduling::Exchange::Kind::allreduce, 1000000, 0}}}};
  return p;
}

TEST(DataParallelIteration, TasksStreamsAndLags) {
  const taskgraph::TaskGraph g = data_parallel_iteration(plan(), true, 5e-6);
  ASSERT_EQ(g.programs.size(), 1u);
  const auto& t = g.programs[0].tasks;
  // F a, F b, F c, B c, compress 0, exchange 0, decompress 0, B b, B a, exchange 1, update
  ASSERT_EQ(t.size(), 11u);
  EXPECT_EQ(t[4].name, "compress bucket 0");
  EXPECT_EQ(t[4].stream, Stream::data);
  EXPECT_EQ(t[5].op, Op::allreduce);
  EXPECT_EQ(t[5].bytes, 3000000);
  EXPECT_EQ(t[5].item, 0);
  ASSERT_EQ(t[5].deps.size(), 2u);  // the gradient plus the launch, then the compression
  EXPECT_EQ(t[5].deps[0].task, 3);
  EXPECT_DOUBLE_EQ(t[5].deps[0].lag_s, 5e-6);
  EXPECT_EQ(t[5].deps[1].task, 4);
  ASSERT_EQ(t[9].deps.size(), 2u);  // the gradient plus the launch, and the cycle after the last forward
  EXPECT_EQ(t[9].deps[1].task, 2);
  EXPECT_DOUBLE_EQ(t[9].deps[1].lag_s, 11e-3 + 5e-6);
  EXPECT_EQ(t[10].name, "update");
  EXPECT_EQ(t[10].deps.back().task, 9);
  // Overlap Local-SGD: the step waits for the previous exchanging run's last data task, not this one's.
  const taskgraph::TaskGraph overlap = data_parallel_iteration(plan(), true, 5e-6, true);
  EXPECT_EQ(overlap.programs[0].tasks[10].deps.back().task, 9);
  EXPECT_TRUE(overlap.programs[0].tasks[10].deps.back().previous);
  EXPECT_FALSE(t[10].deps.back().previous);
  // A local step has no data stream.
  const taskgraph::TaskGraph local = data_parallel_iteration(plan(), false, 5e-6);
  EXPECT_EQ(local.programs[0].tasks.size(), 7u);
  EXPECT_EQ(data_parallel_lane(t[4]), std::string("compress"));
  EXPECT_EQ(data_parallel_lane(t[5]), std::string("comm"));
  EXPECT_EQ(data_parallel_lane(t[3]), std::string("compute"));
}

TEST(DataParallelIteration, ScheduleFollowsTheWfbpRecurrence) {
  // Exchanges cost 1 ms per MB. Forward ends at 6 ms; B c 6..12; compress 12..12.1; exchange 0 starts at
  // max(12.1, 12 + 0.005) = 12.1, ends 15.1; decompress 15.1..15.3. B b 12..16, B a 16..18; exchange 1: issued at
  // max(18, 6 + 11) = 18, starts at max(15.3, 18.005) = 18.005, ends 19.005; the step 19.005..19.505.
  const taskgraph::TaskGraph g = data_parallel_iteration(plan(), true, 5e-6);
  const auto cost = [](int, const taskgraph::Task& t) {
    return t.op == Op::compute ? t.duration_s : static_cast<double>(t.bytes) * 1e-9;
  };
  const taskgraph::GraphSchedule s = taskgraph::list_schedule(g, cost);
  const auto& span = s.spans[0];
  EXPECT_NEAR(span[5].start_s, 12.1e-3, 1e-15);
  EXPECT_NEAR(span[5].end_s, 15.1e-3, 1e-15);
  EXPECT_NEAR(span[6].end_s, 15.3e-3, 1e-15);
  EXPECT_NEAR(span[9].start_s, 18.005e-3, 1e-15);
  EXPECT_NEAR(span[10].start_s, 19.005e-3, 1e-15);
  EXPECT_NEAR(s.makespan_s(), 19.505e-3, 1e-15);
}

TEST(DataParallelIteration, PriorityJobsAndCarriedUpdates) {
  scheduling::IterationPlan p = plan();
  p.buckets[1].not_before_s = 0;
  p.credit_bytes = 2000000;
  const taskgraph::TaskGraph g = data_parallel_iteration(p, true, 5e-6);
  const auto& prog = g.programs[0];
  EXPECT_EQ(prog.credit_bytes, 2000000);
  const auto& t = prog.tasks;
  // U a, F a, U b, F b, U c, F c, B c, compress 0, exchange 0, decompress 0, B b, B a, exchange 1: no step.
  ASSERT_EQ(t.size(), 13u);
  EXPECT_EQ(t[0].name, "update a");
  EXPECT_TRUE(t[0].carried);
  EXPECT_EQ(t[1].name, "forward a");
  EXPECT_FALSE(t[1].carried);
  // Layer a's update applies the previous iteration's bucket 1; layer c's its bucket 0 (after decompression).
  ASSERT_EQ(t[0].deps.size(), 1u);
  EXPECT_TRUE(t[0].deps[0].previous);
  EXPECT_EQ(t[0].deps[0].task, 12);
  EXPECT_EQ(t[2].deps.size(), 1u);  // layer b has no bucket of its own: only the stream before it
  EXPECT_EQ(t[4].deps.back().task, 9);
  EXPECT_TRUE(t[4].deps.back().previous);
  // Each bucket is a job with its ready layer's priority, charging its tensor bytes whatever goes on the wire.
  const auto jobs = taskgraph::credit_jobs(prog, Stream::data);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0], (std::vector<int>{7, 8, 9}));
  for (int i : jobs[0]) {
    EXPECT_EQ(t[static_cast<std::size_t>(i)].priority, 2);
    EXPECT_EQ(t[static_cast<std::size_t>(i)].credit_bytes, 3000000);
  }
  EXPECT_EQ(t[12].priority, 0);
  EXPECT_EQ(t[12].credit_bytes, 1000000);
  EXPECT_NO_THROW(taskgraph::check(g));
}

}  // namespace
}  // namespace dtsim::parallel
