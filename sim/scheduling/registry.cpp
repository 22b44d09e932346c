#include <functional>

#include "sim/core/error.hpp"
#include "sim/scheduling/no_overlap.hpp"
#include "sim/scheduling/scheduler.hpp"
#include "sim/scheduling/wfbp.hpp"

namespace dtsim::scheduling {
namespace {

struct Entry {
  std::string name;
  std::string description;
  std::function<std::unique_ptr<Scheduler>()> make;
};

const std::vector<Entry>& registry() {
  static const std::vector<Entry> table{
      {"none", "one all-reduce of all gradients after backward (no overlap)",
       [] { return std::make_unique<NoOverlap>(); }},
      {"wfbp", "wait-free backpropagation: one message per tensor as soon as it is ready, FIFO",
       [] { return std::make_unique<Wfbp>(); }},
  };
  return table;
}

const Entry& find(std::string_view name) {
  for (const Entry& e : registry())
    if (e.name == name) return e;
  throw core::unknown_name("scheduler", name, scheduler_names());
}

}  // namespace

std::vector<std::string> scheduler_names() {
  std::vector<std::string> names;
  for (const Entry& e : registry()) names.push_back(e.name);
  return names;
}

std::string scheduler_description(std::string_view name) { return find(name).description; }

std::unique_ptr<Scheduler> make_scheduler(std::string_view name) { return find(name).make(); }

}  // namespace dtsim::scheduling
