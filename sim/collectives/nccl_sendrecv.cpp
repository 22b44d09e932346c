// nccl-tests' sendrecv: every rank sends its n bytes to the next rank and receives the previous one's, one
// ncclSend and one ncclRecv in a group (src/sendrecv.cu), NCCL's p2p with the Simple protocol. One step; the
// buffers' time (2n per GPU) its latency; no launch charged (NCCL's tuner has none for point-to-point). Closed form:
// that plus the costliest hop, alpha_inter + n beta_inter once the ring spans nodes (and alpha_intra + n beta_intra
// where that is costlier).
#include "sim/collectives/factories.hpp"
#include "sim/collectives/nccl_tuned.hpp"
#include "sim/collectives/phases.hpp"

namespace dtsim::collectives {
namespace {

class NcclSendrecv final : public Collective, public NcclTuned {
 public:
  explicit NcclSendrecv(const LinkCosts& tuned_for) : tuned_for_(tuned_for) {}
  std::string_view name() const override { return "nccl"; }
  std::string choice_name(const Group&, double) const override { return "p2p/Simple"; }
  std::optional<double> model_s(const Group&, double) const override { return std::nullopt; }

  Schedule plan(const Group& group, std::int64_t bytes) const override {
    Schedule schedule{group.ranks, {}};
    if (group.ranks <= 1) return schedule;
    Step& step = schedule.steps.emplace_back();
    step.latency_s = 2.0 * static_cast<double>(bytes) * tuned_for_.buffer_s_per_byte;
    for (int r = 0; r < group.ranks; ++r) step.transfers.push_back({r, (r + 1) % group.ranks, bytes});
    return schedule;
  }

  double closed_form_s(const Group& group, double bytes, const LinkCosts& costs) const override {
    if (group.ranks <= 1) return 0.0;
    double hop_s = group.ranks_per_node > 1 ? message_s(costs.intra, bytes) : 0.0;
    if (group.nodes() > 1) hop_s = std::max(hop_s, message_s(costs.inter, bytes));
    return 2 * bytes * tuned_for_.buffer_s_per_byte + hop_s;
  }

 private:
  LinkCosts tuned_for_;
};

}  // namespace

std::unique_ptr<Collective> make_nccl_sendrecv(const LinkCosts& tuned_for) {
  return std::make_unique<NcclSendrecv>(tuned_for);
}

}  // namespace dtsim::collectives
