#pragma once
/// Golomb-Rice coding of the positions of a sparse tensor (Sattler, Wiedemann, Mueller & Samek, "Sparse Binary
/// Compression: Towards Distributed Deep Learning with minimal Communication", IJCNN 2019, section III-C; the same
/// coder in their STC, IEEE TNNLS 2019). Ascending positions i_1 < i_2 < ... become gaps d_1 = i_1,
/// d_j = i_j - i_(j-1) - 1; each gap is q = d >> b in unary (q one bits, then a zero) and its b low bits, with the
/// parameter the papers derive for a density p:
///   b* = 1 + floor(log2(ln(phi - 1) / ln(1 - p))),  phi the golden ratio   (0 when that is below 0 or p >= 1)
/// Bits are LSB-first (bit j of the stream is bit j % 8 of byte j / 8).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "compressors/kernel_work.hpp"

namespace dtsim::compressors::golomb {

/// b* for density p (kept / total) in (0, 1].
int rice_bits(double density);

/// The papers' budget of kept elements, max(1, floor(n ratio)) (0 for an empty tensor), and b* for its density.
struct Budget {
  std::size_t kept = 0;  ///< elements a message keeps at most
  int rice_bits = 0;     ///< the Golomb parameter for kept / n
};
/// Budget of an n-element tensor at density `ratio`.
Budget budget(std::size_t n, double ratio);

/// Appends the code of ascending `positions` with parameter b to `out`; returns the bits written.
std::size_t encode(std::vector<std::byte>& out, std::span<const std::int64_t> positions, int b);

/// Decodes `count` positions from `in`, starting at byte `start`; returns the byte after the stream.
std::size_t decode(std::span<const std::byte> in, std::size_t start, std::size_t count, int b,
                   std::vector<std::int64_t>& positions);

/// GPU work of coding c ascending positions into `wire` bytes: the code lengths (one kernel reading the positions),
/// their exclusive prefix sum (CUB DeviceScan: two kernels), the codes written at their bit offsets (one kernel).
KernelWork encode_work(double c, double index_bytes, double wire);
/// GPU work of decoding c positions from `wire` bytes: one kernel writing the positions (the block offsets known).
KernelWork decode_work(double c, double index_bytes, double wire);

}  // namespace dtsim::compressors::golomb
