#pragma once
/// One compressor's device kernels on one launcher. The pattern of a port (docs/cuda.md): the per-element
/// work lives in host-device functions (compressors/element_codecs.hpp), `<name>_kernels.hpp` writes the
/// kernels as functors and a `template <class Launch> class ...Kernels : public KernelsOn<Launch>` that
/// launches them, and one line in kernel_list.hpp instantiates it for the CPU launcher and for CUDA. Its wire
/// bytes equal those of the CUDA build bit for bit.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "compressors/compressor.hpp"
#include "compressors/device/device.hpp"
#include "compressors/host_device.hpp"
#include "compressors/options.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors::device {

/// The kernels of one compressor, bound to one device; all pointers are device memory.
class Kernels {
 public:
  virtual ~Kernels() = default;
  /// How the payloads of all workers are combined (as the host compressor says).
  virtual Aggregation how() const = 0;
  /// How the payloads of tensor `id` of n elements are combined (low rank: all-reduce where it would not shrink).
  virtual Aggregation how_for(TensorId, std::int64_t) const { return how(); }
  /// Compresses grad[0, n) of exchange `step` of tensor `id` into `payload`, resized to the payload's bytes.
  virtual void compress(const float* grad, std::int64_t n, TensorId id, std::uint64_t step,
                        DeviceBuffer<std::byte>& payload) = 0;
  /// Expands the payload of `bytes` bytes of exchange `step` of tensor `id` into out[0, n).
  virtual void decompress(const std::byte* payload, std::size_t bytes, float* out, std::int64_t n, TensorId id,
                          std::uint64_t step) = 0;
  /// kLowRank, second round of tensor `id`: from the all-reduced first-round payload `reduced` of `bytes` bytes,
  /// this worker's payload and the factor every rank shares (Compressed::shared).
  virtual void next_round(const std::byte*, std::size_t, TensorId, DeviceBuffer<std::byte>&, DeviceBuffer<float>&) {
    DTSIM_CHECK(false, "next_round is only defined for low-rank kernels");
  }
  /// kLowRank: expands the second-round payload of `bytes` bytes with the shared factor into out[0, n).
  virtual void expand_low_rank(const std::byte*, std::size_t, const float*, std::size_t, float*, std::int64_t, TensorId) {
    DTSIM_CHECK(false, "expand_low_rank is only defined for low-rank kernels");
  }
  /// Declares the 2-D (row-major) view of tensor `id` (Compressor::set_shape); kernels that use none ignore it.
  virtual void set_shape(TensorId, std::int64_t, std::int64_t) {}
  /// Error feedback, before compression: t[i] = e[i] + gamma t[i].
  virtual void compensate(float* t, const float* e, float gamma, std::int64_t n) = 0;
  /// Error feedback, after compression: e[i] = t[i] - sent[i].
  virtual void keep_error(float* e, const float* t, const float* sent, std::int64_t n) = 0;
};

/// One registered kernel set: the compressor's registry name and its factory (options as the host
/// compressor reads them).
struct KernelEntry {
  std::string_view name;                                               ///< registry (TOML) name
  std::unique_ptr<Kernels> (*make)(Device& device, const Options& options);  ///< factory
};

/// Makes kernel set K (constructed from the device and the options); the registry tables point at it.
template <class K>
std::unique_ptr<Kernels> make_kernels(Device& device, const Options& options) {
  return std::make_unique<K>(device, options);
}

/// t[i] = e[i] + gamma t[i].
struct Compensate {
  float* t;
  const float* e;
  float gamma;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread th) const {
    for (std::int64_t i = th.tile_begin(n); i < th.tile_end(n); i += th.threads) t[i] = e[i] + gamma * t[i];
  }
};

/// e[i] = t[i] - sent[i].
struct KeepError {
  float* e;
  const float* t;
  const float* sent;
  std::int64_t n;
  DTSIM_HOST_DEVICE void operator()(Thread th) const {
    for (std::int64_t i = th.tile_begin(n); i < th.tile_end(n); i += th.threads) e[i] = t[i] - sent[i];
  }
};

/// The error-feedback kernels on launcher `Launch`, shared by every kernel set.
template <class Launch>
class KernelsOn : public Kernels {
 public:
  void compensate(float* t, const float* e, float gamma, std::int64_t n) override {
    if (n > 0) Launch{}(grid_for(n), Compensate{t, e, gamma, n});
  }
  void keep_error(float* e, const float* t, const float* sent, std::int64_t n) override {
    if (n > 0) Launch{}(grid_for(n), KeepError{e, t, sent, n});
  }
};

}  // namespace dtsim::compressors::device
