#include "sim/parallel/pipeline_schedule.hpp"

#include <array>
#include <utility>

#include "sim/core/error.hpp"

namespace dtsim::parallel {
namespace {

constexpr std::array<std::pair<std::string_view, PipelineSchedule>, 3> kSchedules{{
    {"gpipe", gpipe},
    {"1f1b", one_f_one_b},
    {"interleaved", interleaved_1f1b},
}};

}  // namespace

std::vector<std::string> pipeline_schedule_names() {
  std::vector<std::string> names;
  for (const auto& [name, schedule] : kSchedules) names.emplace_back(name);
  return names;
}

PipelineSchedule pipeline_schedule(std::string_view name) {
  for (const auto& [key, schedule] : kSchedules)
    if (key == name) return schedule;
  throw core::unknown_name("pipeline schedule", name, pipeline_schedule_names());
}

std::string pipeline_schedule_refusal(std::string_view name, int stages, int micro_batches, int chunks) {
  if (name != "interleaved")
    return chunks == 1 ? "" : "virtual_stages = " + std::to_string(chunks) + " needs schedule = \"interleaved\"";
  if (chunks < 2) return "the interleaved schedule needs virtual_stages >= 2";
  if (stages < 2) return "the interleaved schedule needs pipeline >= 2";
  if (micro_batches % stages != 0)
    return "the interleaved schedule needs the micro-batches (" + std::to_string(micro_batches) +
           ") to be a multiple of the pipeline stages (" + std::to_string(stages) + "), as Megatron-LM does";
  return "";
}

}  // namespace dtsim::parallel
