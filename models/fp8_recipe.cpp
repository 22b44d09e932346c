#include "models/fp8_recipe.hpp"

#include "sim/core/error.hpp"

namespace dtsim::models {
namespace {

struct RecipeEntry {
  std::string_view name;
  Fp8Recipe recipe;
};

constexpr RecipeEntry recipes[] = {
    {"delayed", Fp8Recipe::delayed}, {"current", Fp8Recipe::current}, {"mxfp8", Fp8Recipe::mxfp8}};

constexpr double kBf16 = 2;
constexpr double kFp8 = 1;
constexpr double kFp32 = 4;
/// MXFP8: one 8-bit E8M0 scale per block of 32 elements (OCP Microscaling Formats (MX) v1.0 specification).
constexpr double kMxScalePerElement = 1.0 / 32;
/// Tensors with an amax history per fp8 GEMM layer: X, W and dY.
constexpr double kScaledTensors = 3;

}  // namespace

std::vector<std::string> fp8_recipe_names() {
  std::vector<std::string> names;
  for (const RecipeEntry& e : recipes) names.emplace_back(e.name);
  return names;
}

Fp8Recipe parse_fp8_recipe(std::string_view name) {
  for (const RecipeEntry& e : recipes)
    if (e.name == name) return e.recipe;
  throw core::unknown_name("fp8 recipe", name, fp8_recipe_names());
}

std::string_view fp8_recipe_name(Fp8Recipe r) {
  for (const RecipeEntry& e : recipes)
    if (e.recipe == r) return e.name;
  DTSIM_CHECK(false, "unknown Fp8Recipe value");
  return {};
}

Fp8Recipe default_fp8_recipe(const GpuProfile& gpu) { return gpu.mxfp8 ? Fp8Recipe::mxfp8 : Fp8Recipe::delayed; }

std::string fp8_recipe_refusal(Fp8Recipe r, const GpuProfile& gpu) {
  if (r == Fp8Recipe::mxfp8 && !gpu.mxfp8)
    return "fp8_recipe = \"mxfp8\" on GPU '" + gpu.name +
           "': MXFP8's block scales need fifth-generation tensor cores (Blackwell: b200, gb200)";
  return "";
}

double fp8_quantize_bytes(Fp8Recipe r) {
  switch (r) {
    case Fp8Recipe::delayed:
      return kBf16 + 2 * kFp8;
    case Fp8Recipe::current:
      return 2 * kBf16 + 2 * kFp8;
    case Fp8Recipe::mxfp8:
      return kBf16 + 2 * kFp8 * (1 + kMxScalePerElement);
  }
  DTSIM_CHECK(false, "unknown Fp8Recipe value");
  return 0;
}

double fp8_weight_copy_bytes(Fp8Recipe r) {
  return r == Fp8Recipe::mxfp8 ? 2 * kFp8 * (1 + kMxScalePerElement) : 2 * kFp8;
}

Fp8CastBytes fp8_cast_bytes(const Gemm& g, Fp8Recipe r) {
  const double per = fp8_quantize_bytes(r);
  const auto count = static_cast<double>(g.count);
  const double x = count * static_cast<double>(g.m) * static_cast<double>(g.k);
  const double w = count * static_cast<double>(g.k) * static_cast<double>(g.n);
  const double dy = count * static_cast<double>(g.m) * static_cast<double>(g.n);
  const double history = r == Fp8Recipe::delayed ? 2 * kFp32 * kScaledTensors * static_cast<double>(kAmaxHistory) : 0;
  return {per * (x + w) + history, per * dy};
}

bool runs_in_fp8(const Layer& layer) { return layer.gemm.has_value() && !layer.gemm->batched; }

std::int64_t fp8_parameter_count(const Model& model) {
  std::int64_t count = 0;
  for (const Layer& layer : model.layers)
    if (runs_in_fp8(layer)) count += layer.parameter_count();
  return count;
}

}  // namespace dtsim::models
