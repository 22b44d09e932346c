#pragma once
/// The compressor interface: real math on gradient spans, and exactly the bytes that go on the
/// wire (design after GRACE: Xu et al., "GRACE: A Compressed Communication Framework for
/// Distributed Machine Learning", ICDCS 2021).
///
/// One exchange of tensor `id` on every worker w:
///   msg_w = c_w.compress(grad_w, id)
///   kAllReduce:     out = c.decompress(c.reduce({msg_w}))           (one all-reduce of payloads)
///   kAllGather:     out = sum_w c.decompress(msg_w)                 (all-gather, then sum)
///   kMajorityVote:  out = sign(sum_w c.decompress(msg_w)), 0 -> +1  (all-gather, then vote)
///   kLowRank:       r1 = c.reduce({msg_w}); m2_w = c_w.next_round(r1);
///                   out = c.decompress(c.reduce({m2_w}))            (two dependent all-reduces)
/// `out` is the sum over workers; the caller divides by the worker count to average.
#include <cstdint>
#include <map>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "compressors/kernel_work.hpp"
#include "sim/core/units.hpp"

namespace dtsim::compressors {

/// Identifies one gradient tensor (layer parameter); per-tensor state is keyed by it.
using TensorId = std::uint64_t;

/// How the payloads of all workers are combined, which also fixes the collective.
enum class Aggregation {
  kAllReduce,     ///< payloads are summable as they are: one all-reduce
  kAllGather,     ///< per-worker payloads (sparse index/value, per-worker scales): all-gather, sum
  kMajorityVote,  ///< sign bits: all-gather, element-wise majority vote
  kLowRank,       ///< PowerSGD: all-reduce of P, then all-reduce of Q
};

/// Name of an aggregation mode ("allreduce", "allgather", "majority_vote", "low_rank").
std::string_view to_string(Aggregation how);

/// One worker's message for one tensor: the payload bytes exactly as sent plus local context.
struct Compressed {
  std::vector<std::byte> payload;            ///< the bytes on the wire, little-endian
  core::Bytes wire_size = 0;                 ///< bytes on the wire; always payload.size()
  Aggregation how = Aggregation::kAllReduce; ///< how messages of all workers are combined
  std::int64_t numel = 0;                    ///< local: elements of the dense tensor (agreed, not sent)
  TensorId tensor = 0;                       ///< local: the tensor this message belongs to
  std::uint64_t step = 0;                    ///< local: index of this exchange for the tensor (0, 1, ...)
  int round = 0;                             ///< local: 0, or 1 for the second all-reduce of kLowRank
  std::vector<float> shared;                 ///< local context equal on all ranks, never sent (PowerSGD's P)
};

/// A gradient compressor; keeps per-tensor state (momentum, warm start, step counters).
class Compressor {
 public:
  virtual ~Compressor() = default;
  /// Registry (TOML) name, e.g. "topk".
  virtual std::string_view name() const = 0;
  /// Compresses one gradient into `msg`, reusing its payload's capacity; may update state.
  virtual void compress(std::span<const float> grad, TensorId id, Compressed& msg) = 0;
  /// Compresses one gradient into a new message.
  Compressed compress(std::span<const float> grad, TensorId id);
  /// Expands a message (or a reduced message) into `out` (size msg.numel).
  virtual void decompress(const Compressed& msg, std::span<float> out) const = 0;
  /// Sums the messages of all workers (kAllReduce and kLowRank only) as the all-reduce would.
  virtual Compressed reduce(std::span<const Compressed> msgs) const;
  /// Second round of kLowRank: this worker's message from the all-reduced first round.
  virtual Compressed next_round(const Compressed& reduced);
  /// True when E[decompress(compress(x))] = x for every x.
  virtual bool unbiased() const { return false; }
  /// Declares the 2-D (row-major) view of tensor `id`; used by powersgd and onebit.
  virtual void set_shape(TensorId id, std::int64_t rows, std::int64_t cols);
  /// True when compress() decides from each element's second moment over the mini-batch's samples, which the
  /// caller then hands over with observe_second_moment before each compress of a gradient (variance_based).
  virtual bool wants_second_moment() const { return false; }
  /// For the next compress() of tensor `id`: m_i = sum over the batch's B samples z of (g_zi / B)^2, g_z the
  /// gradient of sample z's loss (the batch gradient is sum_z g_z / B); compressors that want none ignore it.
  virtual void observe_second_moment(TensorId, std::span<const float>) {}
  /// The GPU work of the exchange whose message this worker's compress() just produced (`msg`): its compress,
  /// second round (low rank) and the decompress of one such message (compressors/kernel_work.hpp).
  virtual KernelCost kernel_cost(const Compressed& msg) const = 0;

 protected:
  /// The declared shape of `id`, or {0, 0} when none was declared.
  std::pair<std::int64_t, std::int64_t> shape(TensorId id) const;
  /// Returns the exchange index of `id` and advances it.
  std::uint64_t next_step(TensorId id);
  /// Empties `msg` (keeping its capacity) and fills in the local context for `grad`.
  static void start_message(Compressed& msg, std::span<const float> grad, TensorId id, std::uint64_t step,
                            Aggregation how);

 private:
  std::map<TensorId, std::pair<std::int64_t, std::int64_t>> shapes_;
  std::map<TensorId, std::uint64_t> steps_;
};

/// Combines the messages of all workers into `out` (sum, or majority vote) for every mode but the
/// first round of kLowRank; see the protocol at the top of this file.
void aggregate(const Compressor& compressor, std::span<const Compressed> msgs, std::span<float> out);

/// Runs one full single-worker exchange (all rounds) of `grad` and writes the result to `out`;
/// returns the bytes this worker put on the wire.
core::Bytes exchange_local(Compressor& compressor, std::span<const float> grad, TensorId id, std::span<float> out);

}  // namespace dtsim::compressors
