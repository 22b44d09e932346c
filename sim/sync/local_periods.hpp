#pragma once
/// Periods of the local-SGD family: after `first` iterations, every `period`-th iteration averages.
#include <algorithm>

namespace dtsim::sync {

/// Whether iteration `iteration` (from 0) ends a period of `period` iterations counted from iteration `first`.
inline bool ends_period(int iteration, int first, int period) {
  return iteration >= first && (iteration - first + 1) % period == 0;
}

/// The fewest iterations >= `iterations` that end on a whole period counted from `first`, at least one period.
inline int whole_periods(int iterations, int first, int period) {
  return first + std::max(1, (iterations - first + period - 1) / period) * period;
}

}  // namespace dtsim::sync
