#include "sim/parallel/gradient_dtype.hpp"

namespace dtsim::parallel {

std::vector<std::string> gradient_dtype_names() { return {"fp32", "bf16", "fp16"}; }

models::Precision default_gradient_dtype(const Layout& layout, models::Precision precision) {
  using models::Precision;
  // fp8 (Transformer Engine): the layers hand bf16 gradients to the framework, as bf16 training does; Megatron-LM
  // runs fp8 with --bf16.
  const Precision p = models::non_gemm_precision(precision);
  const bool half = p == Precision::fp16 || p == Precision::bf16;
  if (!half) return Precision::fp32;
  // Megatron-LM (megatron/training/arguments.py): "bfloat16 requires gradient accumulation and all-reduce to be
  // done in fp32", so --bf16 sets accumulate_allreduce_grads_in_fp32 = True; with --fp16 it stays False (its
  // default) and the fp16 gradients are accumulated and all-reduced as they are.
  if (layout.tensor > 1 || layout.pipeline > 1 || layout.framework.framework == Framework::megatron) return p == Precision::bf16 ? Precision::fp32 : p;
  // DeepSpeed (deepspeed/runtime/engine.py, DeepSpeedEngine.communication_data_type): unless configured,
  // float16 when fp16 is enabled, bfloat16 when bf16 is. PyTorch FSDP (torch/distributed/fsdp/api.py,
  // MixedPrecision.reduce_dtype): "If this is None but param_dtype is not None, then this takes on the
  // param_dtype value, still running gradient reduction in low precision".
  if (layout.sharding != Sharding::none) return p;
  // PyTorch automatic mixed precision (torch.autocast): the parameters stay fp32, so do their .grad, and DDP
  // all-reduces each bucket in its gradients' dtype (torch/csrc/distributed/c10d/reducer.cpp: the tensors of a
  // bucket have one dtype); Horovod likewise reduces the tensors it is given. A 16-bit exchange of fp32
  // gradients is a communication hook (DDP's bf16_compress_hook, fp16_compress_hook; Horovod's
  // Compression.fp16): compression.compressor = "bf16" or "fp16".
  return Precision::fp32;
}

}  // namespace dtsim::parallel
