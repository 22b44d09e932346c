#include "sim/calibration/kineto_trace.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "sim/calibration/csv_fields.hpp"
#include "sim/core/error.hpp"
#include "sim/core/printable.hpp"

namespace dtsim::calibration {
namespace {

using nlohmann::json;

const std::string kAllowed =
    "a PyTorch profiler trace (torch.profiler with activities CPU and CUDA, exported with export_chrome_trace): a "
    "JSON object whose traceEvents hold \"X\" events with a name, ts and dur in microseconds";

struct FamilyPattern {
  std::string_view fragment;
  KernelFamily family;
};

// The registry: first match wins, so NCCL and attention kernels (some of which are CUTLASS kernels) come first.
constexpr FamilyPattern kPatterns[] = {
    {"nccl", KernelFamily::nccl},         {"flash", KernelFamily::attention},
    {"fmha", KernelFamily::attention},    {"multi_tensor_apply", KernelFamily::optimizer},
    {"adam", KernelFamily::optimizer},    {"gemm", KernelFamily::gemm},
    {"sm80_xmma", KernelFamily::gemm},    {"sm90_xmma", KernelFamily::gemm},
    {"cutlass", KernelFamily::gemm},      {"nvjet", KernelFamily::gemm},
    {"ampere_", KernelFamily::gemm},      {"volta_", KernelFamily::gemm},
    {"turing_", KernelFamily::gemm},      {"hopper_", KernelFamily::gemm},
};

/// One interval on a CPU thread.
struct Interval {
  double start_s;
  double end_s;
  int index;
};

/// For each query (in any order), the index of the innermost interval containing it on the same thread, or -1.
/// Intervals of one thread nest (call stacks); queries of one thread do not overlap each other.
std::vector<int> innermost(std::map<std::string, std::vector<Interval>> outer,
                           std::map<std::string, std::vector<Interval>> queries, std::size_t query_count) {
  std::vector<int> found(query_count, -1);
  for (auto& [thread, qs] : queries) {
    std::vector<Interval>& os = outer[thread];
    std::sort(os.begin(), os.end(), [](const Interval& a, const Interval& b) {
      return a.start_s != b.start_s ? a.start_s < b.start_s : a.end_s > b.end_s;
    });
    std::sort(qs.begin(), qs.end(), [](const Interval& a, const Interval& b) { return a.start_s < b.start_s; });
    std::vector<const Interval*> open;
    std::size_t next = 0;
    for (const Interval& q : qs) {
      for (; next < os.size() && os[next].start_s <= q.start_s; ++next) {
        while (!open.empty() && open.back()->end_s < os[next].start_s) open.pop_back();
        open.push_back(&os[next]);
      }
      while (!open.empty() && open.back()->end_s < q.end_s) open.pop_back();
      if (!open.empty()) found[static_cast<std::size_t>(q.index)] = open.back()->index;
    }
  }
  return found;
}

/// "line:col" of byte `offset` of `text`.
std::string line_col(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const auto line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n') + 1;
  const std::size_t last = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
  const std::size_t column = last == std::string::npos ? offset + 1 : offset - last;
  return std::to_string(line) + ":" + std::to_string(column);
}

class EventReader {
 public:
  EventReader(const std::string& path, const json& event, std::size_t index) : path_(path), e_(event), i_(index) {}

