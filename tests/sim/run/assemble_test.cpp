// assemble_result over shared mark lists (Timeline::marks_of, the analytic level's classes of ranks) against the same
// marks as one list per worker: every iteration end, per-worker breakdown and worker summary the same.
#include <gtest/gtest.h>

#include <tuple>

#include "sim/run/assemble.hpp"

namespace dtsim::run {
namespace {

IterationMarks mark(double start_s, double end_s, double forward_s, double wait_s, bool dropped = false) {
  IterationMarks m;
  m.start_s = start_s;
  m.end_s = end_s;
  m.forward_s = forward_s;
  m.backward_s = 2 * forward_s;
  m.update_s = 0.25;
  m.comm_wait_s = wait_s;
  m.dropped = dropped;
  return m;
}

/// `lists` shared by the workers as `marks_of` says, and the same marks copied to each worker.
std::pair<Timeline, Timeline> shared_and_per_worker(const std::vector<std::vector<IterationMarks>>& lists,
                                                    const std::vector<int>& marks_of) {
  Timeline shared, per_worker;
  shared.marks = lists;
  shared.marks_of = marks_of;
  for (const int list : marks_of) {
    per_worker.marks.push_back(lists[static_cast<std::size_t>(list)]);
    per_worker.traffic.push_back({list, 2 * list});
  }
  shared.traffic = per_worker.traffic;
  return {shared, per_worker};
}

/// Six workers of 8 samples, two iterations.
RunInfo six_workers() {
  RunInfo info;
  info.workers = 6;
  info.batch_per_worker = 8;
  info.iterations = 2;
  return info;
}

void expect_same_result(const Timeline& shared, const Timeline& per_worker, int gradients_per_step) {
  ASSERT_EQ(shared.workers(), per_worker.workers());
  const RunResult a = assemble_result(six_workers(), shared, 1.0, gradients_per_step);
  const RunResult b = assemble_result(six_workers(), per_worker, 1.0, gradients_per_step);
  ASSERT_EQ(a.iterations.size(), b.iterations.size());
  for (std::size_t it = 0; it < a.iterations.size(); ++it) {
    EXPECT_EQ(a.iterations[it].end_s, b.iterations[it].end_s);
    ASSERT_EQ(a.iterations[it].per_worker.size(), per_worker.marks.size());
    ASSERT_EQ(b.iterations[it].per_worker.size(), per_worker.marks.size());
    const auto fields = [](const Breakdown& x) {
      return std::tuple{x.forward_s, x.backward_s, x.update_s, x.exposed_comm_s, x.idle_s};
    };
    for (std::size_t w = 0; w < per_worker.marks.size(); ++w)
      EXPECT_EQ(fields(a.iterations[it].per_worker[w]), fields(b.iterations[it].per_worker[w])) << "worker " << w;
  }
  EXPECT_EQ(a.workers, b.workers);
  EXPECT_EQ(a.traffic, b.traffic);
  EXPECT_EQ(a.mean_iteration_s, b.mean_iteration_s);
}

// Worker 0's own list, a fast class (workers 1, 3, 4) and a slow one (workers 2, 5): the slow class ends each
// iteration, the others idle until it does.
TEST(AssembleResult, SharedMarkListsGiveWhatOneListPerWorkerGives) {
  const std::vector<std::vector<IterationMarks>> lists{
      {mark(0, 1.0, 0.2, 0.05), mark(1.5, 2.5, 0.2, 0.05)},
      {mark(0, 1.0, 0.2, 0.1), mark(1.5, 2.5, 0.2, 0.1)},
      {mark(0, 1.5, 0.3, 0.2), mark(1.5, 3.0, 0.3, 0.2)}};
  const auto [shared, per_worker] = shared_and_per_worker(lists, {0, 1, 2, 1, 1, 2});
  expect_same_result(shared, per_worker, 6);
  const RunResult r = assemble_result(six_workers(), shared, 1.0, 6);
  ASSERT_EQ(r.iterations.size(), 2u);
  EXPECT_EQ(r.iterations[1].end_s, 3.0);
  EXPECT_EQ(r.iterations[0].per_worker[3].idle_s, 0.5);  // the fast class waits for the slow one
  EXPECT_EQ(r.iterations[0].per_worker[5].idle_s, 0.0);
  EXPECT_EQ(r.workers[4].waiting_s, 0.2);
}

// A dropped gradient (backup workers): the iterations end by counting accepted gradients over every worker, the
// shared lists counted once per worker that has them.
TEST(AssembleResult, SharedListsCountOncePerWorkerWhenGradientsAreDropped) {
  const std::vector<std::vector<IterationMarks>> lists{
      {mark(0, 1.0, 0.2, 0), mark(1.0, 2.0, 0.2, 0)},
      {mark(0, 1.2, 0.2, 0), mark(1.2, 2.6, 0.2, 0, true)},
      {mark(0, 1.4, 0.2, 0, true), mark(1.4, 2.2, 0.2, 0)}};
  const auto [shared, per_worker] = shared_and_per_worker(lists, {0, 1, 1, 2, 2, 2});
  expect_same_result(shared, per_worker, 3);
  const RunResult r = assemble_result(six_workers(), shared, 1.0, 3);
  // Accepted gradients end at 1.0, 1.2 x 2, 2.0, 2.2 x 3: the third ends iteration 0, the sixth iteration 1.
  ASSERT_EQ(r.iterations.size(), 2u);
  EXPECT_EQ(r.iterations[0].end_s, 1.2);
  EXPECT_EQ(r.iterations[1].end_s, 2.2);
  EXPECT_EQ(r.workers[3].dropped, 1);
}

}  // namespace
}  // namespace dtsim::run
