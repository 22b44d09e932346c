#pragma once
/// One tensor's gradient exchange among W workers, as compressors/compressor.hpp prescribes:
///   msg_w = c_w.compress(g_w)                    every worker, kept or not (its error feedback advances)
///   out   = combine(msg_w for the kept workers) / kept   (majority vote: the voted signs, undivided)
///   pull = "compressed": out = s.decompress(s.compress(out)) with the server's compressor s
/// "Kept" is every worker but the ones a parameter server drops (backup workers, Chen et al., "Revisiting
/// Distributed Synchronous SGD", 2016). Without compressors, out is the plain sum of the kept gradients in
/// worker order divided by their number. Wall times are measured for the simulator's cost model only.
#include <cstddef>
#include <span>
#include <vector>

#include "compressors/compressor.hpp"
#include "sim/core/units.hpp"

namespace dtsim::numerics {

/// What the simulator needs about one tensor's exchange in one step.
struct TensorExchange {
  std::size_t tensor = 0;                            ///< index into Model::tensors() (= compressor TensorId)
  compressors::Aggregation how = compressors::Aggregation::kAllReduce;  ///< fixes the collective
  std::vector<core::Bytes> wire_bytes;               ///< bytes each worker sends (first round of kLowRank)
  std::vector<core::Bytes> second_round_bytes;       ///< kLowRank: bytes each worker sends in round two
  core::Seconds compress_s = 0.0;                    ///< median over workers of compress (+ next_round) time
  core::Seconds decompress_s = 0.0;                  ///< time to combine all payloads (each worker does it)
};

/// The workers' side of one exchange of tensor `tensor`.
struct Pushes {
  std::size_t tensor = 0;                              ///< compressor TensorId
  std::vector<std::span<const float>> gradients;       ///< per worker, the tensor's gradient
  std::vector<compressors::Compressor*> compressors;   ///< per worker; empty: dense, nothing compressed
  std::vector<bool> kept;                              ///< per worker, whether the server uses it; empty: all
  std::vector<std::span<const float>> second_moments;  ///< per worker, the tensor's per-example second moment
                                                       ///< (Compressor::observe_second_moment); empty: none
};

/// Combines `pushes` into `out` (the tensor's averaged update) and describes the exchange; `server`, when
/// not null, compresses the result once more (parameter server with pull = "compressed").
TensorExchange exchange_gradients(const Pushes& pushes, compressors::Compressor* server, std::span<float> out);

}  // namespace dtsim::numerics
