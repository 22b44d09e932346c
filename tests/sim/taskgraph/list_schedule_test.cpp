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
  t.deps.assign(deps.begin(), deps.end());
  return t;
}

Task on(Stream stream, Op op, std::int64_t bytes, std::vector<int> deps) {
  Task t;
  t.op = op;
  t.stream = stream;
  t.name = "comm";
  t.bytes = bytes;
  t.group = "data";
  t.deps.assign(deps.begin(), deps.end());
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

TEST(ListSchedule, BindingsOfASimulatedRunLeaveThePreviousIterationAndACreditStreamsOrderOut) {
  TaskGraph g;
  Program& p = g.programs.emplace_back();
  p.credit_bytes = 1;
  Task update = compute(1.0);
  update.deps = {Dep::of_previous(3)};
  p.add(update);
  p.add(compute(1.0, {0}));
  p.add(on(Stream::data, Op::allreduce, 1, {1}));
  p.add(on(Stream::data, Op::allreduce, 1, {1}));
  // The second exchange ran first (its priority); neither decides the other's start.
  const GraphSchedule s = with_bindings(g, {{{0, 1}, {1, 2}, {4, 5}, {2, 3}}});
  EXPECT_EQ(s.binding[0][0].role, -1);
  EXPECT_EQ(s.binding[0][2].task, 1);
  EXPECT_EQ(s.binding[0][3].task, 1);
  EXPECT_THROW(list_schedule(g, cost), core::InternalError);
}

TEST(ListSchedule, ALagDelaysTheStartAfterItsDependencyAndDecidesTheBinding) {
  // An all-reduce issued 0.25 s after its gradient (a launch), and a second one whose cycle is 3 s after the
  // first computation: it starts at max(end of the first all-reduce, 1 + 3).
  TaskGraph g;
  Program& p = g.programs.emplace_back();
  const int a = p.add(compute(1.0));
  Task first = on(Stream::data, Op::allreduce, 1000, {a});
  first.deps = {Dep(a, 0.25)};
  p.add(first);  // 1.25 .. 2.25
  Task second = on(Stream::data, Op::allreduce, 500, {});
  second.deps = {Dep(a, 3.0)};
  p.add(second);  // 4 .. 4.5
  const GraphSchedule s = list_schedule(g, cost);
  EXPECT_DOUBLE_EQ(s.spans[0][1].start_s, 1.25);
  EXPECT_DOUBLE_EQ(s.spans[0][2].start_s, 4.0);
  EXPECT_DOUBLE_EQ(s.spans[0][2].end_s, 4.5);
  EXPECT_EQ(s.binding[0][2].task, 0);  // the lagged computation, not the all-reduce before it on the stream
  TaskGraph bad = g;
  bad.programs[0].tasks[1].deps = {Dep(a, -1.0)};
  EXPECT_THROW(check(bad), core::InputError);
}

TEST(ListSchedule, InstancesOfARoleMeetAtEachCollective) {
  // Three instances from different start times: the all-reduce starts when the last is ready (2 + 1) and ends for
  // all at once; the computation after it follows on each. The critical path passes through the late instance.
  TaskGraph g;
  Program& p = g.programs.emplace_back();
  const int a = p.add(compute(1.0));
  const int x = p.add(on(Stream::data, Op::allreduce, 2000, {a}));
  p.add(compute(0.5, {x}));
  ScheduleOptions options;
  options.instances = {3};
  options.start_s = {0.0, 2.0, 1.0};
  const GraphSchedule s = list_schedule(g, cost, options);
  ASSERT_EQ(s.spans.size(), 3u);
  for (std::size_t run = 0; run < 3; ++run) {
    EXPECT_DOUBLE_EQ(s.spans[run][0].start_s, options.start_s[run]);
    EXPECT_DOUBLE_EQ(s.spans[run][1].start_s, 3.0);
    EXPECT_DOUBLE_EQ(s.spans[run][1].end_s, 5.0);
    EXPECT_DOUBLE_EQ(s.spans[run][2].end_s, 5.5);
    EXPECT_EQ(s.role_of_run[run], 0);
  }
  const std::vector<TaskRef> path = s.critical_path();
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(path[0].role, 1);  // instance 1's computation decided the all-reduce's start
  EXPECT_EQ(path[0].task, 0);
}

TEST(ListSchedule, MeetingsJoinOnlyTheRunsOfAGroup) {
  // Four runs of one role as the ranks of tensor 2 x data 2 (tensor groups {0, 1}, {2, 3}; data groups {0, 2},
  // {1, 3}), run 0 starting 2 s late: its tensor all-reduce (0.5 s) starts at 3 with run 1's, while runs 2 and 3
  // meet at 1; each data all-reduce (0.25 s) waits for its tensor group's end, so {0, 2} and {1, 3} both start
  // at 3.5.
  TaskGraph g;
  Program& p = g.programs.emplace_back();
  const int a = p.add(compute(1.0));
  Task tp = on(Stream::tensor, Op::allreduce, 500, {a});
  tp.group = "tensor";
  const int t = p.add(tp);
  p.add(on(Stream::data, Op::allreduce, 250, {t}));
  ScheduleOptions options;
  options.instances = {4};
  options.start_s = {2.0, 0.0, 0.0, 0.0};
  for (int run = 0; run < 4; ++run) {
    options.meetings.of.push_back({{"tensor", run / 2}, {"data", 10 + run % 2}});
    options.meetings.peer.push_back({run});
  }
  const GraphSchedule s = list_schedule(g, cost, options);
  for (std::size_t run = 0; run < 4; ++run) {
    EXPECT_DOUBLE_EQ(s.spans[run][1].start_s, run < 2 ? 3.0 : 1.0) << run;
    EXPECT_DOUBLE_EQ(s.spans[run][1].end_s, run < 2 ? 3.5 : 1.5) << run;
    EXPECT_DOUBLE_EQ(s.spans[run][2].start_s, 3.5) << run;
    EXPECT_DOUBLE_EQ(s.spans[run][2].end_s, 3.75) << run;
  }
}

TEST(ListSchedule, AnInstanceWaitingAtACollectiveSlowsItsComputationInsideIt) {
  // Instance 0 is ready for the all-reduce at 1 and computes 2 s more on its compute stream; instance 1 is ready
  // at 3. The all-reduce runs 3 .. 8 and instance 0's kernel holds its GPU from 1: at half speed from 1, its
  // computation ends at 1 + 2 x 2 = 5 (not 3, as if the collective were unknown when it was scheduled).
  TaskGraph g;
  Program& p = g.programs.emplace_back();
  const int a = p.add(compute(1.0));
  p.add(on(Stream::data, Op::allreduce, 5000, {a}));
  p.add(compute(2.0));
  ScheduleOptions options;
  options.overlap_slowdown = 2.0;
  options.instances = {2};
  options.start_s = {0.0, 2.0};
  const GraphSchedule s = list_schedule(g, cost, options);
  EXPECT_DOUBLE_EQ(s.spans[0][1].start_s, 3.0);
  EXPECT_DOUBLE_EQ(s.spans[0][1].end_s, 8.0);
  EXPECT_DOUBLE_EQ(s.spans[0][2].end_s, 5.0);
  EXPECT_DOUBLE_EQ(s.spans[1][2].end_s, 3.0 + 2.0 * 2.0);  // instance 1: inside from 3
}

/// An iteration whose step waits for the previous run's exchange (Overlap Local-SGD): backward 1 s, its
/// all-reduce 5 s on the data stream, and a 0.5 s step after backward and the previous run's all-reduce.
TaskGraph exchange_in_flight() {
  TaskGraph g;
  Program& p = g.programs.emplace_back();
  const int backward = p.add(compute(1.0));
  const int exchange = p.add(on(Stream::data, Op::allreduce, 5000, {backward}));
  Task step = compute(0.5, {backward});
  step.deps.push_back(Dep::of_previous(exchange));
  p.add(step);
  return g;
}

TEST(ListSchedule, AFirstRunMeetsItsDependenciesOnThePreviousRun) {
  const GraphSchedule s = list_schedule(exchange_in_flight(), cost);
  EXPECT_DOUBLE_EQ(s.spans[0][1].start_s, 1.0);
  EXPECT_DOUBLE_EQ(s.spans[0][1].end_s, 6.0);
  EXPECT_DOUBLE_EQ(s.spans[0][2].start_s, 1.0);  // the step does not wait for this run's all-reduce
  EXPECT_EQ(s.binding[0][2].task, 0);
}

TEST(ListSchedule, ARunStartsWhereThePreviousLeftItsStreamsAndWaitsForItsPreviousDependencies) {
  // Run 1 ends its step at 1.5 and leaves its all-reduce (1 .. 6) in flight. Run 2 starts at 1.5: backward
  // 1.5 .. 2.5, its all-reduce after the data stream's tail (6 .. 11), its step after run 1's all-reduce
  // (6 .. 6.5). The run ends with its all-reduce, whose start the tail decided.
  const TaskGraph g = exchange_in_flight();
  const GraphSchedule first = list_schedule(g, cost);
  Carried carried = carry_over(g, first, 0, {}, 1.5);
  ASSERT_TRUE(carried.stream_tail[static_cast<std::size_t>(Stream::data)]);
  EXPECT_DOUBLE_EQ(carried.stream_tail[static_cast<std::size_t>(Stream::data)]->span.end_s, 6.0);
  ASSERT_EQ(carried.communication.size(), 1u);
  EXPECT_DOUBLE_EQ(carried.communication[0].start_s, 1.5);  // what runs before the next run slows nothing in it
  EXPECT_DOUBLE_EQ(carried.communication[0].end_s, 6.0);
  carried.previous = first.spans[0];
  ScheduleOptions options;
  options.start_s = {1.5};
  options.carried = {carried};
  const GraphSchedule s = list_schedule(g, cost, options);
  EXPECT_DOUBLE_EQ(s.spans[0][0].end_s, 2.5);
  EXPECT_DOUBLE_EQ(s.spans[0][1].start_s, 6.0);
  EXPECT_DOUBLE_EQ(s.spans[0][1].end_s, 11.0);
  EXPECT_DOUBLE_EQ(s.spans[0][2].start_s, 6.0);
  EXPECT_EQ(s.binding[0][1].earlier, Earlier::stream);
  EXPECT_EQ(s.binding[0][2].earlier, Earlier::previous);
  EXPECT_EQ(s.binding[0][2].task, 1);
  const std::vector<TaskRef> path = s.critical_path();
  ASSERT_EQ(path.size(), 2u);  // run 1's all-reduce, then run 2's
  EXPECT_EQ(path[0].earlier, Earlier::stream);
  EXPECT_EQ(s.task(g, path[0]).op, Op::allreduce);
  EXPECT_DOUBLE_EQ(s.span(path[0]).start_s, 1.0);
  EXPECT_DOUBLE_EQ(s.span(path[1]).end_s, 11.0);
  // Under the overlap slowdown, backward runs at half speed inside run 1's all-reduce: 1.5 .. 3.5.
  options.overlap_slowdown = 2.0;
  EXPECT_DOUBLE_EQ(list_schedule(g, cost, options).spans[0][0].end_s, 3.5);
  // A tail and a previous run that end before the run's start decide nothing.
  options.overlap_slowdown = 1.0;
  options.start_s = {20.0};
  const GraphSchedule late = list_schedule(g, cost, options);
  EXPECT_DOUBLE_EQ(late.spans[0][1].start_s, 21.0);
  EXPECT_DOUBLE_EQ(late.spans[0][2].start_s, 21.0);
  EXPECT_EQ(late.binding[0][1].earlier, Earlier::none);
  EXPECT_EQ(late.binding[0][2].earlier, Earlier::none);
}

TEST(ListSchedule, RefusesReceivingAcrossDifferentInstanceCounts) {
  TaskGraph g;
  g.programs.resize(2);
  Task send = on(Stream::pipeline, Op::send, 1, {});
  send.peer = 1;
  const int sent = g.programs[0].add(send);
  Task recv;
  recv.op = Op::recv;
  recv.peer = 0;
  recv.match = sent;
  g.programs[1].add(recv);
  ScheduleOptions options;
  options.instances = {2, 1};
  EXPECT_THROW(list_schedule(g, cost, options), core::InputError);
  options.instances = {2, 2};
  EXPECT_EQ(list_schedule(g, cost, options).spans.size(), 4u);
}

}  // namespace
}  // namespace dtsim::taskgraph
