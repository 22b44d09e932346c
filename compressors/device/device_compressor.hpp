#pragma once
/// A Compressor whose kernels run on a Device (the CPU launcher or CUDA), with residual error feedback kept in
/// device memory. Its wire bytes are those of the same kernels on any device; the host compressor of the same
/// name serves reduce() and unbiased().
#include <map>
#include <memory>
#include <string>

#include "compressors/device/kernels.hpp"
#include "compressors/error_feedback.hpp"

namespace dtsim::compressors::device {

/// Compression on a device.
class DeviceCompressor final : public Compressor {
 public:
  /// Kernels `kernels` on `device`; `host` is the host compressor of the same name; `residual` turns on
  /// residual error feedback with weight `gamma`.
  DeviceCompressor(std::unique_ptr<Device> device, std::unique_ptr<Kernels> kernels, std::unique_ptr<Compressor> host,
                   bool residual, float gamma);
  std::string_view name() const override { return host_->name(); }
  using Compressor::compress;
  /// Uploads grad, compensates (residual), runs the kernels, keeps the error, downloads the payload.
  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override;
  /// Uploads the payload (and a low-rank message's shared factor), expands it on the device, downloads the tensor.
  void decompress(const Compressed& msg, std::span<float> out) const override;
  /// kLowRank: the second round from the reduced first one on the device; residual error feedback is kept here,
  /// against this worker's own share of the reconstruction (as the host's ErrorFeedback).
  Compressed next_round(const Compressed& reduced) override;
  /// The host compressor's reduce (same wire format).
  Compressed reduce(std::span<const Compressed> msgs) const override { return host_->reduce(msgs); }
  /// The host compressor's answer, without error feedback.
  bool unbiased() const override { return !residual_ && host_->unbiased(); }
  /// Declares the shape to the host compressor and to the kernels.
  void set_shape(TensorId id, std::int64_t rows, std::int64_t cols) override {
    host_->set_shape(id, rows, cols);
    kernels_->set_shape(id, rows, cols);
  }
  /// The host compressor's kernels, with residual error feedback's passes when it is on (feedback_kernel_cost).
  KernelCost kernel_cost(const Compressed& msg) const override {
    return feedback_kernel_cost(host_->kernel_cost(msg), residual_ ? FeedbackKind::kResidual : FeedbackKind::kNone, {}, msg);
  }
  /// Seconds the kernels of the last compress took on the device (copies to and from the host excluded).
  double kernel_seconds() const { return kernel_s_; }
  /// Seconds the kernels of the last decompress took on the device.
  double decompress_kernel_seconds() const { return decompress_kernel_s_; }
  /// The device the kernels run on.
  Device& device() const { return *device_; }

 private:
  std::unique_ptr<Device> device_;
  std::unique_ptr<Kernels> kernels_;
  std::unique_ptr<Compressor> host_;
  bool residual_;
  float gamma_;
  DeviceBuffer<float> t_, sent_;
  DeviceBuffer<std::byte> payload_;
  std::map<TensorId, DeviceBuffer<float>> error_;
  std::map<TensorId, DeviceBuffer<float>> pending_;  // low rank: the compensated tensor until next_round
  DeviceBuffer<float> shared_;
  double kernel_s_ = 0.0;
  mutable DeviceBuffer<std::byte> in_;
  mutable DeviceBuffer<float> out_, shared_in_;
  mutable double decompress_kernel_s_ = 0.0;
};

/// `compressor` (with `options`) on device `device_kind` ("cpu": the kernels through the CPU launcher,
/// "cuda") under error feedback `feedback` ("none" or "residual"); InputError when the device is missing, the
/// compressor or its options are unknown, or the error feedback is not on the device.
std::unique_ptr<DeviceCompressor> make_device_compressor(std::string_view device_kind, std::string_view compressor,
                                                         const Options& options, std::string_view feedback = "none");

}  // namespace dtsim::compressors::device
