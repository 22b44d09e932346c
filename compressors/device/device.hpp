#pragma once
/// Where the compressor kernels run: the host CPU (the launcher of launch_cpu.hpp) or a CUDA device. A
/// Device owns memory and copies; kernels are launched by the launcher type of the kernel set made for it.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace dtsim::compressors::device {

/// Memory and synchronisation of one place kernels run on.
class Device {
 public:
  virtual ~Device() = default;
  /// "cpu" or "cuda" (the TOML value of [compression] device).
  virtual std::string_view kind() const = 0;
  /// The processor, e.g. "host CPU" or "NVIDIA H100 80GB HBM3".
  virtual std::string model() const = 0;
  /// `bytes` of device memory; throws core::InputError saying how much was asked and how much is free.
  virtual void* allocate(std::size_t bytes) = 0;
  /// Frees memory from allocate (nullptr is allowed).
  virtual void release(void* p) noexcept = 0;
  /// Copies host memory to the device.
  virtual void to_device(void* dst, const void* src, std::size_t bytes) = 0;
  /// Copies device memory to the host.
  virtual void to_host(void* dst, const void* src, std::size_t bytes) = 0;
  /// Sets device memory to zero bytes.
  virtual void zero(void* dst, std::size_t bytes) = 0;
  /// Waits until every launched kernel has finished; throws on a kernel fault.
  virtual void synchronize() = 0;
  /// Bytes per second of a 64 MiB copy within the device's memory, measured once.
  virtual double copy_Bps() = 0;
};

/// The device called `kind` ("cpu" or "cuda"); InputError when it is unknown, when dtsim was built without
/// CUDA, or when no CUDA device is present.
std::unique_ptr<Device> make_device(std::string_view kind);

/// Empty when a CUDA device can run the kernels, else why not (built without nvcc, or no device).
std::string cuda_unavailable();

/// A typed array in device memory, freed with its owner.
template <class T>
class DeviceBuffer {
 public:
  /// An empty buffer on `device`.
  explicit DeviceBuffer(Device& device) : device_(&device) {}
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept : device_(other.device_), data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  ~DeviceBuffer() { device_->release(data_); }
  /// Makes room for n elements; the contents are undefined after a change of size.
  void resize(std::size_t n) {
    if (n == size_) return;
    device_->release(data_);
    data_ = nullptr;
    size_ = 0;
    if (n > 0) data_ = static_cast<T*>(device_->allocate(n * sizeof(T)));
    size_ = n;
  }
  /// Exchanges the memory of two buffers of one device.
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  /// Device address of the first element.
  T* data() const { return data_; }
  /// Number of elements.
  std::size_t size() const { return size_; }

 private:
  Device* device_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace dtsim::compressors::device
