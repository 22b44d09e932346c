#include "sim/scenario/load.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compressors/error_feedback.hpp"
#include "compressors/device/device_compressor.hpp"
#include "compressors/registry.hpp"
#include "models/fp8_recipe.hpp"
#include "models/layer_table.hpp"
#include "sim/calibration/layer_profile.hpp"
#include "models/zoo.hpp"
#include "sim/memory/activations.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/nccl_in_network.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/core/digest.hpp"
#include "sim/core/embedded_files.hpp"
#include "sim/sync/scheme.hpp"
#include "sim/core/version.hpp"
#include "sim/scenario/overrides.hpp"
#include "sim/scenario/platform_section.hpp"
#include "sim/scenario/key_hints.hpp"
#include "sim/scenario/keys.hpp"
#include "models/flash_attention.hpp"
#include "models/fused_kernels.hpp"
#include "sim/scenario/numerics_section.hpp"
#include "sim/scenario/parallel_section.hpp"
#include "sim/scenario/section.hpp"
#include "sim/scenario/shape_section.hpp"
#include "sim/scenario/toml_file.hpp"
#include "sim/scenario/failures_section.hpp"
#include "sim/scenario/strategy_section.hpp"
#include "sim/scenario/stragglers_section.hpp"
#include "sim/scheduling/scheduler.hpp"

