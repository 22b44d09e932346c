// Task graphs across iterations: dependencies on the previous iteration, carried tasks and their epilogue, the
// jobs of a stream with a credit, and a first iteration without its carried tasks.
#include "sim/taskgraph/task_graph.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace dtsim::taskgraph {
namespace {

Task task(std::string name, Stream stream, int item, std::vector<Dep> deps, bool carried = false) {
  Task t;
  t.name = std::move(name);
  t.stream = stream;
  t.item = item;
  t.deps = std::move(deps);
  t.carried = carried;
  return t;
}

/// ByteScheduler's shape: update 0 (carried, after the previous iteration's job 0), forward 0, backward 0, then
/// job 0 (compress, exchange).
Program priority_like() {
  Program p;
  p.credit_bytes = 100;
  p.add(task("update", Stream::compute, 0, {Dep::of_previous(4)}, true));
  p.add(task("forward", Stream::compute, 0, {0}));
  p.add(task("backward", Stream::compute, 0, {1}));
  p.add(task("compress", Stream::data, 7, {2}));
  p.add(task("exchange", Stream::data, 7, {Dep(2, 1e-6), 3}));
  return p;
}

TEST(TaskGraph, APreviousIterationDependencyMayPointAnywhereInTheProgram) {
  TaskGraph g;
  g.programs = {priority_like()};
  EXPECT_NO_THROW(check(g));
  g.programs[0].tasks[0].deps = {Dep::of_previous(5)};
  EXPECT_THROW(check(g), core::InputError);
  g.programs[0].tasks[0].deps = {Dep(4)};
  EXPECT_THROW(check(g), core::InputError);  // the same dependency in this iteration points forward
}

TEST(TaskGraph, TheEpilogueRunsTheCarriedTasksOnThisIterationsWork) {
  const Program last = with_epilogue(priority_like());
  ASSERT_EQ(last.tasks.size(), 6u);
  EXPECT_EQ(last.tasks[5].name, "update");
  EXPECT_FALSE(last.tasks[5].carried);
  ASSERT_EQ(last.tasks[5].deps.size(), 1u);
  EXPECT_EQ(last.tasks[5].deps[0].task, 4);
  EXPECT_FALSE(last.tasks[5].deps[0].previous);
}

TEST(TaskGraph, CreditJobsAreTheStreamsConsecutiveTasksOfOneItem) {
  Program p = priority_like();
  p.add(task("exchange", Stream::data, 8, {2}));
  const auto jobs = credit_jobs(p, Stream::data);
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0], (std::vector<int>{3, 4}));
  EXPECT_EQ(jobs[1], (std::vector<int>{5}));
}

TEST(TaskGraph, ADroppedTaskLeavesItsDependenciesToThoseAfterIt) {
  Program p = priority_like();
  p.tasks.insert(p.tasks.begin(), task("before", Stream::compute, 0, {}));
  for (std::size_t i = 1; i < p.tasks.size(); ++i)
    for (Dep& d : p.tasks[i].deps) ++d.task;
  p.tasks[1].deps.push_back(Dep(0, 2e-6));  // update after "before", 2 us later
  std::vector<int> kept;
  const Program first = without(p, {0, 1, 0, 0, 0, 0}, kept);
  EXPECT_EQ(kept, (std::vector<int>{0, 2, 3, 4, 5}));
  ASSERT_EQ(first.tasks.size(), 5u);
  EXPECT_EQ(first.credit_bytes, 100);
  // forward waited for the update: now for what the update waited for in this iteration.
  ASSERT_EQ(first.tasks[1].deps.size(), 1u);
  EXPECT_EQ(first.tasks[1].deps[0].task, 0);
  EXPECT_DOUBLE_EQ(first.tasks[1].deps[0].lag_s, 2e-6);
  EXPECT_EQ(first.tasks[4].deps[0].task, 2);  // exchange after backward, renumbered
  EXPECT_EQ(first.tasks[4].deps[1].task, 3);
}

}  // namespace
}  // namespace dtsim::taskgraph
