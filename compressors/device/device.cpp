#include "compressors/device/device.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "compressors/device/registry.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors::device {

#if defined(DTSIM_HAVE_CUDA)
std::unique_ptr<Device> make_cuda_device();  // cuda/cuda_device.cu
std::string cuda_device_missing();          // cuda/cuda_device.cu
#else
std::span<const KernelEntry> cuda_kernels() { return {}; }  // built without nvcc: no CUDA kernel sets
#endif

namespace {

/// The host CPU: plain memory, the launcher of launch_cpu.hpp.
class CpuDevice final : public Device {
 public:
  std::string_view kind() const override { return "cpu"; }
  std::string model() const override { return "host CPU (launcher)"; }
  void* allocate(std::size_t bytes) override {
    void* p = std::malloc(bytes);
    if (!p)
      throw core::InputError("the host cannot allocate " + std::to_string(bytes >> 20) + " MiB for the kernels",
                             "smaller buckets or tensors");
    return p;
  }
  void release(void* p) noexcept override { std::free(p); }
  void to_device(void* dst, const void* src, std::size_t bytes) override { copy(dst, src, bytes); }
  void to_host(void* dst, const void* src, std::size_t bytes) override { copy(dst, src, bytes); }
  void zero(void* dst, std::size_t bytes) override {
    if (bytes) std::memset(dst, 0, bytes);
  }
  void synchronize() override {}
  double copy_Bps() override {
    static const double bandwidth = [] {
      std::vector<char> from(64 << 20, 1), to(64 << 20);
      const auto start = std::chrono::steady_clock::now();
      std::memcpy(to.data(), from.data(), from.size());
      return static_cast<double>(from.size()) /
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }();
    return bandwidth;
  }

 private:
  static void copy(void* dst, const void* src, std::size_t bytes) {
    if (bytes) std::memcpy(dst, src, bytes);
  }
};

}  // namespace

std::string cuda_unavailable() {
#if defined(DTSIM_HAVE_CUDA)
  return cuda_device_missing();
#else
  return "this dtsim was built without CUDA (no nvcc when it was configured, or -DDTSIM_ENABLE_CUDA=OFF)";
#endif
}

std::unique_ptr<Device> make_device(std::string_view kind) {
  if (kind == "cpu") return std::make_unique<CpuDevice>();
  if (kind != "cuda") throw core::unknown_name("device", kind, {"cpu", "cuda"});
  const std::string why = cuda_unavailable();
  if (!why.empty()) throw core::InputError("device \"cuda\" is not available: " + why, "device = \"cpu\" (the default)");
#if defined(DTSIM_HAVE_CUDA)
  return make_cuda_device();
#else
  DTSIM_CHECK(false, "a build without CUDA has no CUDA device");
#endif
}

std::span<const KernelEntry> device_kernels(const Device& device) {
  return device.kind() == "cuda" ? cuda_kernels() : cpu_kernels();
}

}  // namespace dtsim::compressors::device
