#pragma once
/// gspar on the device (compressors/gspar.cpp): the sum of |x| and, per round of the fixed point
/// (gspar_law.hpp, run on the host), the capped count and the rest below the cap are reductions in double
/// (reduce.hpp, in another order than the host kernel's: lambda may differ from it in the last bits); one kernel
/// draws for element i the double uniform53(words 2 (i % 2), 2 (i % 2) + 1 of Philox block i / 2) of the stream
/// stream_seed(seed, tensor, step) and writes y_i = x_i / p_i where kept, +0 elsewhere; the non-zero y are
/// compacted in index order (sparse_select.hpp). The host kernel draws from xoshiro256** instead: same law,
/// other bits.
#include <cmath>

#include "compressors/device/reduce.hpp"
#include "compressors/device/scaled_sign_kernels.hpp"
#include "compressors/device/sparse_select.hpp"
#include "compressors/element_codecs.hpp"
#include "compressors/gspar_law.hpp"
#include "compressors/philox.hpp"
#include "compressors/rng.hpp"

namespace dtsim::compressors::device {

/// #{|x| >= cap} and the sum of |x| < cap, in double.
struct CapSums {
  double cap = HUGE_VAL;
  unsigned long long capped = 0;
  double rest = 0.0;
  DTSIM_HOST_DEVICE void add(float x) {
    const double a = fabs(static_cast<double>(x));
    if (a >= cap) {
      ++capped;
    } else {
      rest += a;
    }
  }
  DTSIM_HOST_DEVICE void merge(const CapSums& o) {
    capped += o.capped;
    rest += o.rest;
  }
};

/// y[i] = x[i] / p_i (as fp32) when element i's draw is below p_i, else +0.
struct GSparDraw {
  const float* x;
  double lambda, cap;
  std::uint64_t key;
  float* y;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    for (std::int64_t i = t.tile_begin(n); i < t.tile_end(n); i += t.threads) {
      const Philox4x32 u = philox_block(key, static_cast<std::uint64_t>(i / 2));
      const double p = gspar_probability(fabs(static_cast<double>(x[i])), lambda, cap);
      const int w = 2 * static_cast<int>(i % 2);
      y[i] = uniform53(u.v[w], u.v[w + 1]) < p ? static_cast<float>(x[i] / p) : 0.0f;
    }
  }
};

/// The gspar kernels on launcher `Launch`.
template <class Launch>
class GSparKernels final : public SparseKernels<Launch> {
 public:
  GSparKernels(Device& device, const Options& options)
      : SparseKernels<Launch>(device), device_(device), y_(device), sums_(device), caps_(device), total_(device) {
    OptionReader reader("compressor 'gspar'", options);
    ratio_ = reader.real("ratio", 0.01, 0.0, 1.0, true);
    seed_ = static_cast<std::uint64_t>(reader.integer("seed", 0, 0, INT64_MAX));
    reader.finish();
  }
  void compress(const float* grad, std::int64_t n, TensorId id, std::uint64_t step,
                DeviceBuffer<std::byte>& payload) override {
    if (n == 0) return payload.resize(0);
    const double sum = reduce_to_host<Launch>(device_, grad, n, sums_, total_, SumOf<MeanAbs>{}).s;
    const GSparLaw law = gspar_law(ratio_, static_cast<std::size_t>(n), sum, [&](double cap) {
      const CapSums c = reduce_to_host<Launch>(device_, grad, n, caps_, total_, CapSums{cap, 0, 0.0});
      return GSparCapped{static_cast<std::size_t>(c.capped), c.rest};
    });
    if (!law.sends()) return payload.resize(0);
    y_.resize(static_cast<std::size_t>(n));
    Launch{}(grid_for(n), GSparDraw{grad, law.lambda, law.cap, stream_seed(seed_, id, step), y_.data(), n});
    this->above(0);
    this->write(y_.data(), n, this->count(y_.data(), n), payload);
  }

 private:
  Device& device_;
  DeviceBuffer<float> y_;
  DeviceBuffer<SumOf<MeanAbs>> sums_;
  DeviceBuffer<CapSums> caps_;
  DeviceBuffer<std::byte> total_;
  double ratio_ = 0.01;
  std::uint64_t seed_ = 0;
};

}  // namespace dtsim::compressors::device
