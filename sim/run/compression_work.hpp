#pragma once
/// The timing mode of gradient compression: the real kernels run on real tensors of each bucket's size and
/// decide the bytes on the wire, the collectives used, and how long compression takes.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/scheduling/iteration_plan.hpp"

namespace dtsim::run {

/// A stretch of the fp32 gradient that a scheduler's tensor holds: `elements` values at their layer's gradient
/// scale, at `offset` in numerics mode's gradient (tensor after tensor).
struct GradientPiece {
  std::int64_t elements = 0;
  double scale = 1;
  std::int64_t offset = 0;
};

/// Per tensor the scheduler saw (SchedulingInput::tensors): the stretches it holds, in order. A model tensor is one
/// piece; a layout's unit (a transformer layer on one tensor-parallel rank) one per layer.
using GradientPieces = std::vector<std::vector<GradientPiece>>;

/// The model's tensors, one piece each, at their layers' scales (the plain data-parallel line's gradients).
GradientPieces model_gradient_pieces(const scenario::Scenario& s);

/// The scale of layer `name`'s gradients: its longest configured prefix, else compression.gradient_scale.
double layer_gradient_scale(const std::string& name, const scenario::Compression& c);

/// Per bucket of `buckets` (over the tensors of `pieces`), exchanged among `ranks` ranks: the compressor of
/// `s.compression` runs (with its error feedback) on a gradient of the
/// bucket's size: drawn from the configured distribution at each piece's layer scale (seeded), or, when
/// `real_gradient` is given (numerics mode's gradient, tensor after tensor), the bucket's slice of it. Its real wire size and aggregation mode give
/// the exchanges: an all-reduce for summable payloads, an all-gather of every rank's payload for sparse or
/// per-worker payloads and majority votes, two all-reduces (P, then Q after orthogonalisation) for PowerSGD.
/// Times (s.compression.kernel_time): by default the kernel model, each compressor's declared GPU work for the
/// message it sent priced on `s.gpu` (kernel_model.hpp); or bytes of fp32 input over `s.compression.kernel_Bps`;
/// or, measured (not reproducible), the median of repeated host runs scaled to the GPU by host / GPU memory
/// bandwidth, with `s.compression.device` = "cuda" of the device kernels' times on this machine's GPU (as they are
/// on the target GPU, else scaled by its copy bandwidth / the target's). Receivers decompress and sum every
/// gathered payload.
/// `note` says where the kernels ran and how times were mapped. Results are cached per (size, settings).
std::vector<scheduling::BucketWork> compression_work(const scenario::Scenario& s,
                                                     const std::vector<scheduling::Bucket>& buckets,
                                                     const GradientPieces& pieces, int ranks, std::string& note,
                                                     std::span<const float> real_gradient = {});

}  // namespace dtsim::run
