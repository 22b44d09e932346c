#include "sim/plan/pareto.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace dtsim::plan {

std::vector<int> pareto_front(const std::vector<std::pair<double, double>>& points) {
  std::vector<int> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return points[a] < points[b]; });
  std::vector<int> front;
  double best_second = std::numeric_limits<double>::infinity();
  for (int i : order)  // ascending first value: a point is on the front iff its second beats all before it
    if (points[i].second < best_second) {
      front.push_back(i);
      best_second = points[i].second;
    }
  return front;
}

bool dominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool better = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
    better = better || a[i] < b[i];
  }
  return better;
}

}  // namespace dtsim::plan
