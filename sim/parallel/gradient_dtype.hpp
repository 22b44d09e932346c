#pragma once
/// The dtype data-parallel gradients are kept in and reduced in (strategy.gradient_dtype), and its default: the
/// one of the framework each layout stands for.
#include <string>
#include <vector>

#include "models/gpu_profile.hpp"
#include "sim/parallel/layout.hpp"

namespace dtsim::parallel {

/// Names accepted for strategy.gradient_dtype.
std::vector<std::string> gradient_dtype_names();

/// The gradient dtype the framework behind `layout` uses at training precision `p` when not told otherwise:
/// - plain data parallelism (PyTorch DDP or Horovod with automatic mixed precision): fp32;
/// - tensor or pipeline parallelism, or framework = "megatron" (Megatron-LM): fp32 for bf16 and fp32 training, fp16 for fp16 training;
/// - sharded data parallelism (DeepSpeed ZeRO, PyTorch FSDP): the training precision's dtype.
models::Precision default_gradient_dtype(const Layout& layout, models::Precision p);

}  // namespace dtsim::parallel
