#include "sim/parallel/framework.hpp"

#include <algorithm>
#include <array>
#include <numeric>

#include "sim/core/error.hpp"

namespace dtsim::parallel {
namespace {

constexpr std::array<std::string_view, 4> kFrameworks{"generic", "fsdp", "deepspeed", "megatron"};
constexpr std::array<std::string_view, 3> kBackwardPrefetch{"backward_pre", "backward_post", "none"};

/// One element-wise pass: read `read` bytes, write `written` bytes.
double pass(double elements, double read, double written) { return elements * (read + written); }

}  // namespace

std::vector<std::string> framework_names() { return {kFrameworks.begin(), kFrameworks.end()}; }

Framework parse_framework(std::string_view name) {
  for (std::size_t i = 0; i < kFrameworks.size(); ++i)
    if (kFrameworks[i] == name) return static_cast<Framework>(i);
  throw core::unknown_name("framework", name, framework_names());
}

std::string_view framework_name(Framework f) { return kFrameworks[static_cast<std::size_t>(f)]; }

std::vector<std::string> backward_prefetch_names() { return {kBackwardPrefetch.begin(), kBackwardPrefetch.end()}; }

BackwardPrefetch parse_backward_prefetch(std::string_view name) {
  for (std::size_t i = 0; i < kBackwardPrefetch.size(); ++i)
    if (kBackwardPrefetch[i] == name) return static_cast<BackwardPrefetch>(i);
  throw core::unknown_name("backward_prefetch", name, backward_prefetch_names());
}

GatherOrder gather_order(const FrameworkOptions& f, bool backward) {
  if (f.framework != Framework::fsdp) return {};  // generic: two ahead, own streams; deepspeed: its own fetch rule
  // Forward: unit k's all-gather is issued once the rate limiter has synchronised on the free event of unit k - 2
  // (_FreeEventQueue.dequeue_if_needed with two pending frees), i.e. after unit k - 2's forward; without the limiter
  // the CPU runs ahead and issues every all-gather at once (torch/distributed/fsdp/_runtime_utils.py, _unshard).
  if (!backward) return {f.limit_all_gathers ? 2 : 0, true, false};
  switch (f.backward_prefetch) {
    case BackwardPrefetch::backward_pre:  // unit k+1's all-gather before unit k's gradient computation
      return {2, true, false};
    case BackwardPrefetch::backward_post:  // after unit k's gradient computation, before its reduce-scatter
      return {1, true, true};
    case BackwardPrefetch::none:  // in unit k+1's pre-backward hook, behind unit k's reduce-scatter
      return {1, true, false};
  }
  return {};
}

int gradient_predivide_factor(int world) {
  int factor = 1;
  while (world % factor == 0 && world / factor > factor) factor *= 2;
  return factor;
}

FsdpCopies fsdp_copies(double parameters, int world, double parameter, double reduced, bool accumulate) {
  constexpr double kMaster = 4;  // FSDP keeps the sharded flat parameter and its gradient in fp32 (param dtype)
  const double shard = parameters / world;
  const int pre = gradient_predivide_factor(world);
  FsdpCopies c;
  if (parameter != kMaster) c.before_gather.add(pass(shard, kMaster, parameter));
  if (reduced != parameter) c.before_reduce.add(pass(parameters, parameter, reduced));
  if (pre > 1) c.before_reduce.add(pass(parameters, reduced, reduced));
  if (world > pre) c.after_reduce.add(pass(shard, reduced, reduced));  // post-divide by world / pre
  if (reduced != kMaster) c.after_reduce.add(pass(shard, reduced, kMaster));
  if (accumulate) c.after_reduce.add(pass(shard, 2 * kMaster, kMaster));
  return c;
}

FsdpCopies deepspeed_copies(double parameters, int world, double parameter, double reduced, bool accumulate) {
  constexpr double kMaster = 4;  // the fp32 gradient partition the optimizer steps on
  const double shard = parameters / world;
  FsdpCopies c;
  c.before_reduce.add(pass(parameters, parameter, reduced));  // param.grad copied (and cast) into the bucket
  c.after_reduce.add(pass(shard, accumulate ? reduced + kMaster : reduced, kMaster));
  return c;
}

std::int64_t megatron_bucket_size(const FrameworkOptions& f, int data, bool first_stage_and_chunk) {
  if (!f.overlap_grad_reduce || !first_stage_and_chunk) return 0;
  return f.bucket_size > 0 ? f.bucket_size : std::max<std::int64_t>(40'000'000, 1'000'000LL * data);
}

std::vector<MegatronBucket> megatron_buckets(const std::vector<std::int64_t>& tensors, std::int64_t bucket_size, int data,
                                             bool distributed_optimizer) {
  auto pad = [](std::int64_t index, std::int64_t divisor) { return (index + divisor - 1) / divisor * divisor; };
  const std::int64_t param_divisor = distributed_optimizer ? 64 : 1;                       // pad_param_start
  const std::int64_t bucket_divisor = distributed_optimizer ? std::lcm<std::int64_t>(data, 128) : 1;  // pad_bucket_end
  std::vector<MegatronBucket> buckets;
  std::int64_t start = 0, bucket_start = 0, end = 0;
  bool open = false;
  MegatronBucket b;
  auto close = [&] {
    const std::int64_t bucket_end = pad(end, bucket_divisor);
    b.elements = bucket_end - bucket_start;
    buckets.push_back(b);
    bucket_start = start = bucket_end;
    open = false;
  };
  for (std::size_t k = tensors.size(); k-- > 0;) {
    start = pad(start, param_divisor);
    end = start + tensors[k];
    if (!open) b.last_tensor = static_cast<int>(k), open = true;
    b.first_tensor = static_cast<int>(k);
    if (bucket_size > 0 && end - bucket_start >= bucket_size) close();
    else start = end;
  }
  if (open) close();
  return buckets;
}

std::int64_t fetched_elements(const std::vector<std::int64_t>& tensors, std::int64_t persistence_threshold) {
  std::int64_t elements = 0;
  for (std::int64_t n : tensors)
    if (n >= persistence_threshold) elements += n;
  return elements;
}

std::vector<int> prefetched_at(const std::vector<std::int64_t>& elements, std::int64_t bucket) {
  std::vector<int> at(elements.size());
  for (std::size_t j = 0; j < elements.size(); ++j) {
    at[j] = static_cast<int>(j);
    if (j == 0 || bucket <= 0) continue;
    std::int64_t between = 0;  // elements[i+1 .. j-1]
    for (std::size_t i = j; i-- > 0;) {
      if (between >= bucket) break;
      at[j] = static_cast<int>(i);
      between += elements[i];
    }
  }
  return at;
}

std::vector<PassGather> pass_gathers(const FrameworkOptions& f, const std::vector<std::vector<std::int64_t>>& fetches,
                                     bool backward) {
  std::vector<PassGather> gathers;
  if (f.framework != Framework::deepspeed) {
    const int depth = gather_order(f, backward).depth;
    for (std::size_t k = 0; k < fetches.size(); ++k) {
      std::int64_t elements = 0;
      for (std::int64_t n : fetches[k]) elements += n;
      const int after = depth == 0 ? -1 : static_cast<int>(k) - depth;
      gathers.push_back({static_cast<int>(k), elements, after < 0 ? -1 : after});
    }
    return gathers;
  }
  std::vector<std::int64_t> elements;
  std::vector<int> unit_of;
  for (std::size_t k = 0; k < fetches.size(); ++k)
    for (std::int64_t n : fetches[k])
      if (n > 0) elements.push_back(n), unit_of.push_back(static_cast<int>(k));
  const std::vector<int> at = prefetched_at(elements, f.prefetch_bucket_size);
  for (std::size_t j = 0; j < elements.size(); ++j)
    gathers.push_back({unit_of[j], elements[j], unit_of[static_cast<std::size_t>(at[j])] - 1});
  return gathers;
}

}  // namespace dtsim::parallel
