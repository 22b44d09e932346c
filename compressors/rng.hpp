#pragma once
/// Portable seeded random numbers: xoshiro256** / xoshiro128** seeded by splitmix64, with our own
/// uniform and normal transforms, so one seed gives the same bits on every platform
/// (Blackman & Vigna, "Scrambled linear pseudorandom number generators", TOMS 2021).
#include <array>
#include <cstdint>
#include <span>

namespace dtsim::compressors {

/// One splitmix64 step: advances `state` and returns a well-mixed 64-bit value.
std::uint64_t splitmix64(std::uint64_t& state);

/// Mixes a seed with two stream coordinates (tensor id, step) into an independent stream seed.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b);

/// Natural logarithm from IEEE basic operations only (bit-identical everywhere); x > 0.
double portable_log(double x);

/// xoshiro256**: the scalar generator behind every random choice of the compressors.
class Rng {
 public:
  /// Seeds the four state words from splitmix64(seed).
  explicit Rng(std::uint64_t seed);
  /// Next raw 64-bit output.
  std::uint64_t next();
  /// Uniform double in [0, 1) with 53 random bits.
  double uniform();
  /// Uniform integer in [0, n), without modulo bias; n > 0.
  std::uint64_t below(std::uint64_t n);
  /// Standard normal N(0, 1) by Marsaglia's polar method.
  double normal();

 private:
  std::array<std::uint64_t, 4> s_{};
  double spare_normal_ = 0.0;
  bool has_spare_ = false;
};

/// Eight interleaved xoshiro128** lanes: vectorisable 32-bit draws for element-wise rounding.
class UniformStream {
 public:
  /// Number of values produced per call of `fill` block.
  static constexpr std::size_t kLanes = 8;
  /// Seeds every lane from splitmix64(seed).
  explicit UniformStream(std::uint64_t seed);
  /// Fills `out` (size a multiple of kLanes) with raw 32-bit draws.
  void fill(std::span<std::uint32_t> out);

 private:
  alignas(32) std::uint32_t s0_[kLanes], s1_[kLanes], s2_[kLanes], s3_[kLanes];
};

}  // namespace dtsim::compressors