  [[noreturn]] void fail(const std::string& problem, const std::string& allowed) const {
    std::string name;
    if (e_.is_object() && e_.contains("name") && e_["name"].is_string())
      name = " ('" + core::printable(e_["name"].get<std::string>()) + "')";
    throw core::InputError(path_ + ": traceEvents[" + std::to_string(i_) + "]" + name, problem, allowed);
  }
  std::string string(const char* key) const {
    if (!e_.contains(key) || !e_[key].is_string()) fail(std::string("no string \"") + key + "\"", kAllowed);
    return e_[key].get<std::string>();
  }
  /// A time in microseconds, as seconds.
  double time_s(const char* key) const {
    if (!e_.contains(key) || !e_[key].is_number())
      fail(std::string("no number \"") + key + "\"", "\"ts\" and \"dur\" in microseconds on every \"X\" event");
    const double us = e_[key].get<double>();
    if (!(us >= 0)) fail(std::string("\"") + key + "\" is negative", "times >= 0 microseconds");
    return us * 1e-6;
  }
  /// "pid/tid" (numbers or strings).
  std::string thread() const {
    auto text = [&](const char* key) {
      if (!e_.contains(key)) fail(std::string("no \"") + key + "\"", "\"pid\" and \"tid\" on every \"X\" event");
      return e_[key].is_string() ? e_[key].get<std::string>() : e_[key].dump();
    };
    return text("pid") + "/" + text("tid");
  }
  const json* arg(const char* key) const {
    if (!e_.contains("args") || !e_["args"].is_object() || !e_["args"].contains(key)) return nullptr;
    return &e_["args"][key];
  }
  std::optional<std::int64_t> correlation() const {
    const json* c = arg("correlation");
    if (!c) return std::nullopt;
    if (!c->is_number_integer()) fail("args.correlation is not a whole number", "Kineto's correlation ids");
    return c->get<std::int64_t>();
  }

