#pragma once
/// Splitting a vector of bytes into near-equal chunks, as MPI and NCCL do.
#include <cstdint>

namespace dtsim::collectives {

/// Size of chunk `index` when `bytes` are cut into `parts` chunks: the first bytes % parts chunks get one
/// byte more than the others.
inline std::int64_t chunk_bytes(std::int64_t bytes, int parts, int index) {
  return bytes / parts + (index < bytes % parts ? 1 : 0);
}

}  // namespace dtsim::collectives
