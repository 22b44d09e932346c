#include "sim/calibration/profile_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>

#include "models/attention_time.hpp"
#include "models/gemm_time.hpp"
#include "sim/calibration/csv_fields.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace dtsim::calibration {
namespace {

/// A GEMM operator: the inputs holding A (... x m x k) and B (... x k x n); batched when they have a third dimension.
struct GemmOp {
  std::string_view name;
  std::size_t a;
  std::size_t b;
};
constexpr GemmOp kGemmOps[] = {{"aten::mm", 0, 1}, {"aten::addmm", 1, 2}, {"aten::bmm", 0, 1}, {"aten::baddbmm", 1, 2}};

/// A FlashAttention operator: its query input, whether that is (batch, heads, tokens, dim) or (batch, tokens, heads,
/// dim), and its is_causal input (ATen's native_functions.yaml signatures).
struct AttentionOp {
  std::string_view name;
  std::size_t query;
  bool heads_first;
  std::size_t causal;
  models::AttentionPass pass;
};
constexpr AttentionOp kAttentionOps[] = {
    {"aten::_scaled_dot_product_flash_attention", 0, true, 4, models::AttentionPass::forward},
    {"aten::_scaled_dot_product_flash_attention_backward", 1, true, 11, models::AttentionPass::backward},
    {"aten::_flash_attention_forward", 0, false, 8, models::AttentionPass::forward},
    {"aten::_flash_attention_backward", 1, false, 11, models::AttentionPass::backward},
};

/// PyTorch's "Input type" names: bytes per element and, for GEMMs, the precision.
struct DataType {
  std::string_view name;
  double bytes;
  std::optional<models::Precision> precision;
};
constexpr DataType kTypes[] = {{"c10::BFloat16", 2, models::Precision::bf16},
                               {"c10::Half", 2, models::Precision::fp16},
                               {"float", 4, models::Precision::fp32},
                               {"c10::Float8_e4m3fn", 1, models::Precision::fp8},
                               {"c10::Float8_e5m2", 1, models::Precision::fp8},
                               {"double", 8, std::nullopt},
                               {"long int", 8, std::nullopt},
                               {"int", 4, std::nullopt},
                               {"short int", 2, std::nullopt},
                               {"bool", 1, std::nullopt},
                               {"unsigned char", 1, std::nullopt},
                               {"signed char", 1, std::nullopt}};

const DataType* data_type(const TraceOp& op, std::size_t input) {
  if (input >= op.types.size()) return nullptr;
  for (const DataType& t : kTypes)
    if (t.name == op.types[input]) return &t;
  return nullptr;
}

/// The precision of `op`'s input: from its recorded type, else `fallback` when none was recorded.
std::optional<models::Precision> precision_of(const TraceOp& op, std::size_t input, models::Precision fallback) {
  if (input >= op.types.size() || op.types[input].empty()) return fallback;
  const DataType* t = data_type(op, input);
  return t ? t->precision : std::nullopt;
}

/// One operator instance: its kernels' GPU time and its family (that of its longest kernel).
struct OpRun {
  int op = -1;
  double time_s = 0;
  double longest_s = -1;
  KernelFamily family = KernelFamily::elementwise;
  bool hopper_attention = false;  ///< a FlashAttention-3 (Sm90) kernel
};

/// measured = c x modelled, least squares weighted by time: c = sum(x y) / sum(x^2); errors of c x against y.
struct Points {
  std::vector<double> x;
  std::vector<double> y;
  void add(double modelled, double measured) {
    x.push_back(modelled);
    y.push_back(measured);
  }
  double slope() const {
    double xy = 0, xx = 0;
    for (std::size_t i = 0; i < x.size(); ++i) xy += x[i] * y[i], xx += x[i] * x[i];
    return xy / xx;
  }
};

void set_errors(ConstantFit& f, const std::vector<double>& predicted, const std::vector<double>& measured) {
  double squares = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const double e = std::abs(predicted[i] - measured[i]) / measured[i];
    squares += e * e;
    f.max_relative_error = std::max(f.max_relative_error, e);
  }
  f.points = static_cast<int>(predicted.size());
  f.rms_relative_error = predicted.empty() ? 0 : std::sqrt(squares / static_cast<double>(predicted.size()));
}

