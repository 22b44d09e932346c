#pragma once
/// What a compressor's GPU kernels do, counted in the quantities a GPU cost model prices: bytes moved through
/// device memory, fp32 operations, kernel launches. Every compressor declares the work of its compress,
/// second round and decompress (Compressor::kernel_cost) from these building blocks, each the structure of a
/// public GPU implementation; sim/run/kernel_model.hpp turns the counts into seconds on a GPU profile.
///
/// Building blocks (n elements of fp32, c elements selected, ib bytes per index on the wire):
///   pass(n, r, w)          one element-wise kernel: n (r + w) bytes, 1 launch
///   reduction(n)           one statistic (sum, norm, max, a count): CUB DeviceReduce, 4n bytes, 2 launches
///   select_if(n, c, ib)    stream compaction (CUB DeviceSelect::If): 4n + c (ib + 4) bytes, 2 launches
///   radix_select(n, k, ib) torch.topk's multi-block radix selection (ATen TensorTopK.cu, mbtopk: 8-bit digits,
///                          so 4 digit passes over fp32 keys, each a histogram kernel and a prefix kernel), then
///                          one gather: 4 * 4n + 4n + k (ib + 4) bytes, 9 launches
///   radix_sort(n, kb, vb)  LSD radix sort of (kb-byte key, vb-byte value) pairs as Onesweep (Adinets & Merrill,
///                          arXiv 2206.01784, 2022): one histogram pass reading the keys, then one pass per 8-bit
///                          digit that reads and writes every pair: n kb + kb * 2 n (kb + vb) bytes, 1 + kb launches
///   gather(c, w)           c scattered 4-byte reads, each a whole 32-byte sector (CUDA C programming guide,
///                          device memory accesses), written densely: 32 c + w bytes, 1 launch
///   scatter(n, c, r)       zero the dense tensor (cudaMemsetAsync) and write c values at random positions from
///                          r bytes of payload: 4n + r + 32 c bytes, 2 launches
///   matmul(m, k, n)        an m x k times k x n product: 2 m k n flops, 4 (m k + k n + m n) bytes, 1 launch
#include <cstdint>

namespace dtsim::compressors {

/// Work of a sequence of GPU kernels.
struct KernelWork {
  double bytes = 0;       ///< bytes read and written in device memory
  double flops = 0;       ///< fp32 operations beyond what the memory passes hide (products, transforms)
  std::int64_t launches = 0;  ///< kernels launched

  /// Adds the work of `other` (run after this one).
  KernelWork& operator+=(const KernelWork& other);
  bool operator==(const KernelWork&) const = default;
};

/// The sum of two sequences.
KernelWork operator+(KernelWork a, const KernelWork& b);
/// `times` repeats of `w`.
KernelWork operator*(std::int64_t times, const KernelWork& w);

/// The kernels of one exchange of one tensor on one worker.
struct KernelCost {
  KernelWork compress;    ///< gradient to payload, error feedback's passes included
  KernelWork next_round;  ///< low rank: the second factor from the reduced first one (empty otherwise)
  KernelWork decompress;  ///< one message (one worker's, or the reduced one) to a dense tensor
};

namespace kernel {

/// One element-wise kernel over n elements reading `read` and writing `written` bytes per element.
KernelWork pass(double n, double read, double written);
/// One statistic over n fp32 (sum, norm, max, a count): CUB DeviceReduce's two kernels.
KernelWork reduction(double n);
/// Stream compaction of the c of n fp32 elements that pass a test, as (index, value) pairs.
KernelWork select_if(double n, double c, double index_bytes);
/// Exact top-k of n fp32 by torch.topk's radix selection, written as k (index, value) pairs.
KernelWork radix_select(double n, double k, double index_bytes);
/// LSD radix sort of n pairs of a `key_bytes` key and a `value_bytes` value (0: keys only).
KernelWork radix_sort(double n, double key_bytes, double value_bytes);
/// c scattered fp32 reads, written densely with `written` bytes in all.
KernelWork gather(double c, double written);
/// A zeroed n-element fp32 tensor with c values scattered into it from `read` bytes of payload.
KernelWork scatter(double n, double c, double read);
/// Encodes n fp32 into a `wire` byte payload in one kernel.
KernelWork encode(double n, double wire);
/// Decodes a `wire` byte payload into n fp32 in one kernel.
KernelWork decode(double n, double wire);
/// The product of an m x k and a k x n fp32 matrix.
KernelWork matmul(double m, double k, double n);

}  // namespace kernel
}  // namespace dtsim::compressors
