#include "models/gemm_time.hpp"

#include <algorithm>
#include <string>

#include "sim/core/error.hpp"

namespace dtsim::models {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::int64_t tile_count(const Gemm& g, const GemmTile& t) {
  return ceil_div(g.m, t.rows) * ceil_div(g.n, t.cols) * g.count;
}

}  // namespace

Gemm gpu_share(const Layer& layer, int batch, int tensor) {
  Gemm g = *layer.gemm;
  if (layer.split == TensorSplit::column) g.n = ceil_div(g.n, tensor);
  if (layer.split == TensorSplit::row) g.k = ceil_div(g.k, tensor);
  if (layer.split == TensorSplit::sharded) g.count = ceil_div(g.count, tensor);
  (g.batched ? g.count : g.m) *= batch;
  return g;
}

GemmTiling gemm_tiling(const Gemm& g, int sms) {
  if (g.m < 1 || g.n < 1 || g.k < 1 || g.count < 1)
    throw core::InputError("GEMM of " + std::to_string(g.count) + " x (" + std::to_string(g.m) + " x " +
                               std::to_string(g.n) + " over " + std::to_string(g.k) + ")",
                           "dimensions and product count >= 1");
  if (sms < 1) throw core::InputError("GPU with " + std::to_string(sms) + " SMs", "an SM count >= 1");
  GemmTile tile = std::end(kGemmTiles)[-1];
  for (const GemmTile& t : kGemmTiles) {
    if (tile_count(g, t) >= sms) {
      tile = t;
      break;
    }
  }
  const std::int64_t tiles = tile_count(g, tile);
  return {tile, tiles, ceil_div(tiles, sms)};
}

double gemm_compute_time_s(const Gemm& g, const GpuProfile& gpu, Precision p) {
  const GemmTiling tiling = gemm_tiling(g, gpu.sm_count);
  const double sm_flops = gpu.gemm_flops(p) / gpu.sm_count;
  const double tile_s =
      2.0 * static_cast<double>(tiling.tile.rows * tiling.tile.cols) * static_cast<double>(g.k + kPipelineFill_k) /
      sm_flops;
  return static_cast<double>(tiling.waves) * tile_s;
}

double gemm_memory_time_s(const Gemm& g, const GpuProfile& gpu, Precision p) {
  const double elements = static_cast<double>(g.count) * static_cast<double>(g.m * g.k + g.k * g.n + g.m * g.n);
  return element_bytes(p) * elements / (gpu.memory_Bps * gpu.memory_efficiency);
}

double gemm_time_s(const Gemm& g, const GpuProfile& gpu, Precision p) {
  return std::max(gemm_compute_time_s(g, gpu, p), gemm_memory_time_s(g, gpu, p));
}

}  // namespace dtsim::models