/// Fits c and records 1 / c (an efficiency or scale: modelled at 1 over measured).
void fit_inverse(ConstantFit& f, const Points& p) {
  if (p.x.empty()) return;
  const double c = p.slope();
  f.fitted = 1 / c;
  std::vector<double> predicted;
  for (double x : p.x) predicted.push_back(c * x);
  set_errors(f, predicted, p.y);
}

void refuse_above_peak(const ConstantFit& f, const KinetoTrace& trace, const models::GpuProfile& base) {
  if (f.points > 0 && f.fitted > 1)
    throw core::InputError(trace.path + ": " + f.what + " fitted to " + fmt::format("{:.4g}", f.fitted) + " on '" +
                               base.name + "'",
                           "at most 1: the trace's kernels ran faster than the " + base.name +
                               "'s peak; give --gpu the GPU that was profiled");
}

std::int64_t elements(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::optional<models::Gemm> gemm_of(const TraceOp& op, const GemmOp& g) {
  if (op.dims.size() <= std::max(g.a, g.b)) return std::nullopt;
  const auto& a = op.dims[g.a];
  const auto& b = op.dims[g.b];
  const bool batched = a.size() == 3 && b.size() == 3;
  if (!batched && !(a.size() == 2 && b.size() == 2)) return std::nullopt;
  const std::size_t r = batched ? 1 : 0;
  if (a[r + 1] != b[r]) return std::nullopt;
  models::Gemm gemm{a[r], b[r + 1], a[r + 1], batched ? a[0] : 1, batched};
  if (gemm.m < 1 || gemm.n < 1 || gemm.k < 1 || gemm.count < 1) return std::nullopt;
  return gemm;
}

/// Bytes an element-wise operator moves: its tensor inputs read once, one output the size of the largest written.
std::optional<double> elementwise_bytes(const TraceOp& op) {
  double bytes = 0, largest = 0;
  for (std::size_t i = 0; i < op.dims.size(); ++i) {
    if (op.dims[i].empty()) continue;
    const DataType* t = data_type(op, i);
    if (!t) continue;
    const double b = t->bytes * static_cast<double>(elements(op.dims[i]));
    bytes += b;
    largest = std::max(largest, b);
  }
  if (!(largest > 0)) return std::nullopt;
  return bytes + largest;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

ConstantFit launch_gap_fit(const KinetoTrace& trace, const models::LaunchCosts& built_in) {
  ConstantFit f{"launch_gap", "GPU gap between kernels", built_in.gap_s, 0, 0, 0, 0, 0};
  std::map<std::string, const TraceKernel*> last;  // stream -> its previous kernel
  std::vector<double> gaps;
  for (const TraceKernel& k : trace.kernels) {
    if (k.family == KernelFamily::nccl) continue;
    const TraceKernel*& before = last[k.stream];
    if (before && k.launch_start_s) {
      if (k.launch_end_s <= before->end_s && k.start_s >= before->end_s) gaps.push_back(k.start_s - before->end_s);
      else ++f.left_out;  // launch-bound: the CPU issued it after the stream had finished the one before
    }
    before = &k;
  }
  if (gaps.empty()) return f;
  double sum = 0;
  for (double g : gaps) sum += g;
  f.fitted = sum / static_cast<double>(gaps.size());
  set_errors(f, std::vector<double>(gaps.size(), f.fitted), gaps);
  return f;
}

ConstantFit dispatch_fit(const KinetoTrace& trace, const models::LaunchCosts& built_in) {
  ConstantFit f{"launch_dispatch", "CPU dispatch per kernel", built_in.dispatch_s, 0, 0, 0, 0, 0};
  std::map<std::string, std::vector<double>> starts;
  for (const TraceKernel& k : trace.kernels)
    if (k.launch_start_s) starts[k.launch_thread].push_back(*k.launch_start_s);
  std::vector<double> intervals;
  for (auto& [thread, s] : starts) {
    std::sort(s.begin(), s.end());
    for (std::size_t i = 1; i < s.size(); ++i) intervals.push_back(s[i] - s[i - 1]);
  }
  if (intervals.empty()) return f;
  f.fitted = median(intervals);
  std::vector<double> kept;
  for (double d : intervals) (d <= 3 * f.fitted && d > 0 ? kept.push_back(d) : void(++f.left_out));
  set_errors(f, std::vector<double>(kept.size(), f.fitted), kept);
  return f;
}

std::string percent(double x) { return fmt::format("{:.2f} %", 100 * x); }

std::string value_text(const ConstantFit& f, double v) {
  return f.key.rfind("launch_", 0) == 0 ? core::format_duration(v) : fmt::format("{:.4g}", v);
}

}  // namespace

ProfileFit fit_profile(const KinetoTrace& trace, const models::GpuProfile& base, models::Precision precision) {
  ProfileFit fit;
  fit.trace = trace.path;
  fit.steps = trace.steps;
  fit.fitted = base;
  std::map<KernelFamily, double> time;
  std::map<KernelFamily, int> count;
  std::map<int, OpRun> runs;
  std::map<KernelFamily, int> without_op;
  for (const TraceKernel& k : trace.kernels) {
    time[k.family] += k.end_s - k.start_s;
    ++count[k.family];
    if (k.op < 0) {
      ++without_op[k.family];
      continue;
    }
    OpRun& r = runs[k.op];
    r.op = k.op;
    r.time_s += k.end_s - k.start_s;
    r.hopper_attention = r.hopper_attention || lower(k.name).find("sm90") != std::string::npos;
    if (k.end_s - k.start_s > r.longest_s) r.longest_s = k.end_s - k.start_s, r.family = k.family;
  }
  for (KernelFamily f : kKernelFamilies)
    if (count.contains(f)) {
      fit.per_step_s.push_back({f, time[f] / trace.steps});
      fit.kernels.push_back({f, count[f]});
    }

  // Element-wise first: the GEMM fit needs the memory efficiency to tell memory-bound GEMMs apart.
  ConstantFit memory{"memory_efficiency", "memory efficiency of element-wise kernels", base.memory_efficiency,
                     0, 0, without_op[KernelFamily::elementwise], 0, 0};
  ConstantFit gemm{"gemm_efficiency", "GEMM efficiency", base.gemm_efficiency, 0, 0, without_op[KernelFamily::gemm],
                   0, 0};
  ConstantFit attention{"attention_scale", "FlashAttention throughput over the published", base.attention_scale,
                        0, 0, without_op[KernelFamily::attention], 0, 0};
  Points memory_points, attention_points;
  std::vector<std::pair<models::Gemm, const OpRun*>> gemms;
  std::vector<models::Precision> gemm_precisions;
  for (const auto& [index, r] : runs) {
    const TraceOp& op = trace.ops[static_cast<std::size_t>(index)];
    if (r.family == KernelFamily::elementwise) {
      const auto bytes = elementwise_bytes(op);
      if (bytes && r.time_s > 0) memory_points.add(*bytes / base.memory_Bps, r.time_s);
      else ++memory.left_out;
    } else if (r.family == KernelFamily::gemm) {
      const GemmOp* g = nullptr;
      for (const GemmOp& candidate : kGemmOps)
        if (candidate.name == op.name) g = &candidate;
      const auto shape = g ? gemm_of(op, *g) : std::nullopt;
      const auto p = g ? precision_of(op, g->a, precision) : std::nullopt;
      if (shape && p && *p != models::Precision::fp8 && r.time_s > 0) {
        gemms.push_back({*shape, &r});
        gemm_precisions.push_back(*p);
      } else {
        ++gemm.left_out;
      }
    } else if (r.family == KernelFamily::attention) {
      const AttentionOp* a = nullptr;
      for (const AttentionOp& candidate : kAttentionOps)
        if (candidate.name == op.name) a = &candidate;
      const bool shaped = a && op.dims.size() > a->query && op.dims[a->query].size() == 4 && op.concrete.size() > a->causal &&
                          (op.concrete[a->causal] == "True" || op.concrete[a->causal] == "False");
      const auto p = a ? precision_of(op, a->query, precision) : std::nullopt;
      if (!shaped || !p || r.time_s <= 0) {
        ++attention.left_out;
        continue;
      }
      const auto& q = op.dims[a->query];
      const models::AttentionShape s{static_cast<double>(q[0] * (a->heads_first ? q[1] : q[2])),
                                     a->heads_first ? q[2] : q[1], q[3], op.concrete[a->causal] == "True"};
      models::GpuProfile unscaled = base;
      unscaled.attention_scale = 1;
      const auto version = r.hopper_attention ? models::Kernel::flash_attention3 : models::Kernel::flash_attention2;
      try {
        attention_points.add(models::attention_time_s(s, unscaled, *p, version, a->pass), r.time_s);
      } catch (const core::InputError& e) {
        throw core::InputError(trace.path + ": " + op.name, e.problem(), e.allowed());
      }
    }
  }
  fit_inverse(memory, memory_points);
  refuse_above_peak(memory, trace, base);
  if (memory.points > 0) fit.fitted.memory_efficiency = memory.fitted;

  // GEMMs: measured = compute time at efficiency 1 / efficiency, for those the fit leaves compute-bound.
  models::GpuProfile whole = fit.fitted;
  whole.gemm_efficiency = 1;
  whole.fp8_gemm_efficiency = 0;
  std::vector<double> x(gemms.size()), memory_s(gemms.size());
  for (std::size_t i = 0; i < gemms.size(); ++i) {
    try {
      x[i] = models::gemm_compute_time_s(gemms[i].first, whole, gemm_precisions[i]);
      memory_s[i] = models::gemm_memory_time_s(gemms[i].first, whole, gemm_precisions[i]);
    } catch (const core::InputError& e) {
      throw core::InputError(trace.path + ": GEMM on '" + base.name + "'", e.problem(), e.allowed());
    }
  }
  auto gemm_points = [&](double c) {
    Points p;
    for (std::size_t i = 0; i < gemms.size(); ++i)
      if (c * x[i] >= memory_s[i]) p.add(x[i], gemms[i].second->time_s);
    return p;
  };
  Points compute_bound = gemm_points(1);
  if (!compute_bound.x.empty()) compute_bound = gemm_points(compute_bound.slope());
  gemm.left_out += static_cast<int>(gemms.size() - compute_bound.x.size());
  fit_inverse(gemm, compute_bound);
  refuse_above_peak(gemm, trace, base);
  if (gemm.points > 0) {
    fit.fitted.gemm_efficiency = gemm.fitted;
    fit.fitted.fp8_gemm_efficiency = 0;
  }
  fit_inverse(attention, attention_points);
  if (attention.points > 0) fit.fitted.attention_scale = attention.fitted;

  const models::LaunchCosts launch = base.kernel_launch_costs();
  const ConstantFit gap = launch_gap_fit(trace, launch);
  const ConstantFit dispatch = dispatch_fit(trace, launch);
  if (gap.points > 0) fit.fitted.launch_gap_s = gap.fitted;
  if (dispatch.points > 0) fit.fitted.launch_dispatch_s = dispatch.fitted;
  fit.constants = {gemm, attention, memory, gap, dispatch};
  return fit;
}

std::vector<std::string> describe_profile_fit(const ProfileFit& fit) {
  std::vector<std::string> lines;
  int kernels = 0;
  for (const auto& [family, n] : fit.kernels) kernels += n;
  lines.push_back(fmt::format("{} kernels over {} step{} of {}", kernels, fit.steps, fit.steps == 1 ? "" : "s",
                              fit.trace));
  std::string per_step = "GPU time per step:";
  for (std::size_t i = 0; i < fit.per_step_s.size(); ++i)
    per_step += fmt::format("  {} {} ({} kernels)", family_name(fit.per_step_s[i].first),
                            core::format_duration(fit.per_step_s[i].second), fit.kernels[i].second);
  lines.push_back(per_step);
  for (const ConstantFit& f : fit.constants) {
    if (f.points == 0) {
      lines.push_back(fmt::format("{:<18} {} kept (nothing to fit{})", f.key, value_text(f, f.built_in),
                                  f.left_out > 0 ? fmt::format(": {} left out", f.left_out) : ""));
      continue;
    }
    lines.push_back(fmt::format("{:<18} {} fitted (built in {}) to {} points{}; error rms {}, max {}", f.key,
                                value_text(f, f.fitted), value_text(f, f.built_in), f.points,
                                f.left_out > 0 ? fmt::format(" ({} left out)", f.left_out) : "",
                                percent(f.rms_relative_error), percent(f.max_relative_error)));
  }
  return lines;
}

std::string calibration_toml(const ProfileFit& fit) {
  std::string out = "# dtsim calibrate: the " + fit.fitted.name + " profile's kernel constants fitted to a PyTorch "
                    "profiler trace\n# (name it in a scenario: [gpu] calibration = \"this file\")\n";
  for (const std::string& line : describe_profile_fit(fit)) out += "#   " + line + '\n';
  out += fmt::format("profile = \"{}\"\n", fit.fitted.name);
  for (const ConstantFit& f : fit.constants) {
    if (f.points == 0) continue;
    if (f.key.rfind("launch_", 0) == 0) out += fmt::format("{} = \"{:.6g}us\"\n", f.key, f.fitted * 1e6);
    else out += fmt::format("{} = {:.6g}\n", f.key, f.fitted);
  }
  return out;
}

std::string layer_times_csv(const KinetoTrace& trace) {
  if (trace.layer_ranges.empty())
    throw core::InputError(trace.path + ": no \"forward NAME\" or \"backward NAME\" ranges",
                           "record_function ranges named \"forward LAYER\" and \"backward LAYER\" around each layer's "
                           "passes (README: Calibration from a profiler trace)");
  std::map<std::string, double> time;  // range -> GPU time over the trace
  for (const TraceKernel& k : trace.kernels)
    if (!k.layer_pass.empty()) time[k.layer_pass] += k.end_s - k.start_s;
  std::vector<std::string> layers;
  for (const std::string& range : trace.layer_ranges) {
    const std::string name = range.substr(range.find(' ') + 1);
    if (std::find(layers.begin(), layers.end(), name) == layers.end()) layers.push_back(name);
  }
  std::string csv = "layer,forward_ms,backward_ms\n";
  for (const std::string& layer : layers) {
    auto has = [&](const std::string& pass) {
      return std::find(trace.layer_ranges.begin(), trace.layer_ranges.end(), pass + " " + layer) !=
             trace.layer_ranges.end();
    };
    for (const char* pass : {"forward", "backward"})
      if (!has(pass))
        throw core::InputError(trace.path + ": layer '" + layer + "' has no \"" + pass + " " + layer + "\" range",
                               "both a forward and a backward range for every layer");
    csv += fmt::format("{},{:.6g},{:.6g}\n", layer, time["forward " + layer] * 1e3 / trace.steps,
                       time["backward " + layer] * 1e3 / trace.steps);
  }
  return csv;
}

}  // namespace dtsim::calibration
