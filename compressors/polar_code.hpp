#pragma once
/// Polar codes as a lossy source coder for binary blocks (Korada & Urbanke, "Polar Codes are
/// Optimal for Lossy Source Coding", IEEE Trans. IT 2010), as the Tongji thesis of seed 002 uses
/// them: the successive-cancellation decoder with randomised rounding compresses N bits to the K
/// non-frozen bits u, the polar transform x = u F^{(x)n} decompresses.
#include <cstdint>
#include <span>
#include <vector>

#include "compressors/options.hpp"
#include "compressors/rng.hpp"

namespace dtsim::compressors {

/// How the frozen set and the source LLRs are chosen.
enum class PolarDesign {
  kPyPolar,  ///< py-polar-codes: Bhattacharyya construction at a design SNR, |LLR| = 2 Es
  kBsc,      ///< textbook Korada-Urbanke: test channel BSC(D*), R = 1 - h2(D*)
};

/// One (N, K) polar source code with its frozen set.
class PolarCode {
 public:
  /// Builds the code; N a power of two, 1 <= K <= N; snr_db is used by kPyPolar only.
  PolarCode(std::size_t n, std::size_t k, PolarDesign design, double snr_db);
  /// Block length N.
  std::size_t n() const { return n_; }
  /// Compressed length K (bits kept per block).
  std::size_t k() const { return k_; }
  /// |LLR| of a source bit at the root of successive cancellation.
  double llr_magnitude() const { return llr_magnitude_; }
  /// frozen()[i] is 1 when u_i is frozen to 0.
  const std::vector<std::uint8_t>& frozen() const { return frozen_; }
  /// Compresses N source bits (0/1) into K bits (the non-frozen u, in index order).
  void compress(std::span<const std::uint8_t> source, Rng& rng, std::span<std::uint8_t> kept);
  /// Expands K kept bits into the N-bit reconstruction x = u F^{(x)n}.
  void decompress(std::span<const std::uint8_t> kept, std::span<std::uint8_t> out) const;

 private:
  void sc(std::size_t depth, const double* llr, std::uint8_t* x, std::size_t m, Rng& rng);

  std::size_t n_, k_;
  std::vector<std::uint8_t> frozen_;
  double llr_magnitude_;
  std::vector<std::vector<double>> llr_;  // one buffer per tree depth
  std::vector<std::uint8_t> u_;
  std::size_t leaf_ = 0;
};

/// The parameters of compressor 'polar' (compressors/polar.cpp): its code and its seed.
struct PolarSettings {
  std::size_t block = 1024, kept = 512;             ///< N, K = clamp(round(rate N), 1, N)
  PolarDesign design = PolarDesign::kPyPolar;       ///< frozen set and LLRs
  double snr_db = 5.0;                              ///< kPyPolar's design SNR
  std::uint64_t seed = 0;                           ///< of the randomised rounding
  /// The code of these settings.
  PolarCode code() const { return PolarCode(block, kept, design, snr_db); }
};

/// Reads block, rate, design, snr_db and seed, and finishes the reader (InputError on a bad value).
PolarSettings read_polar_settings(const Options& options);

/// Distortion D* of the binary symmetric source at rate R: the root of 1 - h2(D) = R in (0, 1/2].
double shannon_distortion(double rate);

}  // namespace dtsim::compressors
