#pragma once
/// How a parameter server shards the gradient: every bucket is cut into partitions that are dealt to the
/// servers round-robin (MXNet kvstore splits big arrays across servers; BytePS cuts 4 MB partitions).
#include <cstdint>
#include <vector>

namespace dtsim::sync {

/// One piece of a bucket, held by one server.
struct Partition {
  int server = 0;
  std::int64_t bytes = 0;
};

/// Piece k of `total` bytes cut into `parts` near-equal pieces (the remainder goes to the first pieces).
std::int64_t even_share(std::int64_t total, std::int64_t parts, std::int64_t k);

/// partitions[b] are bucket b's pieces: at most `partition_bytes` each (0: the bucket split evenly over the
/// servers, remainder to the first), dealt to servers 0, 1, ..., S-1, 0, ... continuing across buckets so
/// that small buckets spread too.
std::vector<std::vector<Partition>> partition_buckets(const std::vector<std::int64_t>& bucket_bytes, int servers,
                                                      std::int64_t partition_bytes);

}  // namespace dtsim::sync
