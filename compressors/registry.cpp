#include "compressors/registry.hpp"

#include "compressors/factories.hpp"
#include "sim/core/error.hpp"

namespace dtsim::compressors {
namespace {

constexpr CompressorEntry kCompressors[] = {
    {"none", "uncompressed fp32", &make_none},
    {"fp16", "IEEE half precision", &make_fp16},
    {"bf16", "bfloat16", &make_bf16},
    {"int8", "8-bit linear quantisation, one scale per tensor", &make_int8},
    {"natural", "stochastic rounding to powers of two", &make_natural},
    {"qsgd", "stochastic uniform levels of the bucket norm", &make_qsgd},
    {"terngrad", "stochastic ternary with clipping", &make_terngrad},
    {"signsgd", "sign bits, majority vote", &make_signsgd},
    {"signum", "sign of momentum, majority vote", &make_signum},
    {"efsignsgd", "scaled sign (mean |x|)", &make_efsignsgd},
    {"onebit", "1-bit SGD, per-column means", &make_onebit},
    {"onebit_adam", "1-bit Adam's scaled sign (l2 scale)", &make_onebit_adam},
    {"topk", "exact top-k by magnitude", &make_topk, true},
    {"randomk", "random-k with a shared-seed mask", &make_randomk},
    {"threshold", "fixed threshold |x| > tau", &make_threshold, true},
    {"dgc", "DGC sampled-threshold top-k with warm-up", &make_dgc, true},
    {"sidco", "statistical threshold (exponential, gpareto, gamma), multi-stage", &make_sidco, true},
    {"adacomp", "AdaComp bin-local adaptive selection", &make_adacomp},
    {"powersgd", "rank-r power iteration, warm start", &make_powersgd},
    {"polar", "Polar-code lossy coding of the sign bitplane", &make_polar},
    {"eightbit", "8-bit dynamic tree data type (Dettmers)", &make_eightbit},
    {"srq", "stochastic rotated quantisation (random Hadamard rotation, k levels)", &make_srq},
    {"gaussiank", "Gaussian-k: top-k threshold from a normal fit", &make_gaussiank, true},
    {"gspar", "unbiased sparsification, p_i proportional to |x_i| (Wangni et al.)", &make_gspar, true},
    {"ecqsgd", "ECQ-SGD: stochastic levels of the norm with decayed accumulated errors", &make_ecqsgd},
    {"stc", "sparse ternary: top-k signs times their mean magnitude, Golomb-coded positions", &make_stc},
    {"sbc", "sparse binary: the stronger side of top-k, one mean, Golomb-coded positions", &make_sbc},
    {"redsync", "RedSync: threshold between mean and max |x| (trimmed top-k or binary search)", &make_redsync, true},
    {"aqsgd", "ALQ: stochastic levels of the norm adapted to the gradients by coordinate descent", &make_aqsgd},
    {"gradzip", "GradZip: rank-r factors by alternating least squares, warm start", &make_gradzip},
    {"variance_based", "elements large against their variance over the batch's samples, power-of-two codes", &make_variance_based},
    {"fixed_proportion", "a fixed proportion of each sign's largest elements, each side as its mean (Dryden et al.)", &make_fixed_proportion},
};

}  // namespace

std::span<const CompressorEntry> compressor_registry() { return kCompressors; }

std::vector<std::string> sparse_compressors() {
  std::vector<std::string> names;
  for (const CompressorEntry& entry : kCompressors)
    if (entry.sparse) names.emplace_back(entry.name);
  return names;
}

std::string known_compressors() {
  std::string known;
  for (const CompressorEntry& entry : kCompressors) known += (known.empty() ? "" : ", ") + std::string(entry.name);
  return known;
}

std::unique_ptr<Compressor> make_compressor(std::string_view name, const Options& options) {
  std::vector<std::string> names;
  for (const CompressorEntry& entry : kCompressors) {
    if (entry.name == name) return entry.make(options);
    names.emplace_back(entry.name);
  }
  throw core::unknown_name("compressor", name, names);
}

}  // namespace dtsim::compressors
