#pragma once
/// What `dtsim collective` prints beside a simulated NCCL call: NCCL's choice for it and NCCL's own predicted time.
#include <algorithm>
#include <optional>
#include <string>

#include "sim/collectives/collective.hpp"

namespace dtsim::collectives {

/// A collective as NCCL runs it (NcclAllreduce, and NCCL's all-gather, reduce-scatter, broadcast, all-to-all and
/// send/recv of make_operation).
class NcclTuned {
 public:
  virtual ~NcclTuned() = default;
  /// NCCL's choice for `bytes` over `group` as NCCL_DEBUG=INFO names it ("ring/LL"); "p2p/Simple" (or "pxn/Simple"
  /// where sends go through a peer on the destination's rail) for the point-to-point operations, which NCCL runs
  /// with the Simple protocol and does not tune.
  virtual std::string choice_name(const Group& group, double bytes) const = 0;
  /// NCCL's predicted time of that choice (tuning.cc: latency + bytes / algBw); empty where NCCL has no model (p2p).
  virtual std::optional<double> model_s(const Group& group, double bytes) const = 0;
};

/// The time an NCCL call adds to its plan's transfers, spread over its steps by the caller: the network's per-call
/// time (LinkCosts::call_s), the caller's buffers (`buffer_bytes` read and written per GPU x buffer_s_per_byte) and
/// NCCL's latency term beyond `link_latency_s`, the links' latency the plan's steps already pay (never below 0).
inline double nccl_call_extra_s(const LinkCosts& network, double buffer_bytes, double nccl_latency_s,
                                double link_latency_s) {
  return network.call_s + buffer_bytes * network.buffer_s_per_byte + std::max(0.0, nccl_latency_s - link_latency_s);
}

}  // namespace dtsim::collectives
