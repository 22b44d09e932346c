#include "sim/collectives/bus_bandwidth.hpp"

#include "sim/core/error.hpp"

namespace dtsim::collectives {

std::vector<std::string> operation_names() {
  return {"allreduce", "allreduce_in_network", "reduce_scatter", "allgather", "alltoall", "broadcast", "reduce", "sendrecv"};
}

Operation parse_operation(std::string_view name) {
  const std::vector<std::string> names = operation_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<Operation>(i);
  throw core::unknown_name("collective operation", name, names);
}

double algorithm_bandwidth_Bps(double bytes, double seconds) {
  DTSIM_CHECK(seconds > 0, "a bandwidth needs a positive time");
  return bytes / seconds;
}

double bus_bandwidth_factor(Operation op, int ranks) {
  DTSIM_CHECK(ranks >= 1, "a collective needs at least one rank");
  const double n = ranks;
  switch (op) {
    case Operation::allreduce:
      return 2.0 * (n - 1) / n;
    case Operation::allreduce_in_network:
      return (n - 1) / (n + 1);
    case Operation::reduce_scatter:
    case Operation::allgather:
    case Operation::alltoall:
      return (n - 1) / n;
    case Operation::broadcast:
    case Operation::reduce:
    case Operation::sendrecv:
      return 1.0;
  }
  DTSIM_CHECK(false, "unknown collective operation");
  return 0.0;
}

double bus_bandwidth_Bps(Operation op, int ranks, double bytes, double seconds) {
  return algorithm_bandwidth_Bps(bytes, seconds) * bus_bandwidth_factor(op, ranks);
}

}  // namespace dtsim::collectives
