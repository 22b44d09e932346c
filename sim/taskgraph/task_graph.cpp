#include "sim/taskgraph/task_graph.hpp"

#include "sim/core/error.hpp"

namespace dtsim::taskgraph {

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
        if (d.task < 0 || d.task >= static_cast<int>(i)) fail("depends on task " + std::to_string(d.task));
        if (!(d.lag_s >= 0)) fail("a dependency with a negative lag");
      }
      const bool collective = t.op == Op::allreduce || t.op == Op::allgather || t.op == Op::reduce_scatter;
      if (collective && t.group.empty()) fail("a collective without a group");
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

}  // namespace dtsim::taskgraph
