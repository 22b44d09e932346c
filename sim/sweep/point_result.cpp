#include "sim/sweep/point_result.hpp"

#include <fstream>

namespace dtsim::sweep {
namespace {

nlohmann::json keys_of(const scenario::SweepPoint& point) {
  nlohmann::json keys = nlohmann::json::object();
  for (const auto& [key, value] : point.settings) {
    const nlohmann::json parsed = nlohmann::json::parse(value, nullptr, false);
    keys[key] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
  }
  return keys;
}

}  // namespace

std::string point_dir(const scenario::SweepSpec& spec, int index) {
  return spec.output_dir + "/points/" + std::to_string(index);
}

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names{
      "mean_iteration_s", "samples_per_s", "scaling_efficiency", "single_worker_iteration_s", "forward_s",
      "backward_s", "update_s", "exposed_comm_s", "idle_s", "bytes_sent_per_worker", "buckets"};
  return names;
}

nlohmann::json successful_point(const scenario::SweepPoint& point, const std::string& report_json_path) {
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
  metrics["bytes_sent_per_worker"] = report["traffic"][0]["bytes_sent"];
  metrics["buckets"] = report["setup"]["buckets"];
  return {{"point", point.index}, {"status", "ok"}, {"keys", keys_of(point)}, {"metrics", metrics}};
}

nlohmann::json failed_point(const scenario::SweepPoint& point, int exit_code, const std::string& error) {
  return {{"point", point.index}, {"status", "failed"}, {"keys", keys_of(point)}, {"exit_code", exit_code},
          {"error", error}};
}

}  // namespace dtsim::sweep
