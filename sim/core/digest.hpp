#pragma once
/// Content digests that key results (sweep points, report provenance): 64-bit FNV-1a, as 16 hex digits.
/// Not cryptographic; it detects changed inputs, it does not resist forgery.
#include <cstdint>
#include <string>
#include <string_view>

namespace dtsim::core {

/// Incremental FNV-1a 64 (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/).
class Digest {
 public:
  /// Adds `bytes`, then a separator byte count so that ("ab", "c") and ("a", "bc") differ.
  Digest& add(std::string_view bytes);
  /// 16 lower-case hex digits.
  std::string hex() const;

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ull;
};

/// The digest of a file's bytes; throws core::InputError naming `path` when it cannot be read.
std::string file_digest(const std::string& path);

}  // namespace dtsim::core
