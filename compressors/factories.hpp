#pragma once
/// Factories of the registered compressors (one per file); the registry table points at them.
/// Each reads its parameters from `options` and throws InputError on unknown or invalid ones.
#include <memory>

#include "compressors/compressor.hpp"
#include "compressors/options.hpp"

namespace dtsim::compressors {

/// Builds the "none" compressor (compressors/none.cpp).
std::unique_ptr<Compressor> make_none(const Options& options);
/// Builds the "fp16" compressor (compressors/fp16.cpp).
std::unique_ptr<Compressor> make_fp16(const Options& options);
/// Builds the "bf16" compressor (compressors/bf16.cpp).
std::unique_ptr<Compressor> make_bf16(const Options& options);
/// Builds the "int8" compressor (compressors/int8.cpp).
std::unique_ptr<Compressor> make_int8(const Options& options);
/// Builds the "natural" compressor (compressors/natural.cpp).
std::unique_ptr<Compressor> make_natural(const Options& options);
/// Builds the "qsgd" compressor (compressors/qsgd.cpp).
std::unique_ptr<Compressor> make_qsgd(const Options& options);
/// Builds the "terngrad" compressor (compressors/terngrad.cpp).
std::unique_ptr<Compressor> make_terngrad(const Options& options);
/// Builds the "signsgd" compressor (compressors/signsgd.cpp).
std::unique_ptr<Compressor> make_signsgd(const Options& options);
/// Builds the "signum" compressor (compressors/signum.cpp).
std::unique_ptr<Compressor> make_signum(const Options& options);
/// Builds the "efsignsgd" compressor (compressors/efsignsgd.cpp).
std::unique_ptr<Compressor> make_efsignsgd(const Options& options);
/// Builds the "onebit" compressor (compressors/onebit.cpp).
std::unique_ptr<Compressor> make_onebit(const Options& options);
/// Builds the "onebit_adam" compressor (compressors/onebit_adam.cpp).
std::unique_ptr<Compressor> make_onebit_adam(const Options& options);
/// Builds the "topk" compressor (compressors/topk.cpp).
std::unique_ptr<Compressor> make_topk(const Options& options);
/// Builds the "randomk" compressor (compressors/randomk.cpp).
std::unique_ptr<Compressor> make_randomk(const Options& options);
/// Builds the "threshold" compressor (compressors/threshold.cpp).
std::unique_ptr<Compressor> make_threshold(const Options& options);
/// Builds the "dgc" compressor (compressors/dgc.cpp).
std::unique_ptr<Compressor> make_dgc(const Options& options);
/// Builds the "sidco" compressor (compressors/sidco.cpp).
std::unique_ptr<Compressor> make_sidco(const Options& options);
/// Builds the "adacomp" compressor (compressors/adacomp.cpp).
std::unique_ptr<Compressor> make_adacomp(const Options& options);
/// Builds the "powersgd" compressor (compressors/powersgd.cpp).
std::unique_ptr<Compressor> make_powersgd(const Options& options);
/// Builds the "polar" compressor (compressors/polar.cpp).
std::unique_ptr<Compressor> make_polar(const Options& options);
/// Builds the "eightbit" compressor (compressors/eightbit.cpp).
std::unique_ptr<Compressor> make_eightbit(const Options& options);
/// Builds the "srq" compressor (compressors/srq.cpp).
std::unique_ptr<Compressor> make_srq(const Options& options);
/// Builds the "gaussiank" compressor (compressors/gaussiank.cpp).
std::unique_ptr<Compressor> make_gaussiank(const Options& options);
/// Builds the "gspar" compressor (compressors/gspar.cpp).
std::unique_ptr<Compressor> make_gspar(const Options& options);
/// Builds the "ecqsgd" compressor (compressors/ecqsgd.cpp).
std::unique_ptr<Compressor> make_ecqsgd(const Options& options);
/// Builds the "stc" compressor (compressors/stc.cpp).
std::unique_ptr<Compressor> make_stc(const Options& options);
/// Builds the "sbc" compressor (compressors/sbc.cpp).
std::unique_ptr<Compressor> make_sbc(const Options& options);
/// Builds the "redsync" compressor (compressors/redsync.cpp).
std::unique_ptr<Compressor> make_redsync(const Options& options);
/// Builds the "aqsgd" compressor (compressors/aqsgd.cpp).
std::unique_ptr<Compressor> make_aqsgd(const Options& options);
/// Builds the "gradzip" compressor (compressors/gradzip.cpp).
std::unique_ptr<Compressor> make_gradzip(const Options& options);
/// Builds the "variance_based" compressor (compressors/variance_based.cpp).
std::unique_ptr<Compressor> make_variance_based(const Options& options);
/// Builds the "fixed_proportion" compressor (compressors/fixed_proportion.cpp).
std::unique_ptr<Compressor> make_fixed_proportion(const Options& options);

/// Error-feedback kinds defined in their own files (the feedback registry in error_feedback.cpp points at them).
/// Builds the "diana" kind around `inner` (compressors/shifted.cpp).
std::unique_ptr<Compressor> make_diana_feedback(std::unique_ptr<Compressor> inner, const Options& options);
/// Builds the "ef21" kind around `inner` (compressors/shifted.cpp).
std::unique_ptr<Compressor> make_ef21_feedback(std::unique_ptr<Compressor> inner, const Options& options);
/// Builds the "clag" kind around `inner` (compressors/shifted.cpp).
std::unique_ptr<Compressor> make_clag_feedback(std::unique_ptr<Compressor> inner, const Options& options);

}  // namespace dtsim::compressors
