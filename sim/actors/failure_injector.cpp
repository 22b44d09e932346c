#include "sim/actors/failure_injector.hpp"

#include <algorithm>
#include <utility>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

#include "sim/core/units.hpp"

namespace dtsim::actors {
namespace sg4 = simgrid::s4u;

namespace {

std::string at_time(double t) { return core::format_duration(t); }

}  // namespace

void FailureInjector::start() {
  if (failures_.empty()) return;
  std::vector<bool> crashes(hosts_.size(), false);
  for (const FailureEvent& f : failures_)
    if (f.worker >= 0) crashes[static_cast<std::size_t>(f.worker)] = true;
  std::size_t safe = 0;
  while (safe + 1 < hosts_.size() && crashes[safe]) ++safe;
  sg4::Actor::create("failures", hosts_[safe], [this] { replay(); })->daemonize();
}

void FailureInjector::take_out(int rank, const std::string& why) {
  if (std::find(out_.begin(), out_.end(), rank) != out_.end()) return;
  out_.push_back(rank);
  timeline_.out.push_back(rank);
  timeline_.failures.push_back(at_time(sg4::Engine::get_clock()) + ": " + why);
  if (!exchanger_ || !exchanger_->survives(out_)) {
    timeline_.stopped = why + "; the job cannot go on without worker " + std::to_string(rank);
    timeline_.stopped_at_s = sg4::Engine::get_clock();
    sg4::Actor::kill_all();
    sg4::this_actor::exit();
  }
  exchanger_->worker_failed(rank);
  hosts_[static_cast<std::size_t>(rank)]->turn_off();
}

void FailureInjector::replay() {
  // Link repairs interleave with the failures in time order.
  std::vector<std::pair<double, const FailureEvent*>> events;
  for (const FailureEvent& f : failures_) {
    events.emplace_back(f.at_s, &f);
    if (f.duration_s) events.emplace_back(f.at_s + *f.duration_s, &f);
  }
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [at, f] : events) {
    if (at > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(at);
    if (f->worker >= 0) {
      take_out(f->worker, "worker " + std::to_string(f->worker) + " crashed");
      continue;
    }
    sg4::Link* link = sg4::Link::by_name_or_null(f->link);
    const bool repair = f->duration_s && at > f->at_s;
    if (link) repair ? link->turn_on() : link->turn_off();
    timeline_.failures.push_back(at_time(at) + ": link " + f->link + (repair ? " back up" : " down"));
  }
}

}  // namespace dtsim::actors
