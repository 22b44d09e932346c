#pragma once
/// fixed_proportion on the device (compressors/fixed_proportion.cpp): each side's magnitudes as one array (sbc's
/// OneSide: max(s x, 0)), its count by reduce.hpp, its max(1, floor(pi count)) largest by topk's radix select into
/// a sparse scratch (sparse_select.hpp), its mean from a double sum by reduce.hpp (in another order than the host
/// kernel's: a mean may differ from it in the last bit), then one kernel copying both index lists after the header.
#include <cstring>

#include "compressors/device/reduce.hpp"
#include "compressors/device/sbc_kernels.hpp"

namespace dtsim::compressors::device {

/// Non-zero elements and their sum (double).
struct CountAndSum {
  unsigned long long count = 0;
  double sum = 0.0;
  DTSIM_HOST_DEVICE void add(float x) {
    count += x != 0.0f ? 1u : 0u;
    sum += static_cast<double>(x);
  }
  DTSIM_HOST_DEVICE void merge(const CountAndSum& o) {
    count += o.count;
    sum += o.sum;
  }
};

/// payload[12, ...) = the index bytes of both sides' sparse scratches, positive first.
struct CopyIndices {
  const std::byte* positive;
  const std::byte* negative;
  std::int64_t positive_bytes, negative_bytes;
  std::byte* payload;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const std::int64_t all = positive_bytes + negative_bytes;
    for (std::int64_t b = t.tile_begin(all); b < t.tile_end(all); b += t.threads)
      payload[12 + b] = b < positive_bytes ? positive[b] : negative[b - positive_bytes];
  }
};

/// out[index_p] = mu+ for the first k+ indices, mu- for the others (onto zeros; indices are distinct).
struct ExpandSides {
  const std::byte* payload;
  std::int64_t all, positives;
  bool wide;
  float* out;
  DTSIM_HOST_DEVICE void operator()(Thread t) const {
    const auto* means = reinterpret_cast<const float*>(payload);
    for (std::int64_t p = t.tile_begin(all); p < t.tile_end(all); p += t.threads) {
      const std::int64_t i = wide ? reinterpret_cast<const std::int64_t*>(payload + 12)[p]
                                  : reinterpret_cast<const std::int32_t*>(payload + 12)[p];
      out[i] = means[p < positives ? 0 : 1];
    }
  }
};

/// The fixed_proportion kernels on launcher `Launch`.
template <class Launch>
class FixedProportionKernels final : public SparseKernels<Launch> {
 public:
  FixedProportionKernels(Device& device, const Options& options)
      : SparseKernels<Launch>(device), device_(device), side_(device), positive_(device), negative_(device),
        partial_(device), total_(device) {
    OptionReader reader("compressor 'fixed_proportion'", options);
    proportion_ = reader.real("proportion", 0.01, 0.0, 1.0, true);
    reader.finish();
  }
  void compress(const float* grad, std::int64_t n, TensorId, std::uint64_t, DeviceBuffer<std::byte>& payload) override {
    const int ib = n >= (std::int64_t{1} << 31) ? 8 : 4;
    float means[2] = {0.0f, 0.0f};
    std::int64_t kept[2] = {0, 0};
    DeviceBuffer<std::byte>* scratch[2] = {&positive_, &negative_};
    for (int s = 0; s < 2; ++s) {
      if (n == 0) break;
      side_.resize(static_cast<std::size_t>(n));
      const float sign = s == 0 ? 1.0f : -1.0f;
      Launch{}(grid_for(n), OneSide{grad, sign, side_.data(), n});
      const auto count =
          static_cast<std::int64_t>(reduce_to_host<Launch>(device_, side_.data(), n, partial_, total_).count);
      if (count == 0) continue;
      const auto k = static_cast<std::int64_t>(static_cast<double>(count) * proportion_);
      this->largest(side_.data(), n, std::max<std::int64_t>(1, k));
      kept[s] = this->count(side_.data(), n);
      this->write(side_.data(), n, kept[s], *scratch[s]);
      const auto* values = reinterpret_cast<const float*>(scratch[s]->data() + kept[s] * ib);
      means[s] = wire_mean(sign * reduce_to_host<Launch>(device_, values, kept[s], partial_, total_).sum, kept[s]);
    }
    payload.resize(static_cast<std::size_t>(12 + (kept[0] + kept[1]) * ib));
    std::byte header[12];
    const auto positives = static_cast<std::uint32_t>(kept[0]);
    std::memcpy(header, means, 8);
    std::memcpy(header + 8, &positives, 4);
    device_.to_device(payload.data(), header, sizeof header);
    if (kept[0] + kept[1] > 0)
      Launch{}(grid_for((kept[0] + kept[1]) * ib),
               CopyIndices{positive_.data(), negative_.data(), kept[0] * ib, kept[1] * ib, payload.data()});
  }
  void decompress(const std::byte* payload, std::size_t bytes, float* out, std::int64_t n, TensorId,
                  std::uint64_t) override {
    if (n == 0) return;
    device_.zero(out, sizeof(float) * static_cast<std::size_t>(n));
    const bool wide = n >= (std::int64_t{1} << 31);
    std::uint32_t positives = 0;
    device_.to_host(&positives, payload + 8, 4);
    const auto all = static_cast<std::int64_t>((bytes - 12) / (wide ? 8 : 4));
    if (all > 0) Launch{}(grid_for(all), ExpandSides{payload, all, positives, wide, out});
  }

 private:
  Device& device_;
  DeviceBuffer<float> side_;
  DeviceBuffer<std::byte> positive_, negative_;
  DeviceBuffer<CountAndSum> partial_;
  DeviceBuffer<std::byte> total_;
  double proportion_ = 0.01;
};

}  // namespace dtsim::compressors::device
