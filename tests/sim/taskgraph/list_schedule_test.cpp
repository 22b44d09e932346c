// The analytic executor of task graphs: streams serialise, different streams overlap, a receive ends with its
// send, a dependency cycle is refused, and the critical path follows the binding tasks.
#include "sim/taskgraph/list_schedule.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace dtsim::taskgraph {
namespace {

Task compute(double s, std::vector<int> deps = {}) {
  Task t;
  t.name = "c";
  t.category = "forward";
  t.duration_s = s;
  t.deps = std::move(deps);
  return t;
}

Task on(Stream stream, Op op, std::int64_t bytes, std::vector<int> deps) {
  Task t;
  t.op = op;
  t.stream = stream;
  t.name = "comm";
  t.bytes = bytes;
  t.group = "data";
  t.deps = std::move(deps);
  return t;
}

double cost(int, const Task& t) { return t.op == Op::compute ? t.duration_s : static_cast<double>(t.bytes) * 1e-3; }

TEST(ListSchedule, OneStreamRunsInProgramOrderAndStreamsOverlap) {
  TaskGraph g;
  Program& p = g.programs.emplace_back();
  p.role = "stage 0";
  const int a = p.add(compute(1.0));
  p.add(on(Stream::data, Op::allreduce, 5000, {a}));  // 5 s from t = 1 on the data stream
  p.add(compute(2.0));                                // runs on after a: 1 .. 3
  const int d = p.add(compute(0.5, {1}));             // waits for the all-reduce: 6 .. 6.5
  const GraphSchedule s = list_schedule(g, cost);
  EXPECT_DOUBLE_EQ(s.spans[0][1].start_s, 1.0);
  EXPECT_DOUBLE_EQ(s.spans[0][1].end_s, 6.0);
  EXPECT_DOUBLE_EQ(s.spans[0][2].start_s, 1.0);
  EXPECT_DOUBLE_EQ(s.spans[0][2].end_s, 3.0);
  EXPECT_DOUBLE_EQ(s.spans[0][static_cast<std::size_t>(d)].start_s, 6.0);
  EXPECT_DOUBLE_EQ(s.makespan_s(), 6.5);
  const std::vector<TaskRef> path = s.critical_path();
  ASSERT_EQ(path.size(), 3u);  // compute a, the all-reduce, compute d
  EXPECT_EQ(path[0].task, 0);
  EXPECT_EQ(path[1].task, 1);
  EXPECT_EQ(path[2].task, 3);
}

TEST(ListSchedule, AReceiveEndsWhenItsSendEnds) {
  TaskGraph g;
  g.programs.resize(2);
  Program& sender = g.programs[0];
  const int work = sender.add(compute(2.0));
  Task send = on(Stream::pipeline, Op::send, 1000, {work});  // 1 s
  send.peer = 1;
  const int sent = sender.add(send);
  Task recv;
  recv.op = Op::recv;
  recv.peer = 0;
  recv.match = sent;
  recv.name = "recv";
  g.programs[1].add(compute(0.5));
  const int r = g.programs[1].add(recv);
  g.programs[1].add(compute(1.0, {r}));
  const GraphSchedule s = list_schedule(g, cost);
  EXPECT_DOUBLE_EQ(s.spans[1][1].start_s, 0.5);  // posted after the first compute
  EXPECT_DOUBLE_EQ(s.spans[1][1].end_s, 3.0);    // the send ends at 2 + 1
  EXPECT_DOUBLE_EQ(s.spans[1][2].end_s, 4.0);
  const std::vector<TaskRef> path = s.critical_path();
  ASSERT_EQ(path.size(), 4u);
  EXPECT_EQ(path[0].role, 0);
  EXPECT_EQ(path[3].role, 1);
}

TEST(ListSchedule, ComputationOverlappingCommunicationSlowsByTheFactor) {
  // A 5 s all-reduce from t = 1 beside 2 s of computation: at half speed while it runs, the computation that
  // starts at 1 ends at 1 + 2 x 2 = 5; the computation waiting for the all-reduce (exposed) runs at full speed.
  TaskGraph g;
  Program& p = g.programs.emplace_back();
  const int a = p.add(compute(1.0));
  p.add(on(Stream::data, Op::allreduce, 5000, {a}));
  p.add(compute(2.0));
  p.add(compute(0.5, {1}));
  const GraphSchedule s = list_schedule(g, cost, 2.0);
  EXPECT_DOUBLE_EQ(s.spans[0][2].end_s, 5.0);
  EXPECT_DOUBLE_EQ(s.spans[0][3].start_s, 6.0);
  EXPECT_DOUBLE_EQ(s.spans[0][3].end_s, 6.5);
  // Partly inside: 4 s of computation from t = 1, half speed until 6 (2.5 s of work), then 1.5 s at full speed.
  g.programs[0].tasks[2].duration_s = 4.0;
  const GraphSchedule t = list_schedule(g, cost, 2.0);
  EXPECT_DOUBLE_EQ(t.spans[0][2].end_s, 7.5);
}

TEST(ListSchedule, RefusesACycleThroughReceives) {
  // Each role receives before it sends: neither send can be issued.
  TaskGraph g;
  for (int r = 0; r < 2; ++r) {
    Program& p = g.programs.emplace_back();
    Task recv;
    recv.op = Op::recv;
    recv.peer = 1 - r;
    recv.match = 1;
    recv.name = "recv";
    p.add(recv);
    Task send = on(Stream::compute, Op::send, 1, {0});
    send.peer = 1 - r;
    p.add(send);
  }
  EXPECT_THROW(list_schedule(g, cost), core::InputError);
}

TEST(ListSchedule, RefusesForwardDependenciesAndUnmatchedReceives) {
  TaskGraph g;
  g.programs.emplace_back().add(compute(1.0, {0}));
  EXPECT_THROW(check(g), core::InputError);
  TaskGraph h;
  h.programs.emplace_back();
  Task recv;
  recv.op = Op::recv;
  recv.peer = 1;
  recv.match = 0;
  h.programs.emplace_back().add(compute(1.0));
  h.programs[0].add(recv);
  EXPECT_THROW(check(h), core::InputError);  // task 0 of role 1 is no send
}

}  // namespace
}  // namespace dtsim::taskgraph
