#include "sim/scenario/numerics_section.hpp"

#include <filesystem>

#include "numerics/model.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/key_hints.hpp"
#include "sim/scenario/keys.hpp"

namespace dtsim::scenario {
namespace fs = std::filesystem;
namespace {

std::int64_t int_key(Section& n, const std::string& key, std::int64_t fallback) {
  const KeySpec& spec = key_spec("numerics", key);
  return n.integer(key, fallback, spec.min, spec.max);
}

/// The trained model as the simulator sees it: one layer per parameter tensor, 2 FLOPs per parameter and
/// example (a multiply-add per weight of a dense layer; convolutions are undercounted, which only matters for
/// the compute time, not for the gradients on the wire).
models::Model layer_table(const Numerics& n) {
  const auto model = numerics::make_model({n.model, n.hidden}, numerics_input_shape(n), n.seed);
  models::Model table;
  table.name = n.model;
  table.source = "numerics " + n.model + " on " + n.dataset;
  for (const numerics::TensorInfo& t : model->tensors()) {
    models::Layer layer;
    layer.name = t.name;
    layer.tensors.push_back({t.name, {t.rows, t.cols}});
    layer.forward_flops = 2.0 * static_cast<double>(t.rows * t.cols);
    layer.input_elements = t.cols;
    layer.output_elements = t.rows;
    table.layers.push_back(layer);
  }
  return table;
}

}  // namespace

numerics::InputShape numerics_input_shape(const Numerics& n) {
  if (n.dataset == "mnist") return {1, 28, 28, 10};
  if (n.dataset == "cifar10") return {3, 32, 32, 10};
  return {1, 1, n.dims, n.classes};
}

void load_numerics(Section& n, const toml::table& table, const std::string& base, Scenario& s) {
  allow_keys(n, "numerics");
  Numerics& k = s.numerics;
  k.enabled = true;
  auto choice = [&](const std::string& key) { return choice_key(n, "numerics", key); };
  k.model = choice("model");
  if (const toml::node* hidden = table.get("hidden")) {
    n.has("hidden");
    k.hidden.clear();
    if (!hidden->is_array()) throw core::InputError(where(hidden->source()), "'numerics.hidden' is not an array", "e.g. hidden = [128, 64]");
    for (const toml::node& h : *hidden->as_array()) {
      if (!h.is_integer() || *h.value<std::int64_t>() < 1)
        throw core::InputError(where(h.source()), "a hidden width is not a positive integer", "e.g. hidden = [128, 64]");
      k.hidden.push_back(*h.value<std::int64_t>());
    }
  }
  k.dataset = choice("dataset");
  k.examples = int_key(n, "examples", k.examples);
  k.dims = int_key(n, "dims", k.dims);
  k.classes = static_cast<int>(int_key(n, "classes", k.classes));
  if (n.has("separation")) k.separation = n.number("separation", 0, 1e6);
  if (const toml::node* files = table.get("files")) {
    n.has("files");
    if (!files->is_array()) throw core::InputError(where(files->source()), "'numerics.files' is not an array", "e.g. files = [\"train-images-idx3-ubyte\", \"train-labels-idx1-ubyte\"]");
    for (const toml::node& f : *files->as_array()) {
      if (!f.is_string()) throw core::InputError(where(f.source()), "a file name is not a string", "file paths are strings");
      const std::string path = (fs::path(base) / *f.value<std::string>()).lexically_normal().string();
      if (!fs::exists(path)) throw core::InputError(where(f.source()), "cannot read data file '" + path + "'", "paths are relative to the scenario");
      k.files.push_back(path);
    }
  }
  if ((k.dataset == "mnist" && k.files.size() != 2) || (k.dataset == "cifar10" && k.files.empty()))
    throw core::InputError(n.where_key("dataset"), "dataset '" + k.dataset + "' needs its files",
                           "mnist: files = [images, labels] (IDX); cifar10: files = [data_batch_1.bin, ...]");
  if (n.has("test_fraction")) k.test_fraction = n.number("test_fraction", 0.01, 0.9);
  k.shards = choice("shards");
  if (n.has("dirichlet_alpha")) k.dirichlet_alpha = n.number("dirichlet_alpha", 1e-6, 1e9);
  k.steps = int_key(n, "steps", k.steps);
  k.eval_every = int_key(n, "eval_every", k.eval_every);
  k.optimizer = choice("optimizer");
  if (n.has("learning_rate")) k.learning_rate = n.number("learning_rate", 0, 1e6);
  k.warmup_steps = int_key(n, "warmup_steps", k.warmup_steps);
  if (n.has("target_accuracy")) k.target_accuracy = n.number("target_accuracy", 0, 1);
  k.seed = static_cast<std::uint64_t>(int_key(n, "seed", static_cast<std::int64_t>(k.seed)));
  n.finish();
  try {
    s.model = layer_table(k);
  } catch (const core::InputError& e) {
    throw e.at(n.where_table());
  }
}

}  // namespace dtsim::scenario
