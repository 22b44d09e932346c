#include "sim/run/compression_work.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "compressors/device/device_compressor.hpp"
#include "compressors/error_feedback.hpp"
#include "compressors/registry.hpp"
#include "compressors/rng.hpp"
#include "sim/run/kernel_model.hpp"

namespace dtsim::run {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kRepeats = 3;

/// Median over kRepeats runs of `run`: its wall time, or, when given, the device's kernel time it reports.
template <class F>
double median_seconds(F&& run, const std::function<double()>& device_seconds = {}) {
  std::vector<double> times;
  for (int i = 0; i < kRepeats; ++i) {
    const auto start = Clock::now();
    run();
    times.push_back(device_seconds ? device_seconds() : std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/// Host memory bandwidth (a 64 MiB memcpy), measured once per process.
double host_copy_Bps() {
  static const double bandwidth = [] {
    std::vector<char> from(64 << 20, 1), to(64 << 20);
    const double s = median_seconds([&] { std::memcpy(to.data(), from.data(), from.size()); });
    return static_cast<double>(from.size()) / s;
  }();
  return bandwidth;
}

/// A stretch of a bucket: `elements` elements of gradient piece `piece` (from its first element).
struct Segment {
  const GradientPiece* piece = nullptr;
  std::int64_t elements = 0;
};

/// Bucket b's elements piece by piece, in bucket order (a partitioned tensor's piece takes what is left of
/// the bucket).
std::vector<Segment> bucket_segments(const scheduling::Bucket& b, const GradientPieces& pieces) {
  std::vector<Segment> segments;
  std::int64_t left = b.bytes / 4;
  for (int t : b.tensors)
    for (const GradientPiece& p : pieces[static_cast<std::size_t>(t)]) {
      const std::int64_t n = std::min(left, p.elements);
      segments.push_back({&p, n});
      left -= n;
    }
  if (left > 0 && !segments.empty()) segments.back().elements += left;
  return segments;
}

/// The segments' gradient: drawn from the configured distribution at each tensor's layer scale, seeded by
/// (seed, length), or copied from `real` (numerics mode's gradient, laid out tensor after tensor).
std::vector<float> bucket_gradient(const std::vector<Segment>& segments, std::span<const float> real,
                                   const scenario::Compression& c) {
  std::int64_t n = 0;
  for (const Segment& s : segments) n += s.elements;
  std::vector<float> g;
  g.reserve(static_cast<std::size_t>(n));
  if (!real.empty()) {
    for (const Segment& s : segments) {
      const auto from = real.begin() + s.piece->offset;
      g.insert(g.end(), from, from + std::min<std::int64_t>(s.elements, real.end() - from));
      g.resize(g.size() + static_cast<std::size_t>(std::max<std::int64_t>(0, s.elements - (real.end() - from))), 0.0f);
    }
    return g;
  }
  compressors::Rng rng(compressors::stream_seed(c.seed, static_cast<std::uint64_t>(n), 0));
  for (const Segment& s : segments)
    for (std::int64_t i = 0; i < s.elements; ++i) {
      double v = rng.normal();
      if (c.gradient == "laplace") {
        const double u = rng.uniform() - 0.5;
        v = -(u < 0 ? -1.0 : 1.0) * compressors::portable_log(1 - 2 * std::abs(u)) / std::sqrt(2.0);
      } else if (c.gradient == "heavy_tailed") {  // Student t, 3 degrees of freedom, unit scale
        double chi2 = 0;
        for (int k = 0; k < 3; ++k) chi2 += std::pow(rng.normal(), 2);
        v /= std::sqrt(chi2 / 3);
      }
      g.push_back(static_cast<float>(s.piece->scale * v));
    }
  return g;
}

/// Kernel times of one exchange: compress, the second round (low rank), one decompress.
struct KernelTimes {
  double compress_s = 0, next_round_s = 0, decompress_s = 0;
};

/// One bucket size's work: on the target GPU (kernel model, fixed throughput), or in seconds where the kernels ran
/// (measured; mapped to the target GPU by the caller).
scheduling::BucketWork measure(std::vector<float> grad, const scenario::Scenario& s, int ranks) {
  const scenario::Compression& c = s.compression;
  const bool measured = c.kernel_time == scenario::KernelTime::measured;
  std::unique_ptr<compressors::Compressor> compressor;
  std::function<double()> compress_kernel_s, decompress_kernel_s;  // set on a CUDA device: its kernel times
  if (c.device == "cuda") {
    auto on_device = compressors::device::make_device_compressor(c.device, c.compressor, c.options, c.error_feedback);
    compress_kernel_s = [d = on_device.get()] { return d->kernel_seconds(); };
    decompress_kernel_s = [d = on_device.get()] { return d->decompress_kernel_seconds(); };
    compressor = std::move(on_device);
  } else {
    compressor = compressors::make_error_feedback(c.error_feedback, compressors::make_compressor(c.compressor, c.options),
                                              c.feedback_options);
  }
  const auto n = static_cast<std::int64_t>(grad.size());
  std::vector<float> out(static_cast<std::size_t>(n));
  compressors::Compressed msg;
  // kRepeats compressions in every mode, so that stateful compressors send the same message whatever times it.
  KernelTimes measured_s;
  if (measured) {
    measured_s.compress_s = median_seconds([&] { compressor->compress(grad, 0, msg); }, compress_kernel_s);
  } else {
    for (int i = 0; i < kRepeats; ++i) compressor->compress(grad, 0, msg);
  }
  const compressors::KernelCost cost = compressor->kernel_cost(msg);
  // What a receiver expands: the reduced message (all-reduce, low rank after its second round) or one worker's.
  compressors::Compressed expanded = msg, q;
  if (msg.how == compressors::Aggregation::kAllReduce) expanded = compressor->reduce(std::span(&msg, 1));
  if (msg.how == compressors::Aggregation::kLowRank) {
    const compressors::Compressed p = compressor->reduce(std::span(&msg, 1));
    measured_s.next_round_s = median_seconds([&] { q = compressor->next_round(p); });
    expanded = compressor->reduce(std::span(&q, 1));
  }
  KernelTimes t;
  switch (c.kernel_time) {
    case scenario::KernelTime::model:
      t = {kernel_seconds(cost.compress, s.gpu), kernel_seconds(cost.next_round, s.gpu),
           kernel_seconds(cost.decompress, s.gpu)};
      break;
    case scenario::KernelTime::fixed: {
      const double input_s = 4.0 * static_cast<double>(n) / *c.kernel_Bps;
      t = {input_s, input_s, input_s};
      break;
    }
    case scenario::KernelTime::measured:
      t = measured_s;
      t.decompress_s = median_seconds([&] { compressor->decompress(expanded, out); }, decompress_kernel_s);
      break;
  }
  scheduling::BucketWork w;
  w.compress_s = t.compress_s;
  using Kind = scheduling::Exchange::Kind;
  switch (msg.how) {
    case compressors::Aggregation::kAllReduce:
      w.decompress_s = t.decompress_s;
      w.exchanges.push_back({Kind::allreduce, msg.wire_size, 0});
      break;
    case compressors::Aggregation::kAllGather:
      if (c.sparse_collective == "gtopk") {
        // gTop-k: log2 p merges of two top-k sets on the way up, one payload to expand at the end.
        w.decompress_s = t.decompress_s * (1 + std::ceil(std::log2(std::max(ranks, 1))));
        w.exchanges.push_back({Kind::gtopk, msg.wire_size, 0});
        break;
      }
      [[fallthrough]];
    case compressors::Aggregation::kMajorityVote:
      // Every receiver expands and sums each worker's payload.
      w.decompress_s = t.decompress_s * ranks;
      w.exchanges.push_back({Kind::allgather, msg.wire_size, 0});
      break;
    case compressors::Aggregation::kLowRank:
      w.decompress_s = t.decompress_s;
      w.exchanges.push_back({Kind::allreduce, msg.wire_size, 0});
      w.exchanges.push_back({Kind::allreduce, q.wire_size, t.next_round_s});
      break;
  }
  return w;
}

std::string settings_key(const scenario::Scenario& s, int ranks) {
  std::ostringstream key;
  const scenario::Compression& c = s.compression;
  key << c.compressor << '|' << c.device << '|' << s.numerics.seed << '|' << c.error_feedback << '|' << c.sparse_collective << '|' << c.gradient << '|' << c.gradient_scale << '|' << c.seed
      << '|' << static_cast<int>(c.kernel_time) << '|' << c.kernel_Bps.value_or(0) << '|' << ranks << '|'
      << s.gpu.name << '|' << s.gpu.memory_Bps << '|' << s.gpu.memory_efficiency << '|' << s.gpu.fp32_flops << '|'
      << s.gpu.compute_efficiency;
  for (const auto& [name, value] : c.options)
    std::visit([&](const auto& v) { key << '|' << name << '=' << v; }, value);
  for (const auto& [name, value] : c.feedback_options)
    std::visit([&](const auto& v) { key << "|feedback." << name << '=' << v; }, value);
  return key.str();
}

}  // namespace

double layer_gradient_scale(const std::string& name, const scenario::Compression& c) {
  double scale = c.gradient_scale;
  std::size_t longest = 0;
  for (const auto& [prefix, value] : c.layer_scales)
    if (name.rfind(prefix, 0) == 0 && prefix.size() >= longest) {
      longest = prefix.size();
      scale = value;
    }
  return scale;
}

GradientPieces model_gradient_pieces(const scenario::Scenario& s) {
  GradientPieces pieces;
  std::int64_t offset = 0;
  for (const models::Layer& layer : s.model.layers)
    for (const models::Tensor& t : layer.tensors) {
      pieces.push_back({{t.numel(), layer_gradient_scale(layer.name, s.compression), offset}});
      offset += t.numel();
    }
  return pieces;
}

std::vector<scheduling::BucketWork> compression_work(const scenario::Scenario& s,
                                                     const std::vector<scheduling::Bucket>& buckets,
                                                     const GradientPieces& pieces, int ranks, std::string& note,
                                                     std::span<const float> real_gradient) {
  static std::map<std::string, scheduling::BucketWork> cache;
  const scenario::Compression& c = s.compression;
  const double gpu_Bps = s.gpu.memory_Bps * s.gpu.memory_efficiency;
  const std::string input = real_gradient.empty() ? "" : " on numerics mode's real gradient";
  double to_target = 1.0;
  if (c.kernel_time == scenario::KernelTime::model) {
    note = fmt::format("{} kernels{} timed by the kernel model on the {} (memory passes at {:.0f} GB/s, {:.0f} us "
                       "per launch; reproducible)",
                       c.compressor, input, s.gpu.name, gpu_Bps / 1e9, kKernelLaunch_s * 1e6);
  } else if (c.kernel_time == scenario::KernelTime::fixed) {
    note = fmt::format("{} kernels{} timed at a fixed {:.3g} GB/s of fp32 input", c.compressor, input, *c.kernel_Bps / 1e9);
  } else if (c.device == "cuda") {
    const std::unique_ptr<compressors::device::Device> device = compressors::device::make_device("cuda");
    std::string model = device->model();
    std::transform(model.begin(), model.end(), model.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (model.find(s.gpu.name) != std::string::npos) {
      note = fmt::format("{} kernels ran{} on the target GPU ({}, device = \"cuda\"): measured kernel times used as "
                         "they are", c.compressor, input, device->model());
    } else {
      to_target = device->copy_Bps() / gpu_Bps;
      note = fmt::format("{} kernels ran{} on the CUDA device {} (device = \"cuda\", copy {:.1f} GB/s), not the "
                         "target; times scaled by {:.4f} to the {} ({:.0f} GB/s effective)",
                         c.compressor, input, device->model(), device->copy_Bps() / 1e9, to_target, s.gpu.name,
                         gpu_Bps / 1e9);
    }
  } else {
    to_target = host_copy_Bps() / gpu_Bps;
    note = fmt::format("{} kernels ran{} on the host CPU (device = \"cpu\", copy {:.1f} GB/s); times scaled by {:.4f} "
                       "to the {} ({:.0f} GB/s effective)",
                       c.compressor, input, host_copy_Bps() / 1e9, to_target, s.gpu.name, gpu_Bps / 1e9);
  }
  const std::string settings = settings_key(s, ranks);
  std::vector<scheduling::BucketWork> work;
  for (const scheduling::Bucket& b : buckets) {
    const std::vector<Segment> segments = bucket_segments(b, pieces);
    std::string key = settings + '#' + std::to_string(b.bytes);
    for (const Segment& seg : segments)
      key += real_gradient.empty() ? fmt::format("|{}x{}", seg.elements, seg.piece->scale)
                                   : fmt::format("|o{}:{}", seg.piece->offset, seg.elements);
    auto it = cache.find(key);
    if (it == cache.end())
      it = cache.emplace(key, measure(bucket_gradient(segments, real_gradient, c), s, ranks)).first;
    scheduling::BucketWork w = it->second;
    w.compress_s *= to_target;
    w.decompress_s *= to_target;
    for (scheduling::Exchange& e : w.exchanges) e.before_s *= to_target;
    work.push_back(std::move(w));
  }
  return work;
}

}  // namespace dtsim::run
