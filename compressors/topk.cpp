/// topk: the k elements of largest magnitude, k = max(1, floor(n * ratio)) (Aji & Heafield,
/// "Sparse Communication for Distributed Gradient Descent", EMNLP 2017; GRACE's TopKCompressor).
/// Exact: ties go to the lower index, NaN ranks above Inf.
/// Wire: sparse layout of compressors/wire.hpp, [k x int32 index ascending][k x fp32 value]
/// (int64 indices when n >= 2^31); aggregation allgather. Parameters: ratio (0.01, in (0, 1]).
#include "compressors/factories.hpp"
#include "compressors/top_k_select.hpp"
#include "compressors/wire.hpp"

namespace dtsim::compressors {
namespace {

class TopK final : public Compressor {
 public:
  explicit TopK(double ratio) : ratio_(ratio) {}
  std::string_view name() const override { return "topk"; }
  /// torch.topk's radix selection (GRACE's TopKCompressor), then the k pairs sorted by index for the ascending
  /// layout; a scatter into a zeroed tensor.
  KernelCost kernel_cost(const Compressed& msg) const override {
    const auto n = static_cast<double>(msg.numel), wire = static_cast<double>(msg.wire_size);
    const auto ib = static_cast<double>(wire::index_bytes(msg.numel));
    const auto c = static_cast<double>(wire::sparse_count(msg.payload.size(), msg.numel));
    return {kernel::radix_select(n, c, ib) + kernel::radix_sort(c, ib, 4), {}, kernel::scatter(n, c, wire)};
  }

  void compress(std::span<const float> grad, TensorId id, Compressed& msg) override {
    start_message(msg, grad, id, next_step(id), Aggregation::kAllGather);
    const auto n = grad.size();
    const std::size_t k = n == 0 ? 0 : std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(n) * ratio_));
    select_top_k(grad, k, indices_);
    wire::put_selected(msg.payload, grad, indices_, values_);
    msg.wire_size = static_cast<core::Bytes>(msg.payload.size());
  }

  void decompress(const Compressed& msg, std::span<float> out) const override { wire::scatter_sparse(msg.payload, out); }

 private:
  double ratio_;
  std::vector<std::int64_t> indices_;
  std::vector<float> values_;
};

}  // namespace

std::unique_ptr<Compressor> make_topk(const Options& options) {
  OptionReader reader("compressor 'topk'", options);
  const double ratio = reader.real("ratio", 0.01, 0.0, 1.0, true);
  reader.finish();
  return std::make_unique<TopK>(ratio);
}

}  // namespace dtsim::compressors
