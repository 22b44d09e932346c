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
  // Breakdown averaged over workers and iterations.
  double forward = 0, backward = 0, update = 0, exposed = 0, idle = 0, samples = 0;
  for (const auto& it : report["iterations"])
    for (const auto& b : it["breakdown_per_worker"]) {
      forward += b["forward_s"].get<double>();
      backward += b["backward_s"].get<double>();
      update += b["update_s"].get<double>();
      exposed += b["exposed_comm_s"].get<double>();
      idle += b["idle_s"].get<double>();
      ++samples;
    }
  metrics["forward_s"] = forward / samples;
  metrics["backward_s"] = backward / samples;
  metrics["update_s"] = update / samples;
  metrics["exposed_comm_s"] = exposed / samples;
  metrics["idle_s"] = idle / samples;
  metrics["bytes_sent_per_worker"] = report["traffic"][0]["bytes_sent"];
  metrics["buckets"] = report["setup"]["buckets"];
  return {{"point", point.index}, {"status", "ok"}, {"keys", keys_of(point)}, {"metrics", metrics}};
}

nlohmann::json failed_point(const scenario::SweepPoint& point, int exit_code, const std::string& error) {
  return {{"point", point.index}, {"status", "failed"}, {"keys", keys_of(point)}, {"exit_code", exit_code},
          {"error", error}};
}

}  // namespace dtsim::sweep
