#include "sim/scheduling/framework.hpp"

#include <cmath>
#include <functional>

#include "sim/core/error.hpp"
#include "sim/scheduling/fusion.hpp"

namespace dtsim::scheduling {
namespace {

/// The scheduler's buckets go to the library as they are (no framework cost).
class NoFramework final : public Framework {
 public:
  std::string_view name() const override { return "none"; }
  std::vector<Bucket> carry(std::vector<Bucket> buckets, const SchedulingInput&, const FrameworkCosts&) const override {
    return buckets;
  }
};

/// Horovod's background thread (operations.cc RunLoopOnce): a round starts at the first cycle at or after the next
/// pending tensor is ready (cycle 0: when it is ready), and not before the previous round's negotiation ended; it
/// negotiates every tensor ready by its start in one round (one ComputeResponseList) and enqueues their responses
/// on the GPU stream when the round ends. Since Horovod 0.16.1 the thread does not wait for an operation to
/// finish: ops/cuda_operations.cc FinalizeCUDAQueue records an event, hands the completion to a finalizer thread
/// and returns, so the next round's negotiation overlaps the all-reduces still running (commit aa605d6d, "Refactor
/// operations into separate components by framework", in v0.16.1; a thread pool since v0.19.0). Returns each
/// item's round start (non-decreasing). When a round ends after the next cycle, the model starts the next round at
/// its end and keeps the cycles on their grid from the start of backward (Horovod sleeps the rest of a cycle from
/// its start: rounds of microseconds in cycles of milliseconds).
std::vector<double> negotiation_rounds(const std::vector<double>& ready_s, double cycle_s, double negotiation_s) {
  std::vector<double> start(ready_s.size());
  double ended = 0;  // the previous round's negotiation
  for (std::size_t i = 0; i < ready_s.size();) {
    const double ready = ready_s[i];
    const double cycle = cycle_s > 0 ? std::max(ready, std::max(1.0, std::ceil(ready / cycle_s)) * cycle_s) : ready;
    const double round = std::max(cycle, ended);
    for (; i < ready_s.size() && ready_s[i] <= round; ++i) start[i] = round;
    ended = round + negotiation_s;
  }
  return start;
}

/// Horovod: each bucket is one tensor handed to hvd.allreduce_async_ (a bucket of several gradients is first packed
/// into one by the caller, as MG-WFBP's optimizer does, and unpacked after: a copy kernel per gradient each way).
/// The background thread negotiates the tensors ready at each round (negotiation_rounds), fuses them in order up to
/// the threshold, and enqueues the responses after the round's negotiation; a response of several tensors is copied
/// into the fusion buffer before its all-reduce and out after it (one batched copy kernel each way, ops/
/// nccl_operations.cc MemcpyInFusionBuffer / MemcpyOutFusionBuffer); a response of one tensor is reduced in place.
class Horovod final : public Framework {
 public:
  explicit Horovod(const FrameworkOptions& o) : threshold_bytes_(o.horovod_fusion_threshold_bytes), cycle_s_(o.horovod_cycle_s) {}
  std::string_view name() const override { return "horovod"; }
  std::vector<Bucket> carry(std::vector<Bucket> buckets, const SchedulingInput& input,
                            const FrameworkCosts& costs) const override {
    std::vector<double> ready;
    std::vector<std::int64_t> bytes;
    for (const Bucket& b : buckets) {
      ready.push_back(input.ready_s(b));
      bytes.push_back(b.bytes);
    }
    // One round's tensors share its start: fusing them "as ready at the round" (cycle 0) groups exactly the round.
    const std::vector<double> rounds = negotiation_rounds(ready, cycle_s_, costs.negotiation_s);
    std::vector<Bucket> out;
    for (const CycleGroup& g : fuse_per_cycle(rounds, bytes, threshold_bytes_, 0)) {
      Bucket response;
      response.not_before_s = g.cycle_s + costs.negotiation_s;  // enqueued when its round's negotiation ends
      double packs_s = 0;
      for (int k = g.first; k < g.last; ++k) {
        const Bucket& b = buckets[static_cast<std::size_t>(k)];
        response.tensors.insert(response.tensors.end(), b.tensors.begin(), b.tensors.end());
        response.bytes += b.bytes;
        response.ready_layer = b.ready_layer;
        if (b.tensors.size() > 1) packs_s += costs.copy_s(b.bytes, b.tensors.size());
      }
      if (g.last - g.first > 1) packs_s += costs.copy_s(response.bytes, 1);
      response.framework_before_s = packs_s;
      response.framework_after_s = packs_s;
      out.push_back(std::move(response));
    }
    return out;
  }

 private:
  std::int64_t threshold_bytes_;
  double cycle_s_;
};

/// PyTorch DDP (gradient_as_bucket_view = False, the default): the autograd hook copies each gradient into its
/// bucket's flat tensor, and after the bucket's all-reduce each gradient is copied back out of it (reducer.cpp
/// mark_variable_ready_dense, finalize_bucket_dense): a copy kernel per gradient each way.
class Ddp final : public Framework {
 public:
  std::string_view name() const override { return "ddp"; }
  std::vector<Bucket> carry(std::vector<Bucket> buckets, const SchedulingInput&, const FrameworkCosts& costs) const override {
    for (Bucket& b : buckets) b.framework_before_s = b.framework_after_s = costs.copy_s(b.bytes, b.tensors.size());
    return buckets;
  }
};

struct Entry {
  std::string name;
  std::string description;
  std::function<std::unique_ptr<Framework>(const FrameworkOptions&)> make;
};

const std::vector<Entry>& registry() {
  static const std::vector<Entry> table{
      {"none", "the scheduler's buckets go to the collective library as they are, nothing around them",
       [](const FrameworkOptions&) { return std::make_unique<NoFramework>(); }},
      {"horovod", "Horovod: a negotiation every cycle, ready tensors fused up to the threshold, fusion-buffer copies",
       [](const FrameworkOptions& o) { return std::make_unique<Horovod>(o); }},
      {"ddp", "PyTorch DDP: every gradient copied into its flat bucket before the all-reduce and back after it",
       [](const FrameworkOptions&) { return std::make_unique<Ddp>(); }},
  };
  return table;
}

const Entry& find(std::string_view name) {
  for (const Entry& e : registry())
    if (e.name == name) return e;
  throw core::unknown_name("framework", name, framework_names());
}

}  // namespace

std::vector<std::string> framework_names() {
  std::vector<std::string> names;
  for (const Entry& e : registry()) names.push_back(e.name);
  return names;
}

std::string framework_description(std::string_view name) { return find(name).description; }

std::unique_ptr<Framework> make_framework(std::string_view name, const FrameworkOptions& options) {
  return find(name).make(options);
}

}  // namespace dtsim::scheduling
