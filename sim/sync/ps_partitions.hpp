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

/// BytePS's server of a partition (byteps/common/global.cc, EncodeDefaultKey with the default
/// BYTEPS_KEY_HASH_FN = "djb2"): the DJB2 hash of the key's decimal digits modulo the servers, where the key of
/// partition p of the tensor declared k-th is (k << 16) + p (operations.cc, InitTensor).
int djb2_server(std::uint64_t declared_key, std::int64_t partition, int servers);

}  // namespace dtsim::sync
