#pragma once
/// `nccl`: NCCL's all-reduce. Per size, NCCL's tuner (nccl_tuning.hpp) picks ring or tree and LL, LL128 or
/// Simple on the network the collective is tuned for; the plan is that algorithm's, with the protocol
/// showing as
///   - wire bytes: every transfer carries its data / nccl_efficiency (LL's flag bytes, LL128's 8 of 128), on
///     NVLink rings LL128 at most 16.7 GB/s of data a channel (nccl_channel_efficiency);
///   - step latency: NCCL's latency term (nccl_latency_s) is the operation's whole fixed cost, wire included.
///     The plan's steps already pay their links' latencies (on the network it is tuned for): what NCCL's term
///     adds beyond those, if anything, is spread evenly over the ring's 2(p-1) steps, or over the tree's
///     pipeline fill and drain steps (in steady state NCCL keeps NCCL_STEPS chunks in flight). A platform whose
///     link latencies were fitted to NCCL measurements (a100_8x8_200gbib) thus gets nothing added twice. The
///     network's per-call time (LinkCosts::call_s, platform key `call_latency`, 0 unless calibrated) is spread
///     the same way, on top, and so is the time of the caller's buffers (2n x LinkCosts::buffer_s_per_byte, key
///     `buffer_bandwidth`, 0 unless set: the input read and the output written once per GPU, at any GPU count).
/// CollNet and NVLS (nccl_in_network.hpp), where the platform's switch sums, run the in-network plan
/// (in_network.hpp) with NCCL's latency term spread over its steps as above; closed form in_network_time_s.
/// The tree (nccl_tree.hpp) is pipelined in segments of what one channel has in flight: NCCL_STEPS (8) steps
/// of its protocol's buffer (src/include/devcomm.h), data only: LL 8 x 32 KiB (a step is 8 lines x 512 threads
/// x 16 B, half of it flags), LL128 8 x 576000 B (120 x 640 x 8 B, 15 of 16 words data), Simple the whole
/// 4 MiB NCCL_BUFFSIZE; at most 1024 segments per tree. A plan step pays its links' latency in full, where NCCL
/// overlaps the 8 steps in flight: a segment of one step would charge that latency 8 times over. The ring runs
/// on NCCL's ring channels (nccl_rings): inside one NVLink-mesh node each channel is its own ring over its own
/// NVLinks with 1/C of the data (a DGX-1's 8 GPUs: 6 rings); across nodes with several NICs one ring per NIC;
/// elsewhere NCCL's channels run over the same links in parallel, which on the flow level is one ring moving
/// all the bytes, so there channels show only through the tree's segment size.
///
/// Closed form: ring  call + 2n buffer + max(0, latency - 2(p-1) alpha) + 2(p-1) (alpha + wire(n/(p C)) beta), C rings
/// (wire at nccl_channel_efficiency; with beta = 0 a capped LL128 chunk takes n/(p C) / 16.7 GB/s)
/// each on links of its own (an NVLink relay or a hop across rails pays one alpha, as a direct hop), with the
/// inter-node alpha-beta once the ring spans nodes; tree  its plan's critical path on contention-free links
/// (intra-node pairs alpha-beta intra, others inter), which with one GPU per node is double_binary_tree's
/// 2 S(p, k) sub-steps plus what the latency adds.
#include <memory>
#include <string>
#include <utility>

#include "sim/collectives/collective.hpp"
#include "sim/collectives/move_plan.hpp"
#include "sim/collectives/nccl_ring.hpp"
#include "sim/collectives/nccl_tuned.hpp"
#include "sim/collectives/nccl_tuning.hpp"