namespace dtsim::scenario {
namespace fs = std::filesystem;
namespace {

constexpr const char* kDefaultScenario = "scenarios/default.toml";

toml::table parse_toml(std::string_view text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw core::InputError(where(e.source()), std::string(e.description()), "the file must be valid TOML v1.0");
  }
}

std::string read_file(const std::string& path, const std::string& referrer, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::InputError(referrer, "cannot read " + what + " '" + path + "'", "give the path of a readable file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A platform reference: a built-in name ("v100_4x4_10gbe") or a path relative to the scenario's folder.
toml::table platform_table(const std::string& ref, const std::string& ref_where, const fs::path& base,
                           std::string& source) {
  if (ref.find('/') == std::string::npos && !ref.ends_with(".toml")) {
    const std::string path = "platforms/" + ref + ".toml";
    const auto text = core::embedded_file(path);
    if (!text) throw core::unknown_name("platform", ref, builtin_platform_names()).at(ref_where);
    source = "built-in " + ref;
    return parse_toml(*text, path);
  }
  const std::string path = (base / ref).lexically_normal().string();
  source = path;
  return parse_toml(read_file(path, ref_where, "platform file"), path);
}

models::Layer table_layer(Section& s) {
  allow_keys(s, "model.layers");
  models::Layer layer;
  layer.name = s.required_string("name");
  const KeySpec& parameters = key_spec("model.layers", "parameters");
  const std::int64_t params = s.integer("parameters", 0, parameters.min, parameters.max);
  if (params > 0) layer.tensors.push_back({layer.name + ".weight", {params}});
  if (s.has("forward_flops")) {
    layer.forward_flops = s.number("forward_flops", 0, 1e18);
  } else {
    models::MeasuredTime t;
    t.forward_s = s.duration("forward_time");
    t.backward_s = s.duration("backward_time");
    layer.measured = t;
  }
  s.finish();
  return layer;
}

models::Model load_model(Section& m, const fs::path& base) {
  allow_keys(m, "model");
  for (const char* key : {"sequence_length", "attention", "kernels", "shape"})
    if (m.has(key) && (m.has("layers") || m.has("file")))
      throw core::InputError(m.where_key(key), std::string(key) + " is given for a layer table",
                             "leave it out: a layer table states its own FLOPs; it applies to built-in transformers");
  if (m.has("sequence_length") && (m.has("layers") || m.has("file")))
    throw core::InputError(m.where_key("sequence_length"), "sequence_length is given for a layer table",
                           "leave it out: a layer table states its own FLOPs; it applies to built-in transformers");
  if (m.has("layers")) {
    models::Model model;
    model.name = m.required_string("name");
    model.source = "layer table in " + m.where_table();
    for (Section& l : m.tables("layers")) model.layers.push_back(table_layer(l));
    if (model.layers.empty())
      throw core::InputError(m.where_key("layers"), "the layer table is empty", "give at least one [[model.layers]]");
    return model;
  }
  if (auto file = m.optional_string("file")) {
    const std::string path = (base / *file).lexically_normal().string();
    try {
      return models::read_layer_table_csv(path);
    } catch (const core::InputError& e) {
      if (fs::exists(path)) throw;
      throw e.at(m.where_key("file"));
    }
  }
  const std::string name = m.required_string("name");
  const KeySpec& length = key_spec("model", "sequence_length");
  std::optional<std::int64_t> tokens;
  if (m.has("sequence_length")) tokens = m.integer("sequence_length", 0, length.min, length.max);
  models::Model model;
  if (std::optional<Section> shape = m.table("shape")) {
    model = load_shape(*shape, name, tokens, m.where_key("name"), m.where_key("sequence_length"));
  } else {
    try {
      model = models::make_model(name, tokens);
    } catch (const core::InputError& e) {
      throw e.at(m.where_key(tokens ? "sequence_length" : "name"));
    }
  }
  const std::string kernels = m.choice("kernels", std::string(models::default_kernels(name)),
                                       key_spec("model", "kernels").choices());
  if (kernels == "fused") {
    try {
      model = models::with_fused_kernels(std::move(model));
    } catch (const core::InputError& e) {
      throw e.at(m.where_key("kernels"));
    }
  }
  const std::string attention = choice_key(m, "model", "attention");
  if (attention == "eager") return model;
  try {
    return models::with_flash_attention(
        std::move(model), attention == "flash3" ? models::Kernel::flash_attention3 : models::Kernel::flash_attention2);
  } catch (const core::InputError& e) {
    throw e.at(m.where_key("attention"));
  }
}

/// A rate with a unit ("15.7TFLOPS", "900GBps") that replaces one field of the named profile.
void override_rate(Section& g, const std::string& key, double& field, double (*parse)(std::string_view),
                   const std::string& example_unit) {
  if (!g.has(key)) return;
  const std::string text = g.unit_string(key, example_unit);
  try {
    field = parse(text);
  } catch (const core::InputError& e) {
    throw e.at(g.where_key(key));
  }
}

/// gpu.fp8_recipe: only with precision fp8 (a recipe of another precision would be ignored); MXFP8 only where the
/// GPU runs it.
void load_fp8_recipe(Section& g, Scenario& s) {
  const bool fp8 = s.precision == models::Precision::fp8;
  if (!fp8 && g.has("fp8_recipe"))
    throw core::InputError(g.where_key("fp8_recipe"),
                           "gpu.fp8_recipe with gpu.precision = \"" + std::string(models::precision_name(s.precision)) +
                               "\"",
                           "set gpu.precision = \"fp8\", or leave fp8_recipe out");
  if (!fp8) return;
  const std::string fallback(models::fp8_recipe_name(models::default_fp8_recipe(s.gpu)));
  s.fp8_recipe = models::parse_fp8_recipe(g.choice("fp8_recipe", fallback, models::fp8_recipe_names()));
  if (const std::string why = models::fp8_recipe_refusal(s.fp8_recipe, s.gpu); !why.empty())
    throw core::InputError(g.where_key("fp8_recipe"), why, "fp8_recipe = \"delayed\" or \"current\"");
}

/// The constants `dtsim calibrate` fits to a profiler trace, in a scenario's [gpu] or a calibration file.
void load_kernel_constants(Section& g, models::GpuProfile& gpu) {
  if (g.has("gemm_efficiency")) {
    gpu.gemm_efficiency = g.number("gemm_efficiency", 1e-3, 1.0);
    gpu.fp8_gemm_efficiency = 0;  // the given figure at every precision
  }
  if (g.has("memory_efficiency")) gpu.memory_efficiency = g.number("memory_efficiency", 1e-3, 1.0);
  if (g.has("attention_scale")) gpu.attention_scale = g.number("attention_scale", 0.01, 10.0);
  if (auto gap = g.optional_duration("launch_gap")) gpu.launch_gap_s = *gap;
  if (auto dispatch = g.optional_duration("launch_dispatch")) gpu.launch_dispatch_s = *dispatch;
}

/// gpu.calibration: a file of `dtsim calibrate`, fitted to the scenario's GPU profile.
void load_calibration(Section& g, const std::string& path, models::GpuProfile& gpu) {
  if (!fs::exists(path))
    throw core::InputError(g.where_key("calibration"), "cannot read calibration file '" + path + "'",
                           "a file `dtsim calibrate --gpu NAME TRACE.json --out FILE` wrote, relative to the scenario");
  toml::table table = parse_toml_file(path, "calibration file");
  Section c(table, "");
  c.allow({"profile", "gemm_efficiency", "memory_efficiency", "attention_scale", "launch_gap", "launch_dispatch"});
  const std::string profile = c.required_string("profile");
  if (profile != gpu.name)
    throw core::InputError(c.where_key("profile"),
                           "calibration of GPU profile '" + profile + "' for a scenario on '" + gpu.name + "'",
                           "a calibration fitted with --gpu " + gpu.name);
  load_kernel_constants(c, gpu);
  c.finish();
}

void load_gpu(Section& g, Scenario& s, const fs::path& base) {
  allow_keys(g, "gpu");
  // The platform says which GPU its hosts have; a profile that says otherwise is a contradiction, not a what-if
  // (give the platform file another `gpu`, or set the rates below, to ask that).
  const std::string& hosts = s.platform.gpu;
  const std::string profile = g.string("profile", hosts.empty() ? key_spec("gpu", "profile").default_text : hosts);
  try {
    s.gpu = models::gpu_profile(profile);
  } catch (const core::InputError& e) {
    throw e.at(g.where_key("profile"));
  }
  if (!hosts.empty() && profile != hosts)
    throw core::InputError(g.where_key("profile"),
                           "gpu.profile = \"" + profile + "\" contradicts platform '" + s.platform.name +
                               "', whose hosts have " + hosts + " GPUs",
                           "leave gpu.profile out (the platform's is used), give \"" + hosts +
                               "\", or use a platform with " + profile + " GPUs (`dtsim list platforms`)");
  override_rate(g, "fp32", s.gpu.fp32_flops, core::parse_flop_rate, "TFLOPS");
  override_rate(g, "tf32", s.gpu.tf32_flops, core::parse_flop_rate, "TFLOPS");
  override_rate(g, "fp16", s.gpu.fp16_flops, core::parse_flop_rate, "TFLOPS");
  override_rate(g, "bf16", s.gpu.bf16_flops, core::parse_flop_rate, "TFLOPS");
  override_rate(g, "fp8", s.gpu.fp8_flops, core::parse_flop_rate, "TFLOPS");
  override_rate(g, "memory_bandwidth", s.gpu.memory_Bps, core::parse_bandwidth, "GBps");
  if (g.has("memory")) {
    s.gpu.memory_bytes = static_cast<double>(g.size("memory"));
    if (s.gpu.memory_bytes <= 0)
      throw core::InputError(g.where_key("memory"), "gpu.memory is 0", "a capacity > 0, e.g. \"32GiB\"");
  }
  if (g.has("compute_efficiency")) s.gpu.compute_efficiency = g.number("compute_efficiency", 1e-3, 1.0);
  if (g.has("sm_count")) s.gpu.sm_count = static_cast<int>(g.integer("sm_count", 0, 1, 4096));
  s.gpu.gemm_model = models::parse_gemm_model(choice_key(g, "gpu", "gemm_model"));
  s.gpu.launch = models::parse_launch_mode(choice_key(g, "gpu", "launch"));
  if (auto file = g.optional_string("calibration")) load_calibration(g, (base / *file).lexically_normal().string(), s.gpu);
  load_kernel_constants(g, s.gpu);
  if (g.has("overlap_slowdown")) s.gpu.overlap_slowdown = g.number("overlap_slowdown", 1.0, 100.0);
  if (auto launch = g.optional_duration("collective_launch")) s.gpu.collective_launch_s = *launch;
  const std::string precision = choice_key(g, "gpu", "precision");
  s.precision = models::parse_precision(precision);
  try {
    s.gpu.peak_flops(s.precision);
  } catch (const core::InputError& e) {
    throw e.at(g.where_key("precision"));
  }
  load_fp8_recipe(g, s);
  s.measured_iteration_s = g.optional_duration("measured_iteration_time");
  if (s.measured_iteration_s && *s.measured_iteration_s <= 0)
    throw core::InputError(g.where_key("measured_iteration_time"), "the measured iteration time is zero",
                           "it must be positive");
  if (auto profile = g.optional_string("measured_layers")) {
    if (s.measured_iteration_s)
      throw core::InputError(g.where_key("measured_layers"),
                             "both measured_layers and measured_iteration_time are given",
                             "give one: a per-layer profile replaces the roofline, an iteration time scales it");
    const std::string path = (base / *profile).lexically_normal().string();
    if (!fs::exists(path))
      throw core::InputError(g.where_key("measured_layers"), "cannot read layer profile '" + path + "'",
                             "give a CSV layer,forward_ms,backward_ms relative to the scenario");
    s.model = calibration::with_measured_layers(s.model, path);
  }
  g.finish();
}

compressors::Options load_options(const toml::table& table) {
  compressors::Options options;
  for (const auto& [key, value] : table) {
    const std::string name(key.str());
    if (value.is_boolean()) options[name] = *value.value<bool>();
    else if (value.is_integer()) options[name] = *value.value<std::int64_t>();
    else if (value.is_floating_point()) options[name] = *value.value<double>();
    else if (value.is_string()) options[name] = *value.value<std::string>();
    else
      throw core::InputError(where(value.source()), "compression option '" + name + "' is a table or an array",
                             "options are booleans, numbers or strings");
  }
  return options;
}

void load_compression(Section& c, const toml::table& table, Scenario& s) {
  allow_keys(c, "compression");
  Compression& k = s.compression;
  k.compressor = choice_key(c, "compression", "compressor");
  // The compressor checks its own options (names, types, ranges) when it is made below.
  if (c.table("options")) k.options = load_options(*table.get("options")->as_table());
  k.error_feedback = choice_key(c, "compression", "error_feedback");
  if (c.table("error_feedback_options"))
    k.feedback_options = load_options(*table.get("error_feedback_options")->as_table());
  k.sparse_collective = choice_key(c, "compression", "sparse_collective");
  const std::vector<std::string> sparsifiers = compressors::sparse_compressors();
  if (k.sparse_collective == "gtopk" &&
      std::find(sparsifiers.begin(), sparsifiers.end(), k.compressor) == sparsifiers.end())
    throw core::InputError(c.where_key("sparse_collective"),
                           "gtopk merges sparse (index, value) payloads, which '" + k.compressor + "' does not send",
                           "use it with " + core::join_names(sparsifiers));
  k.gradient = choice_key(c, "compression", "gradient");
  if (k.gradient == "numerics" && !s.numerics.enabled)
    throw core::InputError(c.where_key("gradient"), "gradient = \"numerics\" takes numerics mode's real gradient, "
                                                    "but the scenario has no [numerics]",
                           "add [numerics], or draw synthetic gradients: normal, laplace, heavy_tailed");
  if (c.has("gradient_scale")) k.gradient_scale = c.number("gradient_scale", 1e-30, 1e30);
  if (auto scales = c.table("layer_scales")) {
    for (const auto& [prefix, value] : *table.get("layer_scales")->as_table()) {
      const std::string name(prefix.str());
      const double scale = scales->number(name, 1e-30, 1e30);
      if (std::none_of(s.model.layers.begin(), s.model.layers.end(),
                       [&](const models::Layer& l) { return l.name.rfind(name, 0) == 0; }))
        throw core::InputError(scales->where_key(name), "no layer of model '" + s.model.name + "' starts with '" + name + "'",
                               "layer names as `dtsim list models` or the layer table gives them, e.g. '" +
                                   s.model.layers.front().name + "'");
      k.layer_scales[name] = scale;
    }
  }
  const std::string kernel_time = c.string("kernel_time", key_spec("compression", "kernel_time").default_text);
  if (kernel_time == "model") {
    k.kernel_time = KernelTime::model;
  } else if (kernel_time == "measured") {
    k.kernel_time = KernelTime::measured;
  } else {
    try {
      k.kernel_Bps = core::parse_bandwidth(kernel_time);
      k.kernel_time = KernelTime::fixed;
    } catch (const core::InputError& e) {
      throw core::InputError(c.where_key("kernel_time"), e.problem(),
                             "write \"model\", \"measured\" or a throughput such as \"20GBps\"");
    }
  }
  const KeySpec& seed = key_spec("compression", "seed");
  k.seed = static_cast<std::uint64_t>(c.integer("seed", 0, seed.min, seed.max));
  std::unique_ptr<compressors::Compressor> inner;
  try {
    inner = compressors::make_compressor(k.compressor, k.options);
  } catch (const core::InputError& e) {
    throw e.at(c.has("options") ? c.where_key("options") : c.where_key("compressor"));
  }
  try {
    compressors::make_error_feedback(k.error_feedback, std::move(inner), k.feedback_options);
  } catch (const core::InputError& e) {
    throw e.at(c.has("error_feedback_options") ? c.where_key("error_feedback_options") : c.where_key("error_feedback"));
  }
  k.device = choice_key(c, "compression", "device");
  if (k.device == "cuda") {
    if (!k.feedback_options.empty())
      throw core::InputError(c.where_key("error_feedback_options"),
                             "[compression.error_feedback_options] with device = \"cuda\"",
                             "the device kernels run residual error feedback with its defaults: leave the options out, "
                             "or set device = \"cpu\"");
    try {  // the device, its kernels for this compressor, and the error feedback on it
      compressors::device::make_device_compressor(k.device, k.compressor, k.options, k.error_feedback);
    } catch (const core::InputError& e) {
      throw e.at(c.where_key("device"));
    }
  }
  c.finish();
}

void load_memory(Section& m, Scenario& s) {
  allow_keys(m, "memory");
  s.memory.refuse = choice_key(m, "memory", "check") == "refuse";
  if (s.numerics.enabled && m.has("optimizer"))
    throw core::InputError(m.where_key("optimizer"), "memory.optimizer is given with [numerics]",
                           "leave it out: numerics.optimizer (\"" + s.numerics.optimizer + "\") is the optimizer trained");
  s.memory.optimizer = s.numerics.enabled ? s.numerics.optimizer : choice_key(m, "memory", "optimizer");
  s.memory.recomputation = memory::parse_recomputation(choice_key(m, "memory", "activation_recomputation"));
  try {
    memory::recomputed_layers(s.model, s.memory.recomputation);
  } catch (const core::InputError& e) {
    throw e.at(m.where_key("activation_recomputation"));
  }
  m.finish();
}

/// The files a scenario names relative to its folder: made absolute in `root` and digested.
std::vector<InputFile> absolute_inputs(toml::table& root, const fs::path& base) {
  std::vector<InputFile> inputs;
  auto absolute = [&](toml::node& node) {
    if (!node.is_string()) return;
    const std::string path = fs::absolute(base / *node.value<std::string>()).lexically_normal().string();
    node.as_string()->get() = path;
    inputs.push_back({path, core::file_digest(path)});
  };
  for (const char* key : {"model.file", "gpu.measured_layers", "gpu.calibration", "stragglers.speed_profiles"})
    if (toml::node* node = root.at_path(key).node()) absolute(*node);
  if (toml::array* files = root.at_path("numerics.files").as_array())
    for (toml::node& file : *files) absolute(file);
  return inputs;
}

std::string format_toml(const toml::table& table) {
  std::ostringstream text;
  text << toml::toml_formatter(table, toml::format_flags::none);
  return text.str();
}

/// The resolved scenario and its digest (Provenance); `root` holds every setting the loader read.
Provenance resolve(toml::table& root, const fs::path& base) {
  Provenance p;
  p.inputs = absolute_inputs(root, base);
  p.resolved_toml = format_toml(root);
  toml::table keyed = root;
  if (toml::table* output = keyed.at_path("output").as_table()) output->erase("dir");  // where, not what
  core::Digest digest;
  digest.add(core::dtsim_version()).add(format_toml(keyed));
  for (const InputFile& f : p.inputs) digest.add(f.path).add(f.digest);
  p.digest = digest.hex();
  return p;
}

/// The fewest iterations >= s.iterations that end on a whole local-SGD period (after post-local SGD's switch,
/// at least one period after it); s.iterations for the other schemes.
int whole_local_periods(const Scenario& s) { return s.sync.rules().whole_iterations(s.sync, s.iterations); }

Scenario build(toml::table& root, const std::string& source, const fs::path& base) {
  Scenario s;
  s.source = source;
  Section top(root, "");
  allow_keys(top, "");

  toml::node* platform_node = root.get("platform");
  toml::table platform;
  if (platform_node && platform_node->is_table() && !platform_node->as_table()->contains("file")) {
    platform = std::move(*platform_node->as_table());  // a whole platform written inline
    s.platform_source = "inline in " + source;
  } else {
    toml::table platform_overlay;
    std::string platform_ref;
    std::string ref_where = top.where_key("platform");
    if (platform_node && platform_node->is_table()) {
      Section p(*platform_node->as_table(), "platform");
      platform_ref = p.required_string("file");
      ref_where = p.where_key("file");
      platform_overlay = std::move(*platform_node->as_table());
      platform_overlay.erase("file");
    } else {
      platform_ref = top.required_string("platform");
    }
    platform = platform_table(platform_ref, ref_where, base, s.platform_source);
    if (!platform_overlay.empty())
      check_replaced_values(platform_table(platform_ref, ref_where, base, s.platform_source), platform_overlay);
    merge_into(platform, std::move(platform_overlay));
  }
  top.has("platform");
  s.platform = load_platform(platform);
  root.insert_or_assign("platform", std::move(platform));

  auto model = top.table("model");
  if (auto numerics = top.table("numerics")) {
    if (model)
      throw core::InputError(model->where_table(), "[model] and [numerics] are both given",
                             "[numerics] trains its own model and simulates it: remove [model]");
    load_numerics(*numerics, *root.get("numerics")->as_table(), base.string(), s);
  } else {
    if (!model)
      throw core::InputError(top.where_table(), "missing table [model]", "name a built-in model or a layer table");
    s.model = load_model(*model, base);
    model->finish();
  }

  // Absent tables are loaded empty, so that their defaults are recorded in the resolved scenario.
  for (const char* table : {"gpu", "strategy", "output", "memory"})
    if (!root.contains(table)) root.insert(table, toml::table{});
  Section gpu = *top.table("gpu");
  load_gpu(gpu, s, base);

  s.workers = static_cast<int>(top.required_integer("workers", key_spec("", "workers").min, key_spec("", "workers").max));
  if (s.workers > s.platform.hosts())
    throw core::InputError(top.where_key("workers"),
                           "workers = " + std::to_string(s.workers) + " exceeds the " +
                               std::to_string(s.platform.hosts()) + " GPUs of platform '" + s.platform.name + "'",
                           "at most " + std::to_string(s.platform.hosts()) + " on this platform, or a larger one: " +
                               larger_platform(s.platform, s.workers));
  s.batch_size =
      static_cast<int>(top.required_integer("batch_size", key_spec("", "batch_size").min, key_spec("", "batch_size").max));
  const KeySpec& iterations = key_spec("", "iterations");
  const bool iterations_given = top.has("iterations");
  s.iterations = static_cast<int>(top.integer("iterations", std::stoll(iterations.default_text), iterations.min, iterations.max));

  StrategyWhere strategy_where;
  Section strategy = *top.table("strategy");
  strategy_where = load_strategy(strategy, s);
  if (const int whole = whole_local_periods(s); whole != s.iterations) {
    if (iterations_given)
      throw core::InputError(top.where_key("iterations"),
                             "iterations = " + std::to_string(s.iterations) + " with " + sync::describe(s.sync) +
                                 ": the timing run must cover whole periods, or its mean iteration leaves the model "
                                 "average out (or counts it too often)",
                             "iterations = " + std::to_string(whole) + " (or another count of whole periods)");
    s.iterations = whole;  // the default, rounded up to whole periods, is what the resolved scenario says
    root.insert_or_assign("iterations", whole);
  }
  if (auto stragglers = top.table("stragglers")) load_stragglers(*stragglers, *root.get("stragglers")->as_table(), base, s);
  if (top.has("failures")) load_failures(top.tables("failures"), s);
  if (auto compression = top.table("compression")) load_compression(*compression, *root.get("compression")->as_table(), s);
  Section memory_table = *top.table("memory");
  load_memory(memory_table, s);
  s.parallel.data = s.workers;
  if (auto parallel = top.table("parallel")) load_parallel(*parallel, s);
  load_gradient_dtype(strategy, s);
  const bool in_network = s.collective == "in_network" || (s.nccl.algorithm && collectives::nccl_in_network(*s.nccl.algorithm));
  if (in_network && !s.parallel.data_parallel_only())
    throw core::InputError(strategy_where.architecture,
                           "in-network reduction (collective \"in_network\", nccl_algo CollNet or NVLS) sums all "
                           "workers at one switch, and [parallel] splits them into tensor, pipeline or sharded groups",
                           "plain data parallelism with it, or another collective with [parallel]");
  Section output = *top.table("output");
  allow_keys(output, "output");
  s.output.dir = output.string("dir", s.output.dir);
  s.output.timeline = output.boolean("timeline", s.output.timeline);
  const KeySpec& trace = key_spec("output", "trace_workers");
  s.output.trace_workers = static_cast<int>(output.integer("trace_workers", s.output.trace_workers, trace.min, trace.max));
  output.finish();
  top.finish();
  check_strategy(s, strategy_where);
  s.provenance = resolve(root, base);
  return s;
}

}  // namespace

std::vector<std::string> builtin_platform_names() {
  std::vector<std::string> names;
  for (const core::EmbeddedFile& f : core::embedded_files())
    if (f.path.starts_with("platforms/") && f.path != "platforms/costs.toml")  // the cost table of `dtsim plan`
      names.emplace_back(f.path.substr(10, f.path.size() - 10 - 5));
  return names;
}

platform::PlatformSpec load_platform_reference(const std::string& ref) {
  std::string source;
  toml::table platform = platform_table(ref, ref, fs::current_path(), source);
  return load_platform(platform);
}

std::string platform_toml_with(const std::string& ref, const std::vector<std::string>& settings) {
  std::string source;
  toml::table root;
  root.insert("platform", platform_table(ref, ref, fs::current_path(), source));
  std::vector<std::string> overrides;
  for (const std::string& s : settings) overrides.push_back("platform." + s);
  apply_overrides(root, overrides);
  toml::table& platform = *root["platform"].as_table();
  load_platform(platform);
  std::ostringstream text;
  text << platform << '\n';
  return text.str();
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  toml::table root = parse_toml(read_file(path, path, "scenario file"), path);
  apply_overrides(root, overrides);
  Scenario s = build(root, path, fs::path(path).parent_path());
  s.provenance.overrides = overrides;
  return s;
}

Scenario load_default_scenario(const std::vector<std::string>& overrides) {
  const auto text = core::embedded_file(kDefaultScenario);
  DTSIM_CHECK(text.has_value(), "the default scenario is not embedded");
  toml::table root = parse_toml(*text, kDefaultScenario);
  apply_overrides(root, overrides);
  Scenario s = build(root, "built-in default (" + std::string(kDefaultScenario) + ")", fs::current_path());
  s.provenance.overrides = overrides;
  return s;
}

}  // namespace dtsim::scenario
