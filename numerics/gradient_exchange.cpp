#include "numerics/gradient_exchange.hpp"

#include <algorithm>
#include <chrono>

#include "sim/core/error.hpp"

namespace dtsim::numerics {
namespace {

using Clock = std::chrono::steady_clock;

core::Seconds seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

core::Seconds median(std::vector<core::Seconds> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/// The kept entries of `all`, in worker order.
template <class T>
std::vector<T> kept_only(const std::vector<T>& all, const std::vector<bool>& kept) {
  if (kept.empty()) return all;
  std::vector<T> out;
  for (std::size_t w = 0; w < all.size(); ++w)
    if (kept[w]) out.push_back(all[w]);
  return out;
}

void sum_dense(const std::vector<std::span<const float>>& gradients, std::span<float> out) {
  std::copy_n(gradients.front().begin(), out.size(), out.begin());
  for (std::size_t w = 1; w < gradients.size(); ++w)
    for (std::size_t i = 0; i < out.size(); ++i) out[i] += gradients[w][i];
}

void sum_compressed(const Pushes& pushes, std::span<float> out, TensorExchange& report) {
  const std::size_t count = pushes.gradients.size();
  std::vector<compressors::Compressed> msgs(count);
  std::vector<core::Seconds> compress_s(count);
  for (std::size_t w = 0; w < count; ++w) {
    if (!pushes.second_moments.empty())
      pushes.compressors[w]->observe_second_moment(pushes.tensor, pushes.second_moments[w]);
    const Clock::time_point start = Clock::now();
    pushes.compressors[w]->compress(pushes.gradients[w], pushes.tensor, msgs[w]);
    compress_s[w] = seconds_since(start);
    report.wire_bytes.push_back(msgs[w].wire_size);
  }
  report.how = msgs.front().how;
  for (const compressors::Compressed& msg : msgs) DTSIM_CHECK(msg.how == report.how, "workers disagree on aggregation");
  const compressors::Compressor& combiner = *pushes.compressors.front();
  if (report.how == compressors::Aggregation::kLowRank) {
    const compressors::Compressed first = combiner.reduce(kept_only(msgs, pushes.kept));
    for (std::size_t w = 0; w < count; ++w) {
      const Clock::time_point start = Clock::now();
      msgs[w] = pushes.compressors[w]->next_round(first);
      compress_s[w] += seconds_since(start);
      report.second_round_bytes.push_back(msgs[w].wire_size);
    }
  }
  const Clock::time_point start = Clock::now();
  compressors::aggregate(combiner, kept_only(msgs, pushes.kept), out);
  report.decompress_s = seconds_since(start);
  report.compress_s = median(std::move(compress_s));
}

}  // namespace

TensorExchange exchange_gradients(const Pushes& pushes, compressors::Compressor* server, std::span<float> out) {
  const std::size_t count = pushes.gradients.size();
  DTSIM_CHECK(count >= 1 && (pushes.kept.empty() || pushes.kept.size() == count) &&
                  (pushes.compressors.empty() || pushes.compressors.size() == count) &&
                  (pushes.second_moments.empty() || pushes.second_moments.size() == count) &&
                  (pushes.kept.empty() || std::ranges::count(pushes.kept, true) >= 1),
              "one gradient, compressor and kept flag per worker, at least one kept");
  TensorExchange report;
  report.tensor = pushes.tensor;
  if (pushes.compressors.empty()) {
    report.wire_bytes.assign(count, static_cast<core::Bytes>(out.size() * sizeof(float)));
    sum_dense(kept_only(pushes.gradients, pushes.kept), out);
  } else {
    sum_compressed(pushes, out, report);
  }
  if (report.how != compressors::Aggregation::kMajorityVote) {
    const auto divisor = static_cast<float>(pushes.kept.empty() ? count : std::ranges::count(pushes.kept, true));
    for (float& x : out) x /= divisor;
  }
  if (server) {
    const std::vector<float> aggregate(out.begin(), out.end());
    compressors::exchange_local(*server, aggregate, pushes.tensor, out);
  }
  return report;
}

}  // namespace dtsim::numerics
