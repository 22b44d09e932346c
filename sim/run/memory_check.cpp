/// Communication buffers, by architecture and scheduler (the bytes are those of the simulated wire format):
/// - every architecture: the scheduler's bucket buffers (Scheduler::buffer_bytes: DDP's bucket copies, Horovod's
///   fusion buffer, packed buckets of several tensors; one-tensor buckets are reduced in place).
/// - the architecture's own (Architecture::add_buffers: a server's pulled aggregate and sums, gossip's
///   neighbours' models).
/// - compression: the largest bucket's payload and what its exchange receives (an all-gather every rank's),
///   and the error-feedback state: a residual (EF), or DGC's momentum and accumulation (Lin et al. 2018), and
///   signum's momentum.
#include "sim/run/memory_check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/fp8_recipe.hpp"
#include "models/optimizer.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/memory/activations.hpp"
#include "sim/memory/model_states.hpp"
#include "sim/run/architecture.hpp"
#include "sim/run/layout_run.hpp"
#include "sim/scenario/parallel_section.hpp"
#include "sim/run/numerics_run.hpp"
#include "sim/run/run_simulation.hpp"
#include "sim/scheduling/scheduler.hpp"

namespace dtsim::run {
namespace {

using memory::MemoryItem;

}  // namespace

MemoryItem bucket_buffers(const scenario::Scenario& s, const scheduling::IterationPlan& plan) {
  const auto scheduler = scheduling::make_scheduler(s.scheduler, s.scheduler_options);
  const auto bytes = static_cast<double>(scheduler->buffer_bytes(plan.buckets));
  return {"communication buffers", bytes, bytes > 0 ? scheduler->buffer_note() : ""};
}

MemoryItem compression_buffers(const scenario::Scenario& s, const scheduling::IterationPlan& plan, int ranks) {
  MemoryItem item{"compression buffers", 0, ""};
  double exchange = 0;
  for (const scheduling::BucketWork& w : plan.work) {
    double bytes = 0;
    for (const scheduling::Exchange& e : w.exchanges)
      bytes += static_cast<double>(e.bytes) * (e.kind == scheduling::Exchange::Kind::allgather ? 1 + ranks : 2);
    exchange = std::max(exchange, bytes);
  }
  const double gradient = gradient_wire_bytes(plan);
  const int state = (s.compression.error_feedback == "residual" ? 1
                     : s.compression.error_feedback == "dgc"    ? 2
                                                                : 0) +
                    (s.compression.compressor == "signum" ? 1 : 0);
  item.bytes = exchange + state * gradient;
  item.detail = fmt::format("largest bucket's payload sent and received, {} fp32 gradient-sized state{}", state,
                            state == 1 ? "" : "s");
  return item;
}

namespace {

/// Bytes of the parts called `names`.
double part(const memory::MemoryBreakdown& b, std::initializer_list<std::string_view> names) {
  double bytes = 0;
  for (const MemoryItem& i : b.items)
    if (std::find(names.begin(), names.end(), i.name) != names.end()) bytes += i.bytes;
  return bytes;
}

/// The breakdown at other settings, for the ways out.
memory::MemoryBreakdown with(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                             void (*change)(scenario::Scenario&)) {
  scenario::Scenario t = s;
  change(t);
  return memory_breakdown(t, plan);
}

std::string ways_out(const scenario::Scenario& s, const scheduling::IterationPlan& plan,
                     const memory::MemoryBreakdown& b) {
  std::vector<std::string> ways;
  const double activations = part(b, {"activations"});
  const double fixed = b.total_bytes() - activations;
  const double per_sample = activations / s.batch_size;
  if (fixed < b.capacity_bytes && per_sample > 0) {
    const auto batch = static_cast<std::int64_t>((b.capacity_bytes - fixed) / per_sample);
    if (batch >= 1) ways.push_back(fmt::format("batch_size = {} or less", batch));
  }
  const bool transformer =
      std::any_of(s.model.layers.begin(), s.model.layers.end(), [](const models::Layer& l) { return l.block >= 0; });
  if (transformer && s.memory.recomputation != memory::Recomputation::full) {
    const auto full =
        with(s, plan, [](scenario::Scenario& t) { t.memory.recomputation = memory::Recomputation::full; });
    ways.push_back(fmt::format("memory.activation_recomputation = \"full\" ({}{})",
                               core::format_bytes(full.total_bytes()), full.fits() ? "" : ", still too much"));
  }
  const bool half = s.precision == models::Precision::fp32 || s.precision == models::Precision::tf32;
  if (half && s.gpu.fp16_flops > 0) {
    const auto mixed = with(s, plan, [](scenario::Scenario& t) { t.precision = models::Precision::fp16; });
    ways.push_back(fmt::format("gpu.precision = \"fp16\", mixed precision ({}{})",
                               core::format_bytes(mixed.total_bytes()), mixed.fits() ? "" : ", still too much"));
  }
  ways.push_back(fmt::format("a GPU with at least {} (gpu.memory, or a platform with larger GPUs)",
                             core::format_bytes(b.total_bytes())));
  ways.push_back("memory.check = \"warn\" to run it anyway");
  std::string words;
  for (const std::string& way : ways) words += "\n    " + way;
  const double states = part(b, {"weights", "gradients", "optimizer state"});
  if (states > b.capacity_bytes)
    words += fmt::format(
        "\n  the model states alone ({}) exceed the GPU: under pure data parallelism every GPU "
        "holds a whole replica, so this model needs sharding ([parallel] sharding = \"zero3\") or tensor "
        "and pipeline parallelism ([parallel] tensor, pipeline)",
        core::format_bytes(states));
  return words;
}

}  // namespace

memory::MemoryBreakdown memory_breakdown(const scenario::Scenario& s, const scheduling::IterationPlan& plan) {
  memory::MemoryBreakdown b;
  b.gpu = s.gpu.name;
  b.where = "every worker";
  b.capacity_bytes = s.gpu.memory_bytes;
  const std::int64_t parameters = s.model.parameter_count();
  const models::Optimizer& optimizer = models::optimizer(s.memory.optimizer);
  const std::int64_t fp8_parameters = models::fp8_parameter_count(s.model);
  const memory::ModelStates states =
      memory::model_states(parameters, s.precision, s.gradient_dtype, optimizer, fp8_parameters, s.fp8_recipe);
  const std::string precision(models::precision_name(s.precision));
  const double e = memory::element_bytes(s.precision);
  b.items.push_back(
      {"weights", states.weights_bytes, fmt::format("{} parameters x {} B ({})", core::format_count(parameters), e, precision)});
  b.items.push_back({"gradients", states.gradients_bytes,
                     fmt::format("{} B each ({})", memory::element_bytes(s.gradient_dtype),
                                 models::precision_name(s.gradient_dtype))});
  b.items.push_back({"optimizer state", states.optimizer_bytes,
                     fmt::format("{}: {} fp32 state{}{}", optimizer.name, optimizer.state_words,
                                 optimizer.state_words == 1 ? "" : "s", e < 4 ? " + fp32 master weights" : "")});
  if (s.precision == models::Precision::fp8)
    b.items.push_back({"fp8 weight copies", states.fp8_weight_bytes,
                       fmt::format("{} Linear-layer parameters x {} B ({} recipe)", core::format_count(fp8_parameters),
                                   models::fp8_weight_copy_bytes(s.fp8_recipe), models::fp8_recipe_name(s.fp8_recipe))});
  const bool known = memory::knows_activations(s.model);
  b.items.push_back(
      {"activations", known ? memory::activation_bytes(s.model, s.batch_size, s.precision, s.memory.recomputation) : 0,
       fmt::format("batch {}, recomputation {}", s.batch_size, memory::recomputation_name(s.memory.recomputation))});
  if (!known) b.notes.push_back("activations (the layer table gives no shapes)");
  MemoryItem buffers = bucket_buffers(s, plan);
  architecture_named(s.architecture).add_buffers(s, plan, s.workers, buffers, b.where);
  if (buffers.detail.empty()) buffers.detail = "none: every gradient is reduced in place";
  b.items.push_back(buffers);
  if (!s.compression.compressor.empty()) b.items.push_back(compression_buffers(s, plan, s.workers));
  b.items.push_back({"workspace", s.gpu.workspace_bytes, "cuBLAS workspace (PyTorch's default)"});
  b.notes.push_back("the CUDA context, NCCL's buffers and the allocator's fragmentation (no published figure)");
  return b;
}

memory::MemoryBreakdown check_memory(const scenario::Scenario& s, const scheduling::IterationPlan& plan) {
  memory::MemoryBreakdown b = memory_breakdown(s, plan);
  if (b.fits() || !s.memory.refuse) return b;
  std::string breakdown;
  for (const std::string& line : b.lines()) breakdown += "\n" + line;
  throw core::InputError(
      s.source,
      fmt::format("{} at batch {} needs {} per GPU ({}), more than the {}'s {}", s.model.name, s.batch_size,
                  core::format_bytes(b.total_bytes()), b.where, s.gpu.name, core::format_bytes(b.capacity_bytes)),
      "make it fit with one of:" + ways_out(s, plan, b) + "\n  the breakdown:" + breakdown);
}

memory::MemoryBreakdown check_memory(const scenario::Scenario& s) {
  if (scenario::uses_layout(s)) return check_layout_memory(s);
  const std::vector<float> real_gradient =
      s.compression.gradient == "numerics" ? numerics_gradient(s) : std::vector<float>{};
  return check_memory(s, make_iteration_plan(s, nullptr, real_gradient));
}

}  // namespace dtsim::run
