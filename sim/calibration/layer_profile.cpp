#include "sim/calibration/layer_profile.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "sim/calibration/csv_fields.hpp"
#include "sim/core/error.hpp"
#include "sim/core/nearest_names.hpp"
#include "sim/core/printable.hpp"

namespace dtsim::calibration {
namespace {

/// "a, b, c" for the first `shown` names, then "and N more".
std::string some_names(const std::vector<std::string>& names, std::size_t shown = 5) {
  std::string out;
  for (std::size_t i = 0; i < std::min(shown, names.size()); ++i) out += (i == 0 ? "" : ", ") + names[i];
  if (names.size() > shown) out += " and " + std::to_string(names.size() - shown) + " more";
  return out;
}

}  // namespace

models::Model with_measured_layers(const models::Model& model, const std::string& profile_path) {
  const std::string header = "the header layer,forward_ms,backward_ms";
  std::map<std::string, std::size_t> index;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    index.emplace(model.layers[i].name, i);
    names.push_back(model.layers[i].name);
  }
  models::Model out = model;
  std::map<std::string, int> seen;  // layer -> line of its row
  for (const models::CsvRow& row :
       csv_rows(profile_path, {"layer", "forward_ms", "backward_ms"}, "layer profile", header)) {
    const models::CsvField& name = row.fields[0];
    const auto layer = index.find(name.text);
    if (layer == index.end())
      fail_at(profile_path, row.line, name.column,
              "unknown layer '" + core::printable(name.text) + "' in model '" + model.name + "'",
              core::with_suggestion(name.text, names, "a layer of the model: " + some_names(names)));
    const auto [first, fresh] = seen.emplace(name.text, row.line);
    if (!fresh)
      fail_at(profile_path, row.line, name.column,
              "layer '" + name.text + "' appears twice (first on line " + std::to_string(first->second) + ")",
              "one row per layer");
    out.layers[layer->second].measured =
        models::MeasuredTime{number(profile_path, row.line, row.fields[1], "forward_ms", true) / 1000,
                             number(profile_path, row.line, row.fields[2], "backward_ms", true) / 1000};
  }
  std::vector<std::string> missing;
  for (const std::string& n : names)
    if (!seen.contains(n)) missing.push_back(n);
  if (!missing.empty())
    fail_at(
        profile_path, 1, 1,
        std::to_string(missing.size()) + " layers of model '" + model.name + "' have no row: " + some_names(missing),
        "one row per layer of the model");
  return out;
}

}  // namespace dtsim::calibration
