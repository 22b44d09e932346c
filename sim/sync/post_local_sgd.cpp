// post_local_sgd (Lin et al., ICLR 2020, "Don't use large mini-batches, use local SGD"): bsp for the first
// `switch_after` iterations, then local SGD with `period`.
#include "sim/sync/periodic_scheme.hpp"

namespace dtsim::sync {
namespace {

class PostLocalSgd final : public PeriodicScheme {
 public:
  std::string title() const override { return "post-local SGD"; }
  std::vector<SchemeOption> options() const override {
    return {{"switch_after", "integer", "required", "iterations of synchronous SGD before local SGD starts", 0, 100000,
             &SyncPolicy::switch_after, "its switch point", "iterations"},
            {"period", "integer", "4", "iterations per model average after the switch", 1, 100000, &SyncPolicy::period}};
  }
  std::string describe(const SyncPolicy& p) const override {
    return "post_local_sgd (bsp for " + std::to_string(p.switch_after) + " iterations, then period " +
           std::to_string(p.period) + ")";
  }

 protected:
  int first(const SyncPolicy& p) const override { return p.switch_after; }
};

}  // namespace

const Scheme& post_local_sgd_scheme() {
  static const PostLocalSgd scheme;
  return scheme;
}

}  // namespace dtsim::sync
