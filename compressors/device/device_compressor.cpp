#include "compressors/device/device_compressor.hpp"

#include <algorithm>
#include <chrono>

#include "compressors/device/registry.hpp"
#include "compressors/registry.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors::device {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

}  // namespace

DeviceCompressor::DeviceCompressor(std::unique_ptr<Device> device, std::unique_ptr<Kernels> kernels,
                                   std::unique_ptr<Compressor> host, bool residual, float gamma)
    : device_(std::move(device)), kernels_(std::move(kernels)), host_(std::move(host)), residual_(residual),
      gamma_(gamma), t_(*device_), sent_(*device_), payload_(*device_), shared_(*device_), in_(*device_), out_(*device_),
      shared_in_(*device_) {}

void DeviceCompressor::compress(std::span<const float> grad, TensorId id, Compressed& msg) {
  const std::uint64_t step = next_step(id);
  const auto n = static_cast<std::int64_t>(grad.size());
  start_message(msg, grad, id, step, kernels_->how_for(id, n));
  const bool deferred = msg.how == Aggregation::kLowRank;  // error feedback after the second round
  t_.resize(grad.size());
  device_->to_device(t_.data(), grad.data(), grad.size_bytes());
  DeviceBuffer<float>* error = nullptr;
  if (residual_) {
    auto [it, fresh] = error_.try_emplace(id, *device_);
    error = &it->second;
    if (fresh || error->size() != grad.size()) {
      error->resize(grad.size());
      device_->zero(error->data(), grad.size_bytes());
    }
    sent_.resize(grad.size());
  }
  device_->synchronize();
  const auto start = Clock::now();
  if (error) kernels_->compensate(t_.data(), error->data(), gamma_, n);
  kernels_->compress(t_.data(), n, id, step, payload_);
  if (error && !deferred) {
    kernels_->decompress(payload_.data(), payload_.size(), sent_.data(), n, id, step);
    kernels_->keep_error(error->data(), t_.data(), sent_.data(), n);
  }
  device_->synchronize();
  kernel_s_ = seconds_since(start);
  if (error && deferred) {
    auto [it, fresh] = pending_.try_emplace(id, *device_);
    it->second.swap(t_);  // kept until next_round; t_ gets the old buffer (resized on the next compress)
  }
  msg.payload.resize(payload_.size());
  device_->to_host(msg.payload.data(), payload_.data(), payload_.size());
  msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
}

void DeviceCompressor::decompress(const Compressed& msg, std::span<float> out) const {
  DTSIM_CHECK(static_cast<std::int64_t>(out.size()) == msg.numel, "decompress needs a tensor of the message's size");
  in_.resize(msg.payload.size());
  device_->to_device(in_.data(), msg.payload.data(), msg.payload.size());
  out_.resize(out.size());
  const bool low_rank = msg.how == Aggregation::kLowRank;
  if (low_rank) {
    DTSIM_CHECK(msg.round == 1, "a low-rank message expands after its second round");
    shared_in_.resize(msg.shared.size());
    device_->to_device(shared_in_.data(), msg.shared.data(), msg.shared.size() * sizeof(float));
  }
  device_->synchronize();
  const auto start = Clock::now();
  if (low_rank) {
    kernels_->expand_low_rank(in_.data(), in_.size(), shared_in_.data(), shared_in_.size(), out_.data(), msg.numel,
                              msg.tensor);
  } else {
    kernels_->decompress(in_.data(), in_.size(), out_.data(), msg.numel, msg.tensor, msg.step);
  }
  device_->synchronize();
  decompress_kernel_s_ = seconds_since(start);
  device_->to_host(out.data(), out_.data(), out.size_bytes());
}

Compressed DeviceCompressor::next_round(const Compressed& reduced) {
  DTSIM_CHECK(reduced.how == Aggregation::kLowRank && reduced.round == 0, "next_round needs a reduced first round");
  in_.resize(reduced.payload.size());
  device_->to_device(in_.data(), reduced.payload.data(), reduced.payload.size());
  kernels_->next_round(in_.data(), in_.size(), reduced.tensor, payload_, shared_);
  if (residual_) {
    const auto n = static_cast<std::size_t>(reduced.numel);
    DeviceBuffer<float>& pending = pending_.at(reduced.tensor);
    sent_.resize(n);
    kernels_->expand_low_rank(payload_.data(), payload_.size(), shared_.data(), shared_.size(), sent_.data(),
                              reduced.numel, reduced.tensor);
    kernels_->keep_error(error_.at(reduced.tensor).data(), pending.data(), sent_.data(), reduced.numel);
  }
  device_->synchronize();
  Compressed msg = reduced;
  msg.round = 1;
  msg.payload.resize(payload_.size());
  device_->to_host(msg.payload.data(), payload_.data(), payload_.size());
  msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  msg.shared.resize(shared_.size());
  device_->to_host(msg.shared.data(), shared_.data(), shared_.size() * sizeof(float));
  return msg;
}

std::unique_ptr<DeviceCompressor> make_device_compressor(std::string_view device_kind, std::string_view compressor,
                                                         const Options& options, std::string_view feedback) {
  if (feedback != "none" && feedback != "residual")
    throw core::InputError("error_feedback '" + std::string(feedback) + "' does not run on the device",
                           "error_feedback = \"none\" or \"residual\" with device = \"" + std::string(device_kind) +
                               "\", or device = \"cpu\"");
  std::unique_ptr<Compressor> host = make_compressor(compressor, options);  // checks the name and the options
  std::unique_ptr<Device> device = make_device(device_kind);
  const auto table = device_kernels(*device);
  const auto entry =
      std::find_if(table.begin(), table.end(), [&](const KernelEntry& e) { return e.name == compressor; });
  DTSIM_CHECK(entry != table.end(), "every registered compressor has device kernels (compressors/device/kernel_list.hpp)");
  std::unique_ptr<Kernels> kernels = entry->make(*device, options);
  return std::make_unique<DeviceCompressor>(std::move(device), std::move(kernels), std::move(host),
                                            feedback == "residual", 1.0f);
}

}  // namespace dtsim::compressors::device
