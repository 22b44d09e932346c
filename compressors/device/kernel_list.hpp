#pragma once
/// Every compressor with device kernels, once: DTSIM_DEVICE_KERNELS(X) calls X(name, kernel template) for each.
/// registry_cpu.cpp expands it with the CPU launcher, cuda/registry_cuda.cu with CUDA's; a port adds one line.
#include "compressors/device/adacomp_kernels.hpp"
#include "compressors/device/aqsgd_kernels.hpp"
#include "compressors/device/bf16_kernels.hpp"
#include "compressors/device/dgc_kernels.hpp"
#include "compressors/device/ecqsgd_kernels.hpp"
#include "compressors/device/eightbit_kernels.hpp"
#include "compressors/device/fixed_proportion_kernels.hpp"
#include "compressors/device/fp16_kernels.hpp"
#include "compressors/device/gaussiank_kernels.hpp"
#include "compressors/device/gradzip_kernels.hpp"
#include "compressors/device/gspar_kernels.hpp"
#include "compressors/device/int8_kernels.hpp"
#include "compressors/device/natural_kernels.hpp"
#include "compressors/device/none_kernels.hpp"
#include "compressors/device/onebit_kernels.hpp"
#include "compressors/device/qsgd_kernels.hpp"
#include "compressors/device/polar_kernels.hpp"
#include "compressors/device/powersgd_kernels.hpp"
#include "compressors/device/randomk_kernels.hpp"
#include "compressors/device/redsync_kernels.hpp"
#include "compressors/device/sbc_kernels.hpp"
#include "compressors/device/registry.hpp"
#include "compressors/device/scaled_sign_kernels.hpp"
#include "compressors/device/sidco_kernels.hpp"
#include "compressors/device/signsgd_kernels.hpp"
#include "compressors/device/signum_kernels.hpp"
#include "compressors/device/srq_kernels.hpp"
#include "compressors/device/stc_kernels.hpp"
#include "compressors/device/terngrad_kernels.hpp"
#include "compressors/device/threshold_kernels.hpp"
#include "compressors/device/topk_kernels.hpp"
#include "compressors/device/variance_based_kernels.hpp"

// clang-format off
#define DTSIM_DEVICE_KERNELS(X)     \
  X("none", NoneKernels)            \
  X("fp16", Fp16Kernels)            \
  X("bf16", Bf16Kernels)            \
  X("int8", Int8Kernels)            \
  X("natural", NaturalKernels)      \
  X("qsgd", QsgdKernels)            \
  X("terngrad", TernGradKernels)    \
  X("signsgd", SignSgdKernels)      \
  X("signum", SignumKernels)        \
  X("efsignsgd", EfSignSgdKernels)  \
  X("onebit", OneBitKernels)        \
  X("onebit_adam", OneBitAdamKernels) \
  X("topk", TopKKernels)            \
  X("randomk", RandomKKernels)      \
  X("threshold", ThresholdKernels)  \
  X("dgc", DgcKernels)              \
  X("sidco", SidcoKernels)          \
  X("adacomp", AdaCompKernels)      \
  X("eightbit", EightBitKernels)    \
  X("gaussiank", GaussianKKernels)  \
  X("stc", StcKernels)              \
  X("sbc", SbcKernels)              \
  X("srq", SrqKernels)              \
  X("gspar", GSparKernels)          \
  X("ecqsgd", EcqsgdKernels)        \
  X("powersgd", PowerSgdKernels)    \
  X("polar", PolarKernels)          \
  X("redsync", RedSyncKernels)      \
  X("aqsgd", AqsgdKernels)          \
  X("gradzip", GradZipKernels)      \
  X("variance_based", VarianceBasedKernels) \
  X("fixed_proportion", FixedProportionKernels)
// clang-format on
