#pragma once
/// A condition actors wait on until a predicate holds, without a mutex: SimGrid actors run one at a time, so
/// checking the predicate and starting to wait cannot interleave with a notify. An actor killed while it
/// waits (its host crashed) leaves nothing locked, unlike a mutex held across a condition variable.
#include <utility>
#include <vector>

#include <simgrid/s4u/Semaphore.hpp>

namespace dtsim::actors {

class Condition {
 public:
  /// Blocks the calling actor until `holds()` is true.
  template <class Predicate>
  void wait(Predicate holds) {
    while (!holds()) {
      simgrid::s4u::SemaphorePtr wake = simgrid::s4u::Semaphore::create(0);
      waiting_.push_back(wake);
      wake->acquire();
    }
  }
  /// Wakes every waiting actor to check its predicate again.
  void notify_all() {
    std::vector<simgrid::s4u::SemaphorePtr> waking = std::move(waiting_);
    waiting_.clear();
    for (const auto& wake : waking) wake->release();
  }

 private:
  std::vector<simgrid::s4u::SemaphorePtr> waiting_;
};

}  // namespace dtsim::actors
