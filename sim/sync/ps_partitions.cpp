#include "sim/sync/ps_partitions.hpp"

#include <algorithm>
#include <string>

#include "sim/core/error.hpp"

namespace dtsim::sync {

std::int64_t even_share(std::int64_t total, std::int64_t parts, std::int64_t k) {
  return total / parts + (k < total % parts ? 1 : 0);
}

std::vector<std::vector<Partition>> partition_buckets(const std::vector<std::int64_t>& bucket_bytes, int servers,
                                                      std::int64_t partition_bytes) {
  DTSIM_CHECK(servers >= 1 && partition_bytes >= 0, "at least one server, a non-negative partition size");
  std::vector<std::vector<Partition>> partitions;
  int next = 0;
  for (const std::int64_t bytes : bucket_bytes) {
    std::vector<Partition>& pieces = partitions.emplace_back();
    if (partition_bytes == 0) {
      const std::int64_t parts = std::min<std::int64_t>(servers, std::max<std::int64_t>(bytes, 1));
      for (std::int64_t k = 0; k < parts; ++k)
        pieces.push_back({next++ % servers, even_share(bytes, parts, k)});
      continue;
    }
    std::int64_t left = bytes;
    do {
      const std::int64_t piece = std::min(left, partition_bytes);
      pieces.push_back({next++ % servers, piece});
      left -= piece;
    } while (left > 0);
  }
  return partitions;
}

int djb2_server(std::uint64_t declared_key, std::int64_t partition, int servers) {
  DTSIM_CHECK(servers >= 1 && partition >= 0, "at least one server, a partition index");
  const std::string digits = std::to_string((declared_key << 16) + static_cast<std::uint64_t>(partition));
  std::uint64_t hash = 5381;
  for (const char c : digits) hash = (hash << 5) + hash + static_cast<std::uint64_t>(c);  // hash * 33 + c
  return static_cast<int>(hash % static_cast<std::uint64_t>(servers));
}

}  // namespace dtsim::sync
