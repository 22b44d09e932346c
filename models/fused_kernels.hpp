#pragma once
/// Megatron-LM's fused kernels (Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
/// Megatron-LM", SC 2021, section 4.2, computation optimizations: bias + GeLU and bias + dropout + add fused with PyTorch
/// JIT, scale + mask + softmax as custom kernels; megatron/fused_kernels/ and megatron/model/fused_*.py).
#include "models/model.hpp"

namespace dtsim::models {

/// `model` with its transformer layers' element-wise work as Megatron-LM's fused kernels run it:
/// - scale, mask and softmax (Kernel::softmax, eager_softmax_passes kernels) become one kernel that reads the scores
///   and writes the probabilities once (FusedScaleMaskSoftmax, scaled_upper_triang_masked_softmax.cu for causal
///   masks, scaled_masked_softmax.cu otherwise); the attention dropout after it stays its own kernel, as in
///   Megatron-LM's attention;
/// - a dropout followed by its residual add (Kernel::dropout, Kernel::residual_add) becomes one kernel
///   "<prefix>.bias_dropout_add" that reads the projection's output and the residual and writes the sum once, keeping
///   the dropout mask (bias_dropout_add_fused_train);
/// - bias and GeLU: the zoo's linear modules add their bias inside the GEMM (addmm) and GeLU is one kernel, the
///   traffic of Megatron-LM's fused bias_gelu, so nothing changes.
/// FLOPs and what is kept for backward are unchanged. Throws core::InputError when the model has nothing to fuse.
Model with_fused_kernels(Model model);

}  // namespace dtsim::models
