#pragma once
/// sidco on the device (compressors/sidco.cpp): the statistics of a = |x| / ||x||_2 (sum of squares, sum of |x|)
/// and, per later stage, the exceedances {a > eta} (their count and minimum, then the moments of a - min) are
/// reductions on the device (reduce.hpp); the fit of compressors/sidco_fit.hpp runs on the host on those few
/// numbers; the kept set {|x| > eta ||x||} is compacted in index order (sparse_select.hpp). The gamma law's mean
/// of ln(a + 1e-10) is a reduction too, with portable_math.hpp's log: the same bits on every launcher (CUDA's log
/// and libm's round differently), not necessarily the host kernel's (libm's log, another order).
#include <string>

#include "compressors/device/reduce.hpp"
#include "compressors/device/sparse_select.hpp"
#include "compressors/portable_math.hpp"
#include "compressors/sidco_fit.hpp"

namespace dtsim::compressors::device {

/// Sum of x^2 and of |x|, in double.
struct SquaresAndAbs {
  double squares = 0.0, abs = 0.0;
  DTSIM_HOST_DEVICE void add(float x) {
    const auto d = static_cast<double>(x);
    squares += d * d;
    abs += fabs(d);
  }
  DTSIM_HOST_DEVICE void merge(const SquaresAndAbs& o) {
    squares += o.squares;
    abs += o.abs;
  }
};

/// Count and minimum of the exceedances a = |x| inv > eta.
struct Exceedances {
  double inv = 0.0, eta = 0.0;
  unsigned long long count = 0;
  double low = 0.0;
  DTSIM_HOST_DEVICE void add(float x) {
    const double a = fabs(static_cast<double>(x)) * inv;
    if (!(a > eta)) return;
    low = count == 0 || a < low ? a : low;
    ++count;
  }
  DTSIM_HOST_DEVICE void merge(const Exceedances& o) {
    if (o.count == 0) return;
    low = count == 0 || o.low < low ? o.low : low;
    count += o.count;
  }
};

/// Sums of d = a - low and d^2 over the exceedances a > eta.
struct ExcessMoments {
  double inv = 0.0, eta = 0.0, low = 0.0;
  double s1 = 0.0, s2 = 0.0;
  DTSIM_HOST_DEVICE void add(float x) {
    const double a = fabs(static_cast<double>(x)) * inv;
    if (!(a > eta)) return;
    const double d = a - low;
    s1 += d;
    s2 += d * d;
  }
  DTSIM_HOST_DEVICE void merge(const ExcessMoments& o) {
    s1 += o.s1;
    s2 += o.s2;
  }
};

/// Sum of ln(|x| inv + 1e-10), in double.
struct SumOfLogs {
  double inv = 0.0, sum = 0.0;
  DTSIM_HOST_DEVICE void add(float x) {
    sum += log_by_series(static_cast<double>(bits_float(float_bits(x) & 0x7fffffffu)) * inv + 1e-10);
  }
  DTSIM_HOST_DEVICE void merge(const SumOfLogs& o) { sum += o.sum; }
};

/// The sidco kernels on launcher `Launch`.
template <class Launch>
class SidcoKernels final : public SparseKernels<Launch> {
 public:
  SidcoKernels(Device& device, const Options& options)
      : SparseKernels<Launch>(device), device_(device), stats_(device), exceed_(device), excess_(device), logs_(device), total_(device) {
    OptionReader reader("compressor 'sidco'", options);
    ratio_ = reader.real("ratio", 0.001, 0.0, 1.0, true);
    const std::string law = reader.choice("distribution", "exponential", {"exponential", "gpareto", "gamma"});
    stages_ = reader.integer("stages", 0, 0, 10);
    first_ratio_ = reader.real("first_ratio", 0.25, 0.0, 1.0, true);
    reader.finish();
    law_ = sidco_law(law);
  }
  void compress(const float* grad, std::int64_t n, TensorId, std::uint64_t, DeviceBuffer<std::byte>& payload) override {
    if (n == 0) return payload.resize(0);
    const auto sums = reduce_to_host<Launch>(device_, grad, n, stats_, total_, SquaresAndAbs{});
    const double norm = sqrt(sums.squares);
    const double inv = norm > 0.0 ? 1.0 / norm : 0.0;
    const std::int64_t stages = sidco_stages(ratio_, first_ratio_, stages_);
    const auto count = static_cast<double>(n);
    SidcoMoments stats;
    stats.mean = sums.abs * inv / count;
    if (law_ == SidcoLaw::kGpareto)
      stats.var = std::max(0.0, sums.squares * inv * inv / count - stats.mean * stats.mean);
    if (law_ == SidcoLaw::kGamma) stats.mean_log = reduce_to_host<Launch>(device_, grad, n, logs_, total_, SumOfLogs{inv, 0.0}).sum / count;
    double eta = sidco_quantile(law_, stats, stages == 1 ? ratio_ : first_ratio_);
    const double stage_ratio = sidco_stage_ratio(ratio_, first_ratio_, stages);
    for (std::int64_t stage = 1; stage < stages; ++stage) {  // the exceedances of each stage nest: eta grows
      const Exceedances e = reduce_to_host<Launch>(device_, grad, n, exceed_, total_, Exceedances{inv, eta, 0, 0.0});
      if (e.count == 0) break;
      const ExcessMoments m = reduce_to_host<Launch>(device_, grad, n, excess_, total_, ExcessMoments{inv, eta, e.low, 0.0, 0.0});
      SidcoMoments tail;
      tail.mean = m.s1 / static_cast<double>(e.count);
      tail.var = std::max(0.0, m.s2 / static_cast<double>(e.count) - tail.mean * tail.mean);
      eta = gpareto_quantile(tail, stage_ratio) + e.low;
    }
    const auto thr = static_cast<float>(eta * norm);
    this->above(magnitude_key(float_bits(thr)));  // |x| > eta ||x||
    this->write(grad, n, this->count(grad, n), payload);
  }

 private:
  Device& device_;
  DeviceBuffer<SquaresAndAbs> stats_;
  DeviceBuffer<Exceedances> exceed_;
  DeviceBuffer<ExcessMoments> excess_;
  DeviceBuffer<SumOfLogs> logs_;
  DeviceBuffer<std::byte> total_;
  double ratio_ = 0.001, first_ratio_ = 0.25;
  std::int64_t stages_ = 0;
  SidcoLaw law_ = SidcoLaw::kExponential;
};

}  // namespace dtsim::compressors::device
