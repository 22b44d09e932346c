#include "sim/taskgraph/task_graph.hpp"

#include <array>

#include "sim/core/error.hpp"

namespace dtsim::taskgraph {

const char* stream_name(Stream stream) {
  static constexpr std::array<const char*, kStreams> kNames{"compute", "tensor", "data",   "gather",
                                                            "pipeline", "server", "context", "expert"};
  return kNames[static_cast<std::size_t>(stream)];
}

bool spans_group(Op op) {
  return op == Op::allreduce || op == Op::allgather || op == Op::reduce_scatter || op == Op::gtopk ||
         op == Op::push || op == Op::pull || op == Op::neighbours || op == Op::alltoall;
}

int Program::add(Task task) {
  tasks.push_back(std::move(task));
  return static_cast<int>(tasks.size()) - 1;
}

void check(const TaskGraph& graph) {
  const int roles = static_cast<int>(graph.programs.size());
  for (int r = 0; r < roles; ++r) {
    const Program& program = graph.programs[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < program.tasks.size(); ++i) {
      const Task& t = program.tasks[i];
      auto fail = [&](const std::string& problem) {
        throw core::InputError(program.role + " task " + std::to_string(i) + " (" + t.name + "): " + problem,
                               "a task graph whose dependencies point to earlier tasks and whose receives match sends");
      };
      for (const Dep& d : t.deps) {
        const int past = d.previous ? static_cast<int>(program.tasks.size()) : static_cast<int>(i);
        if (d.task < 0 || d.task >= past) fail("depends on task " + std::to_string(d.task));
        if (!(d.lag_s >= 0)) fail("a dependency with a negative lag");
      }
      if (spans_group(t.op) && t.group.empty()) fail("a collective without a group");
      if (t.op == Op::send && (t.peer < 0 || t.peer >= roles || t.peer == r)) fail("sends to no other role");
      if (t.op != Op::recv) continue;
      if (t.peer < 0 || t.peer >= roles || t.peer == r) fail("receives from no other role");
      const Program& from = graph.programs[static_cast<std::size_t>(t.peer)];
      if (t.match < 0 || t.match >= static_cast<int>(from.tasks.size()) ||
          from.tasks[static_cast<std::size_t>(t.match)].op != Op::send ||
          from.tasks[static_cast<std::size_t>(t.match)].peer != r)
        fail("matches no send of " + from.role + " to it");
    }
  }
}

std::vector<std::vector<int>> credit_jobs(const Program& program, Stream stream) {
  std::vector<std::vector<int>> jobs;
  int item = -1;
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    const Task& t = program.tasks[i];
    if (t.stream != stream) continue;
    if (jobs.empty() || t.item != item) jobs.emplace_back();
    jobs.back().push_back(static_cast<int>(i));
    item = t.item;
  }
  return jobs;
}

Program with_epilogue(const Program& program) {
  Program out = program;
  std::vector<int> copy_of(program.tasks.size(), -1);
  for (std::size_t i = 0; i < program.tasks.size(); ++i) {
    if (!program.tasks[i].carried) continue;
    Task t = program.tasks[i];
    t.carried = false;
    t.deps.clear();
    for (const Dep& d : program.tasks[i].deps)
      if (d.previous)
        t.deps.emplace_back(d.task, d.lag_s);
      else if (const int copy = copy_of[static_cast<std::size_t>(d.task)]; copy >= 0)
        t.deps.emplace_back(copy, d.lag_s);
    copy_of[i] = out.add(std::move(t));
  }
  return out;
}

Program without(const Program& program, const std::vector<char>& drop, std::vector<int>& kept) {
  Program out;
  out.role = program.role;
  out.credit_bytes = program.credit_bytes;
  kept.clear();
  std::vector<int> index(program.tasks.size(), -1);
  for (std::size_t i = 0; i < program.tasks.size(); ++i)
    if (!drop[i]) {
      index[i] = static_cast<int>(kept.size());
      kept.push_back(static_cast<int>(i));
    }
  // Dependencies in new indices; a dropped task's stand for its own (in program order, so already expanded).
  std::vector<std::vector<Dep>> deps(program.tasks.size());
  for (std::size_t i = 0; i < program.tasks.size(); ++i)
    for (const Dep& d : program.tasks[i].deps) {
      const auto j = static_cast<std::size_t>(d.task);
      if (!drop[j]) {
        Dep e = d;
        e.task = index[j];
        deps[i].push_back(e);
      } else if (!d.previous) {
        for (Dep e : deps[j]) {
          if (e.previous) continue;
          e.lag_s += d.lag_s;
          deps[i].push_back(e);
        }
      }
    }
  for (int i : kept) {
    Task t = program.tasks[static_cast<std::size_t>(i)];
    t.deps = std::move(deps[static_cast<std::size_t>(i)]);
    out.add(std::move(t));
  }
  return out;
}

}  // namespace dtsim::taskgraph
