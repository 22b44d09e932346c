#pragma once
/// The Pareto front of points that minimise two quantities (time to train and cost).
#include <utility>
#include <vector>

namespace dtsim::plan {

/// Indices of the points no other point dominates (as good in both, better in one), by ascending first value;
/// of equal points the first is kept.
std::vector<int> pareto_front(const std::vector<std::pair<double, double>>& points);

/// True when `a` is at least as good as `b` in every value and better in one.
bool dominates(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace dtsim::plan
