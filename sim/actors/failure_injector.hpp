#pragma once
/// Failures on SimGrid ([[failures]]): worker crashes and link failures at their times, for both clients of the
/// graph walker (data parallelism: simgrid_run.cpp; parallel layouts: graph_run.cpp).
#include <optional>
#include <string>
#include <vector>

#include <simgrid/s4u/Host.hpp>

#include "sim/actors/exchanger.hpp"
#include "sim/results/timeline.hpp"

namespace dtsim::actors {

/// A failure the executor injects: worker `worker` crashes (its host goes off), or directed link `link` goes
/// down, for `duration_s` or for good.
struct FailureEvent {
  double at_s = 0;
  int worker = -1;
  std::string link;
  std::optional<double> duration_s;
};

/// Injects the failures and takes workers out; stops every actor when the job cannot go on without them (the
/// exchanger says when; without one, never: a layout's groups need every rank). Records each failure, the
/// workers out and why the job stopped in the timeline.
class FailureInjector {
 public:
  FailureInjector(const std::vector<FailureEvent>& failures, const std::vector<simgrid::s4u::Host*>& hosts,
                  run::Timeline& timeline)
      : failures_(failures), hosts_(hosts), timeline_(timeline) {}

  void set_exchanger(Exchanger* exchanger) { exchanger_ = exchanger; }

  /// A daemon on a host that never crashes replays the failures at their times.
  void start();

  /// Worker `rank` is out for `why`: stops the job (does not return) unless the exchanger survives it.
  void take_out(int rank, const std::string& why);

 private:
  void replay();

  const std::vector<FailureEvent>& failures_;
  const std::vector<simgrid::s4u::Host*>& hosts_;
  run::Timeline& timeline_;
  Exchanger* exchanger_ = nullptr;
  std::vector<int> out_;
};

}  // namespace dtsim::actors
