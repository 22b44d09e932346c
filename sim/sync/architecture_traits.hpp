#pragma once
/// The architectures of data-parallel training (survey seed 001, section 4) as the loader, the schemes and the
/// planners see them: where the workers' updates meet, and which option table and defaults each takes. One row
/// per architecture in architecture_traits.cpp; their run-time behaviour (exchangers, traffic, buffers, numerics'
/// meeting) is sim/run/architectures, one file each, registered under the same names. Nothing else compares
/// architecture names.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::sync {

/// Where the workers' updates meet.
enum class Meets {
  kCollective,  ///< in collectives among all workers, or an iteration's participants (all-reduce)
  kServers,     ///< at parameter servers, one push and pull per worker
  kNeighbours,  ///< with graph neighbours only, no global model (gossip)
};

/// One architecture.
struct ArchitectureTraits {
  std::string_view name;           ///< as written in `strategy.architecture`
  Meets meets = Meets::kCollective;
  std::string_view options;        ///< its option table [strategy.<options>], or "" for none
  /// Servers: defaults that differ from [strategy.ps]'s key defaults (BytePS's global.cc: BYTEPS_PARTITION_BYTES =
  /// 4096000, and summation per node first; its BYTEPS_SCHEDULING_CREDIT is 0, no credit); 0 / false: the key's
  /// default.
  std::int64_t partition_bytes = 0;
  bool per_node_first = false;
  /// Servers: summation throughput in bytes of input per second; 0: the key's default. BytePS sums on CPUs at
  /// their memory bandwidth over the three bytes each summed byte moves (read it, read and write the sum): a
  /// Xeon E5-2698 v4 socket's 76.8 GB/s (Intel ARK) / 3.
  double summation_Bps = 0;
};

/// Every architecture, in documentation order.
std::span<const ArchitectureTraits> architecture_rows();
/// The architecture named `name`; a name the loader did not check is a bug (DTSIM_CHECK).
const ArchitectureTraits& architecture_named(std::string_view name);
/// Their names, in documentation order (the loader's choices for `strategy.architecture`).
std::vector<std::string> architecture_names();
/// The names of those `taken` accepts, quoted, as a list in words ("a", "b" or "c"; for messages).
std::string quoted_names(const std::function<bool(const ArchitectureTraits&)>& taken);
/// quoted_names of those whose updates meet where `meets` says.
std::string architectures_meeting(Meets meets);
/// quoted_names of those that take the option table [strategy.<table>].
std::string architectures_taking(std::string_view table);

}  // namespace dtsim::sync