 private:
  const std::string& path_;
  const json& e_;
  std::size_t i_;
};

TraceOp read_op(const EventReader& r, const std::string& name) {
  TraceOp op;
  op.name = name;
  if (const json* dims = r.arg("Input Dims")) {
    if (!dims->is_array()) r.fail("args \"Input Dims\" is not a list", "a list of shapes, one per input");
    for (const json& d : *dims) {
      std::vector<std::int64_t>& shape = op.dims.emplace_back();
      if (!d.is_array()) continue;  // a scalar or a list of tensors: no single shape
      for (const json& x : d) {
        if (!x.is_number_integer() || x.get<std::int64_t>() < 0)
          r.fail("args \"Input Dims\" holds " + x.dump(), "whole numbers >= 0 in each shape");
        shape.push_back(x.get<std::int64_t>());
      }
    }
  }
  auto strings = [&](const char* key, std::vector<std::string>& out) {
    if (const json* list = r.arg(key)) {
      if (!list->is_array()) r.fail(std::string("args \"") + key + "\" is not a list", "a list, one entry per input");
      for (const json& x : *list) out.push_back(x.is_string() ? x.get<std::string>() : "");
    }
  };
  strings("Input type", op.types);
  strings("Concrete Inputs", op.concrete);
  return op;
}

}  // namespace

std::string family_name(KernelFamily f) {
  switch (f) {
    case KernelFamily::gemm: return "gemm";
    case KernelFamily::attention: return "attention";
    case KernelFamily::nccl: return "nccl";
    case KernelFamily::optimizer: return "optimizer";
    case KernelFamily::elementwise: return "elementwise";
    case KernelFamily::memcpy: return "memcpy";
    case KernelFamily::memset: return "memset";
  }
  DTSIM_CHECK(false, "unknown KernelFamily value");
  return {};
}

KernelFamily kernel_family(const std::string& name) {
  const std::string l = lower(name);
  for (const FamilyPattern& p : kPatterns)
    if (l.find(p.fragment) != std::string::npos) return p.family;
  return KernelFamily::elementwise;
}

bool looks_like_json(const std::string& path) {
  std::ifstream in(path);
  char c = 0;
  while (in.get(c))
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{';
  return false;
}

KinetoTrace read_kineto_trace(const std::string& path) {
  require_readable(path, "profiler trace", kAllowed);
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 16: syntax error ...": the part after the place.
    if (const auto at = what.find(": ", what.find(", column ")); at != std::string::npos) what = what.substr(at + 2);
    throw core::InputError(path + ":" + line_col(text, e.byte == 0 ? 0 : e.byte - 1), "not JSON (" + what + ")",
                           kAllowed);
  }
  if (!root.is_object() || !root.contains("traceEvents") || !root["traceEvents"].is_array())
    throw core::InputError(path + ":1:1", "no \"traceEvents\" list at the top level", kAllowed);

  KinetoTrace trace;
  trace.path = path;
  trace.steps = 0;
  std::map<std::string, std::vector<Interval>> op_spans, range_spans, launches;
  std::vector<std::string> ranges;                      // "forward NAME" / "backward NAME" annotations
  std::map<std::int64_t, std::size_t> kernel_of;        // correlation -> kernel
  std::vector<std::pair<std::int64_t, Interval>> calls;  // (correlation, call on its thread)
  std::vector<std::string> call_threads;
  const json& events = root["traceEvents"];
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& e = events[i];
    EventReader r(path, e, i);
    if (!e.is_object()) r.fail("an event that is not an object", kAllowed);
    if (!e.contains("ph") || e["ph"] != "X" || !e.contains("cat") || !e["cat"].is_string()) continue;
    const std::string cat = e["cat"].get<std::string>();
    const bool device = cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
    const bool call = cat == "cuda_runtime" || cat == "cuda_driver";
    if (!device && !call && cat != "cpu_op" && cat != "user_annotation") continue;
    const std::string name = r.string("name");
    const double start = r.time_s("ts"), end = start + r.time_s("dur");
    const std::string thread = r.thread();
    if (device) {
      TraceKernel k{name, cat == "gpu_memcpy"   ? KernelFamily::memcpy
                          : cat == "gpu_memset" ? KernelFamily::memset
                                                : kernel_family(name),
                    start, end, thread, std::nullopt, 0, "", -1, ""};
      if (const auto c = r.correlation()) {
        const auto [at, fresh] = kernel_of.emplace(*c, trace.kernels.size());
        if (!fresh)
          r.fail("correlation id " + std::to_string(*c) + " is also that of kernel '" +
                     core::printable(trace.kernels[at->second].name) + "'",
                 "one GPU event per launch call (Kineto's correlation ids are unique)");
      }
      trace.kernels.push_back(std::move(k));
    } else if (call) {
      if (const auto c = r.correlation()) {
        calls.push_back({*c, {start, end, static_cast<int>(calls.size())}});
        call_threads.push_back(thread);
      }
    } else if (cat == "cpu_op") {
      op_spans[thread].push_back({start, end, static_cast<int>(trace.ops.size())});
      trace.ops.push_back(read_op(r, name));
    } else if (name.rfind("ProfilerStep#", 0) == 0) {
      ++trace.steps;
    } else if (name.rfind("forward ", 0) == 0 || name.rfind("backward ", 0) == 0) {
      range_spans[thread].push_back({start, end, static_cast<int>(ranges.size())});
      ranges.push_back(name);
      if (std::find(trace.layer_ranges.begin(), trace.layer_ranges.end(), name) == trace.layer_ranges.end())
        trace.layer_ranges.push_back(name);
    }
  }
  if (trace.kernels.empty())
    throw core::InputError(path + ":1:1", "no GPU kernel events (\"cat\": \"kernel\")",
                           kAllowed + ", profiled with ProfilerActivity.CUDA");
  if (trace.steps == 0) trace.steps = 1;

  // Each launch call: the kernel it launched, the operator and the layer range around it.
  std::map<std::string, std::vector<Interval>> queries;
  for (std::size_t c = 0; c < calls.size(); ++c) queries[call_threads[c]].push_back(calls[c].second);
  const std::vector<int> op_of = innermost(op_spans, queries, calls.size());
  const std::vector<int> range_of = innermost(range_spans, queries, calls.size());
  for (std::size_t c = 0; c < calls.size(); ++c) {
    const auto k = kernel_of.find(calls[c].first);
    if (k == kernel_of.end()) continue;  // a call that launched nothing recorded (cudaStreamSynchronize, ...)
    TraceKernel& kernel = trace.kernels[k->second];
    kernel.launch_start_s = calls[c].second.start_s;
    kernel.launch_end_s = calls[c].second.end_s;
    kernel.launch_thread = call_threads[c];
    kernel.op = op_of[c];
    if (range_of[c] >= 0) kernel.layer_pass = ranges[static_cast<std::size_t>(range_of[c])];
  }
  std::stable_sort(trace.kernels.begin(), trace.kernels.end(),
                   [](const TraceKernel& a, const TraceKernel& b) { return a.start_s < b.start_s; });
  return trace;
}

}  // namespace dtsim::calibration
