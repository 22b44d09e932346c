#include "sim/actors/graph_walker.hpp"

#include <gtest/gtest.h>

#include <simgrid/s4u/Engine.hpp>

#include "sim/actors/engine.hpp"
#include "sim/platform/simgrid_platform.hpp"
#include "tests/sim/star.hpp"

namespace dtsim::actors {
namespace {

namespace sg4 = simgrid::s4u;
using taskgraph::Dep;
using taskgraph::Op;
using taskgraph::Stream;
using taskgraph::Task;

Task compute(double duration_s, std::vector<Dep> deps = {}, const char* category = "forward") {
  Task t;
  t.category = category;
  t.duration_s = duration_s;
  t.deps = std::move(deps);
  return t;
}

/// A communication task of the data stream that the test client runs as `duration_s` of waiting.
Task exchange(double duration_s, std::vector<Dep> deps, int item = 0) {
  Task t = compute(duration_s, std::move(deps), "comm");
  t.op = Op::allreduce;
  t.stream = Stream::data;
  t.group = "data";
  t.item = item;
  return t;
}

/// Runs every rank's walk `runs` times; communication takes its task's duration.
class SleepingClient final : public WalkClient {
 public:
  explicit SleepingClient(int runs) : runs_(runs) {}
  int next(int /*rank*/, int it) override { return it < runs_ ? 0 : kStop; }
  void communicate(int /*rank*/, int /*it*/, int /*index*/, const Task& t) override {
    sg4::this_actor::sleep_for(t.duration_s);
  }
  void ended(int rank, int it, Stream /*stream*/, const Ran& ran) override {
    if (rank == 0) ran_.push_back({it, ran});
  }
  void drained(int rank, double waited_s) override {
    if (rank == 0) drained_s_ = waited_s;
  }
  std::vector<std::pair<int, Ran>> ran_;  ///< rank 0's units: (run, unit)
  double drained_s_ = -1;

 private:
  int runs_;
};

/// Walks `program` on `ranks` ranks of a star, as often as `client` says; rank 0's spans of its last run.
std::vector<taskgraph::Span> walk(const taskgraph::Program& program, int ranks, SleepingClient& client,
                                  WalkOptions options) {
  sg4::Engine engine = make_engine(16);
  const std::vector<sg4::Host*> hosts = platform::build_simgrid_platform(testing::star(ranks), {});
  const std::vector<Walk> walks = {Walk(program)};
  GraphWalker walker(walks, std::vector<std::vector<int>>(static_cast<std::size_t>(ranks), {0}), client,
                     std::move(options));
  walker.start(hosts);
  engine.run();
  return walker.take_last_spans(0);
}

// Each test case runs in its own process (gtest_discover_tests): SimGrid allows one engine per process.

// A (1 s), then its exchange X (2 s) after a 0.5 s lag; B (1 s) waits for the previous run's X (Overlap Local-SGD).
// Run 0: A [0, 1], B [1, 2] (no previous run), X [1.5, 3.5]. Run 1: A [2, 3], B waits for run 0's X until 3.5:
// [3.5, 4.5]; X after run 0's on its stream and A + 0.5: [3.5, 5.5], left in flight: the lead waits 1 s for it.
TEST(GraphWalker, LeavesAnExchangeInFlightAcrossRunsAndDrainsItAtTheEnd) {
  taskgraph::Program p;
  const int a = p.add(compute(1));
  const int x = p.add(exchange(2, {Dep(a, 0.5)}));
  p.add(compute(1, {Dep(a), Dep::of_previous(x)}));
  SleepingClient client(2);
  WalkOptions options;
  options.spans = {1, 0};
  const std::vector<taskgraph::Span> spans = walk(p, 2, client, options);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_DOUBLE_EQ(spans[0].start_s, 2);
  EXPECT_DOUBLE_EQ(spans[0].end_s, 3);
  EXPECT_DOUBLE_EQ(spans[1].start_s, 3.5);
  EXPECT_DOUBLE_EQ(spans[1].end_s, 5.5);
  EXPECT_DOUBLE_EQ(spans[2].start_s, 3.5);
  EXPECT_DOUBLE_EQ(spans[2].end_s, 4.5);
  EXPECT_DOUBLE_EQ(client.drained_s_, 1.0);
  // Run 1's B waited 0.5 s for run 0's exchange.
  bool found = false;
  for (const auto& [it, ran] : client.ran_)
    if (it == 1 && ran.first == 2) {
      found = true;
      EXPECT_DOUBLE_EQ(ran.waited_s, 0.5);
    }
  EXPECT_TRUE(found);
}

// Three backward computations (1 + 2 + 3 s) that nothing separates run as one 6 s phase on a rank that merges;
// task by task on one that keeps spans.
TEST(GraphWalker, MergesTheComputationsThatNothingSeparates) {
  taskgraph::Program p;
  int previous = p.add(compute(1, {}, "backward"));
  previous = p.add(compute(2, {Dep(previous)}, "backward"));
  p.add(compute(3, {Dep(previous)}, "backward"));
  SleepingClient merged(1);
  WalkOptions options;
  options.merge = {1};
  walk(p, 1, merged, options);
  ASSERT_EQ(merged.ran_.size(), 1u);
  EXPECT_EQ(merged.ran_[0].second.first, 0);
  EXPECT_EQ(merged.ran_[0].second.last, 2);
  EXPECT_DOUBLE_EQ(merged.ran_[0].second.took_s, 6);
  EXPECT_DOUBLE_EQ(merged.ran_[0].second.end_s, 6);
}

TEST(GraphWalker, RunsTheComputationsOneByOneWhereItKeepsSpans) {
  taskgraph::Program p;
  int previous = p.add(compute(1, {}, "backward"));
  previous = p.add(compute(2, {Dep(previous)}, "backward"));
  p.add(compute(3, {Dep(previous)}, "backward"));
  SleepingClient client(1);
  WalkOptions options;
  options.spans = {1};
  const std::vector<taskgraph::Span> spans = walk(p, 1, client, options);
  ASSERT_EQ(client.ran_.size(), 3u);
  EXPECT_DOUBLE_EQ(spans[1].start_s, 1);
  EXPECT_DOUBLE_EQ(spans[1].end_s, 3);
  EXPECT_DOUBLE_EQ(spans[2].end_s, 6);
}

// ByteScheduler's credit on two ranks: three 1 s jobs ready at 1 s, each holding the whole credit. The first
// ready starts at once; the others wait and start by priority, lowest first: item 2 at 2 s, item 1 at 3 s.
TEST(GraphWalker, CreditStartsQueuedJobsByPriority) {
  taskgraph::Program p;
  p.credit_bytes = 10;
  const int f = p.add(compute(1));
  for (int item = 0; item < 3; ++item) {
    Task x = exchange(1, {Dep(f)}, item);
    x.priority = 2 - item;
    x.credit_bytes = 10;
    p.add(std::move(x));
  }
  SleepingClient client(1);
  WalkOptions options;
  options.spans = {1, 0};
  const std::vector<taskgraph::Span> spans = walk(p, 2, client, options);
  EXPECT_DOUBLE_EQ(spans[1].start_s, 1);
  EXPECT_DOUBLE_EQ(spans[3].start_s, 2);
  EXPECT_DOUBLE_EQ(spans[2].start_s, 3);
  EXPECT_DOUBLE_EQ(spans[2].end_s, 4);
  // Nothing of the lead stream waited for the jobs: it waits for them after its last run.
  EXPECT_DOUBLE_EQ(client.drained_s_, 3);
}

}  // namespace
}  // namespace dtsim::actors
