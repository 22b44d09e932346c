#include "compressors/kernel_work.hpp"

namespace dtsim::compressors {

KernelWork& KernelWork::operator+=(const KernelWork& other) {
  bytes += other.bytes;
  flops += other.flops;
  launches += other.launches;
  return *this;
}

KernelWork operator+(KernelWork a, const KernelWork& b) { return a += b; }

KernelWork operator*(std::int64_t times, const KernelWork& w) {
  const auto t = static_cast<double>(times);
  return {t * w.bytes, t * w.flops, times * w.launches};
}

namespace kernel {
namespace {
constexpr double kSector = 32;  // bytes of one device memory transaction (CUDA C programming guide)
constexpr double kFloat = 4;
}  // namespace

KernelWork pass(double n, double read, double written) { return {n * (read + written), 0, 1}; }

KernelWork reduction(double n) { return {kFloat * n, 0, 2}; }

KernelWork select_if(double n, double c, double index_bytes) { return {kFloat * n + c * (index_bytes + kFloat), 0, 2}; }

KernelWork radix_select(double n, double k, double index_bytes) {
  constexpr double digit_passes = 4;  // 32-bit keys, 8-bit digits (mbtopk::RADIX_BITS = 8)
  return {digit_passes * kFloat * n + kFloat * n + k * (index_bytes + kFloat), 0, 2 * 4 + 1};
}

KernelWork radix_sort(double n, double key_bytes, double value_bytes) {
  const double digits = key_bytes;  // one 8-bit digit per key byte
  return {n * key_bytes + digits * 2 * n * (key_bytes + value_bytes), 0, 1 + static_cast<std::int64_t>(digits)};
}

KernelWork gather(double c, double written) { return {kSector * c + written, 0, 1}; }

KernelWork scatter(double n, double c, double read) { return {kFloat * n + read + kSector * c, 0, 2}; }

KernelWork encode(double n, double wire) { return {kFloat * n + wire, 0, 1}; }

KernelWork decode(double n, double wire) { return {wire + kFloat * n, 0, 1}; }

KernelWork matmul(double m, double k, double n) { return {kFloat * (m * k + k * n + m * n), 2 * m * k * n, 1}; }

}  // namespace kernel
}  // namespace dtsim::compressors
