// bsp, bulk synchronous parallel (Goyal et al. 2017; survey seed 001 section 3.1): every iteration exchanges
// and a worker pulls iteration i once every worker pushed i.
#include "sim/sync/scheme.hpp"

namespace dtsim::sync {
namespace {

class Bsp final : public Scheme {
 public:
  std::string title() const override { return "bulk synchronous parallel"; }
  bool waits_for_every_push() const override { return true; }
};

}  // namespace

const Scheme& bsp_scheme() {
  static const Bsp scheme;
  return scheme;
}

}  // namespace dtsim::sync
