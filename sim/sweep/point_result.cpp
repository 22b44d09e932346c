#include "sim/sweep/point_result.hpp"

#include <fstream>

#include "sim/core/digest.hpp"
#include "sim/core/error.hpp"
#include "sim/sweep/point_check.hpp"

namespace dtsim::sweep {

nlohmann::json settings_json(const scenario::SweepPoint& point) {
  nlohmann::json keys = nlohmann::json::object();
  for (const auto& [key, value] : point.settings) {
    const nlohmann::json parsed = nlohmann::json::parse(value, nullptr, false);
    keys[key] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
  }
  return keys;
}

std::vector<std::string> point_overrides(const scenario::SweepSpec& spec, const scenario::SweepPoint& point) {
  std::vector<std::string> overrides{"output.timeline=false"};
  overrides.insert(overrides.end(), spec.base_settings.begin(), spec.base_settings.end());
  for (const auto& [key, value] : point.settings) overrides.push_back(key + "=" + value);
  return overrides;
}

std::vector<PointKey> point_keys(const scenario::SweepSpec& spec, const std::string& dtsim_binary) {
  const std::string binary = core::file_digest(dtsim_binary);
  std::vector<PointKey> keys;
  for (const scenario::SweepPoint& point : spec.points()) {
    const std::vector<std::string> overrides = point_overrides(spec, point);
    core::Digest digest;
    digest.add(binary);
    PointKey k;
    try {
      k.scenario_digest = load_point(spec, overrides).provenance.digest;
      digest.add(k.scenario_digest);
    } catch (const core::InputError&) {  // a plan's candidate fails when it runs and records why; key it by its text
      digest.add(spec.base);
      for (const std::string& o : overrides) digest.add(o);
    }
    k.key = digest.hex();
    keys.push_back(k);
  }
  return keys;
}

std::string point_dir(const scenario::SweepSpec& spec, const PointKey& key) {
  return spec.output_dir + "/points/" + key.key;
}

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names{
      "mean_iteration_s", "samples_per_s", "scaling_efficiency", "single_worker_iteration_s", "forward_s",
      "backward_s", "update_s", "exposed_comm_s", "idle_s", "bytes_sent_per_worker_per_iteration",
      "buckets_per_iteration", "mfu", "memory_peak_bytes"};
  return names;
}

nlohmann::json successful_point(const scenario::SweepPoint& point, const PointKey& key,
                                const std::string& report_json_path) {
  std::ifstream in(report_json_path);
  const nlohmann::json report = nlohmann::json::parse(in);
  nlohmann::json metrics = report["summary"];
  // Breakdown averaged over workers (breakdown_mean) and iterations.
  const auto& iterations = report["iterations"];
  for (const char* phase : {"forward_s", "backward_s", "update_s", "exposed_comm_s", "idle_s"}) {
    double sum = 0;
    for (const auto& it : iterations) sum += it["breakdown_mean"][phase].get<double>();
    metrics[phase] = sum / static_cast<double>(iterations.size());
  }
  // Mean over workers and over the iterations completed (traffic counts the whole run).
  // Each traffic entry stands for `count` consecutive workers alike (schema 2: one).
  double sent = 0, workers = 0;
  for (const auto& t : report["traffic"]) {
    const double count = t.value("count", 1.0);
    sent += count * t["bytes_sent"].get<double>();
    workers += count;
  }
  metrics["bytes_sent_per_worker_per_iteration"] = sent / workers / static_cast<double>(iterations.size());
  metrics["buckets_per_iteration"] = report["setup"]["buckets"];
  metrics["memory_peak_bytes"] = report["memory"]["peak_bytes"];
  return {{"point", point.index}, {"key", key.key}, {"scenario_digest", key.scenario_digest}, {"status", "ok"},
          {"keys", settings_json(point)}, {"metrics", metrics}};
}

nlohmann::json failed_point(const scenario::SweepPoint& point, const PointKey& key, int exit_code,
                            const std::string& error) {
  return {{"point", point.index}, {"key", key.key}, {"status", "failed"}, {"keys", settings_json(point)},
          {"exit_code", exit_code}, {"error", error}};
}

}  // namespace dtsim::sweep
