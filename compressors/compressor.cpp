#include "compressors/compressor.hpp"

#include <algorithm>
#include <cstring>

#include "sim/core/error.hpp"

namespace dtsim::compressors {

std::string_view to_string(Aggregation how) {
  switch (how) {
    case Aggregation::kAllReduce: return "allreduce";
    case Aggregation::kAllGather: return "allgather";
    case Aggregation::kMajorityVote: return "majority_vote";
    case Aggregation::kLowRank: return "low_rank";
  }
  return "?";
}

Compressed Compressor::reduce(std::span<const Compressed> msgs) const {
  DTSIM_CHECK(!msgs.empty(), "reduce needs at least one message");
  const Compressed& first = msgs.front();
  DTSIM_CHECK(first.how == Aggregation::kAllReduce || first.how == Aggregation::kLowRank,
              "only all-reduce and low-rank payloads can be reduced");
  Compressed sum = first;
  const std::size_t count = sum.payload.size() / sizeof(float);
  if (count == 0) return sum;
  std::vector<float> acc(count), term(count);
  std::memcpy(acc.data(), first.payload.data(), count * sizeof(float));
  for (std::size_t w = 1; w < msgs.size(); ++w) {
    DTSIM_CHECK(msgs[w].payload.size() == sum.payload.size(), "reduced payloads differ in size");
    std::memcpy(term.data(), msgs[w].payload.data(), count * sizeof(float));
    for (std::size_t i = 0; i < count; ++i) acc[i] += term[i];
  }
  std::memcpy(sum.payload.data(), acc.data(), count * sizeof(float));
  return sum;
}

Compressed Compressor::next_round(const Compressed&) {
  DTSIM_CHECK(false, "next_round is only defined for low-rank compressors");
  return {};
}

void Compressor::set_shape(TensorId id, std::int64_t rows, std::int64_t cols) {
  DTSIM_CHECK(rows > 0 && cols > 0, "a tensor shape needs positive rows and cols");
  shapes_[id] = {rows, cols};
}

std::pair<std::int64_t, std::int64_t> Compressor::shape(TensorId id) const {
  const auto it = shapes_.find(id);
  return it == shapes_.end() ? std::pair<std::int64_t, std::int64_t>{0, 0} : it->second;
}

std::uint64_t Compressor::next_step(TensorId id) { return steps_[id]++; }

Compressed Compressor::compress(std::span<const float> grad, TensorId id) {
  Compressed msg;
  compress(grad, id, msg);
  return msg;
}

void Compressor::start_message(Compressed& msg, std::span<const float> grad, TensorId id, std::uint64_t step,
                               Aggregation how) {
  msg.payload.clear();
  msg.shared.clear();
  msg.round = 0;
  msg.how = how;
  msg.numel = static_cast<std::int64_t>(grad.size());
  msg.tensor = id;
  msg.step = step;
}

void aggregate(const Compressor& compressor, std::span<const Compressed> msgs, std::span<float> out) {
  DTSIM_CHECK(!msgs.empty(), "aggregate needs at least one message");
  const Aggregation how = msgs.front().how;
  if (how == Aggregation::kAllReduce || how == Aggregation::kLowRank) {
    DTSIM_CHECK(how != Aggregation::kLowRank || msgs.front().round == 1,
                "a low-rank exchange needs next_round before aggregation");
    compressor.decompress(compressor.reduce(msgs), out);
    return;
  }
  std::fill(out.begin(), out.end(), 0.0f);
  std::vector<float> one(out.size());
  for (const Compressed& msg : msgs) {
    compressor.decompress(msg, one);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] += one[i];
  }
  if (how == Aggregation::kMajorityVote) {
    for (float& x : out) x = x >= 0.0f ? 1.0f : -1.0f;
  }
}

core::Bytes exchange_local(Compressor& compressor, std::span<const float> grad, TensorId id, std::span<float> out) {
  Compressed msg = compressor.compress(grad, id);
  core::Bytes sent = msg.wire_size;
  if (msg.how == Aggregation::kLowRank) {
    msg = compressor.next_round(compressor.reduce(std::span<const Compressed>(&msg, 1)));
    sent += msg.wire_size;
  }
  aggregate(compressor, std::span<const Compressed>(&msg, 1), out);
  return sent;
}

}  // namespace dtsim::compressors