namespace dtsim::collectives {

/// NCCL's all-reduce under registry key `name` ("nccl", or "auto", which means NCCL's choice).
class NcclAllreduce final : public Collective, public NcclTuned {
 public:
  /// `tuned_for`: the network NCCL's tuner sees; `force`: NCCL_ALGO / NCCL_PROTO-style overrides.
  NcclAllreduce(std::string name, const LinkCosts& tuned_for, NcclForce force = {})
      : name_(std::move(name)), tuned_for_(tuned_for), force_(force) {}
  std::string_view name() const override { return name_; }
  /// The (algorithm, protocol) used for `bytes` bytes over `group`.
  NcclChoice chosen(const Group& group, double bytes) const { return nccl_tune(group, tuned_for_, bytes, force_); }
  std::string choice_name(const Group& group, double bytes) const override { return chosen(group, bytes).name(); }
  /// nccl_predicted_s of the choice.
  std::optional<double> model_s(const Group& group, double bytes) const override {
    return nccl_predicted_s(chosen(group, bytes), group, tuned_for_, bytes);
  }
  std::optional<std::string> variant(const Group& group, double bytes) const override {
    return choice_name(group, bytes);
  }
  /// The tree's data ranges for `bytes` (replayable on data; wire bytes and latencies are the plan's).
  MovePlan tree_moves(const Group& group, std::int64_t bytes, NcclProtocol protocol) const;
  Schedule plan(const Group& group, std::int64_t bytes) const override;
  /// The ring's plan fused: one step of C x p transfers (ring c's place r to r+1, c-major as the plan), each
  /// with the wire bytes of the 2(p-1) chunks it sends (all of its ring's but chunks r+1 and r+2 once each) and
  /// the steps' latency; empty for the tree.
  std::optional<std::vector<FusedStep>> fused_plan(const Group& group, std::int64_t bytes) const override;
  /// The ring's plan time without the plan (nccl_ring_time_s); empty for the tree.
  std::optional<double> plan_time_s(const Group& group, std::int64_t bytes,
                                    const core::PathModel& network) const override;
  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override;
  /// The transfers of the plan the analytic level still builds for `bytes`, without building it: none for the
  /// ring (fused_plan, plan_time_s), the tree's 2 trees x segments x 2(p-1) (every GPU but a tree's root sends
  /// each segment up once and receives it down once).
  std::int64_t analytic_plan_transfers(const Group& group, std::int64_t bytes) const;
  bool charges_launch() const override { return true; }
  /// NCCL's ring channels over `group` (nccl_rings on the network it is tuned for).
  std::vector<std::vector<int>> phase_rings(const Group& group) const override { return nccl_rings(group, tuned_for_); }

 private:
  /// The network's per-call time (LinkCosts::call_s) and buffer time (2 `bytes` x buffer_s_per_byte) plus NCCL's
  /// latency term less `link_latency_s`, the links' latency the plan's steps already pay (that part never < 0).
  double extra_latency_s(const Group& group, double bytes, double link_latency_s) const;
  /// An in-network algorithm's plan (in_network_plan): its chunks and each step's share of the extra latency.
  struct InNetwork {
    int chunks = 1;
    double step_latency_s = 0;
  };
  /// The in-network plan's shape when NCCL picks CollNet or NVLS for `bytes`: chunks as in_network_chunks on the
  /// way to the switch, NCCL's latency beyond the k + 1 steps' path latencies spread over them.
  std::optional<InNetwork> in_network_steps(const Group& group, double bytes) const;
  /// The ring's channels and what its plan's steps carry (NcclRingPlan), when NCCL picks the ring for `bytes`.
  std::optional<NcclRingPlan> ring_plan(const Group& group, std::int64_t bytes) const;
  std::string name_;
  LinkCosts tuned_for_;
  NcclForce force_;
};

/// make_collective(name, tuned_for), NCCL's choice forced by `force` when `name` is "nccl" or "auto".
std::unique_ptr<Collective> make_collective(std::string_view name, const LinkCosts& tuned_for, const NcclForce& force);
/// Bytes on the wire for `data` bytes sent with efficiency `efficiency`: ceil(data / efficiency).
double nccl_wire_bytes(double data, double efficiency);
/// Tree segments for `bytes_per_tree` with `protocol`: ceil(bytes / segment), between 1 and 1024.
int nccl_tree_segments(double bytes_per_tree, NcclProtocol protocol);

}  // namespace dtsim::collectives
