#include "sim/run/stage_buckets.hpp"

#include <map>
#include <memory>
#include <utility>

#include "sim/run/bucket_plan.hpp"

namespace dtsim::run {

parallel::DataPlanner stage_planner(const scenario::Scenario& s, const parallel::Placement& placement,
                                    std::shared_ptr<std::string> note) {
  // Every stage's data group has the same shape on a symmetric layout: its all-reduce's alpha and beta (NCCL's tree
  // times its plan of the group's ranks) are found once per shape.
  auto alpha_beta_of = std::make_shared<std::map<std::pair<int, int>, collectives::AlphaBeta>>();
  return [&s, &placement, note, alpha_beta_of](int stage, const std::vector<parallel::StageGradient>& gradients) {
    const std::vector<int> group = placement.members(placement.representative(stage), "data");
    scheduling::SchedulingInput input;
    const std::pair<int, int> shape{static_cast<int>(group.size()),
                                    parallel::ranks_per_node(group, s.platform.gpus_per_node)};
    auto at = alpha_beta_of->find(shape);
    if (at == alpha_beta_of->end())
      at = alpha_beta_of->emplace(shape, allreduce_alpha_beta(s, {shape.first, shape.second})).first;
    input.allreduce = at->second;
    GradientPieces pieces;
    for (std::size_t k = 0; k < gradients.size(); ++k) {
      input.tensors.push_back({static_cast<int>(k), gradients[k].bytes});
      std::vector<GradientPiece>& unit = pieces.emplace_back();
      for (const auto& [layer, parameters] : gradients[k].layer_parameters)
        unit.push_back({parameters,
                        layer_gradient_scale(s.model.layers[static_cast<std::size_t>(layer)].name, s.compression), 0});
    }
    // Backward runs the stage's units from the last: unit k's gradients are ready when the units from k on are done.
    input.backward_end_s.assign(gradients.size(), 0.0);
    double backward_s = 0;
    for (std::size_t k = gradients.size(); k-- > 0;) input.backward_end_s[k] = (backward_s += gradients[k].backward_s);
    scheduling::IterationPlan plan;
    plan_buckets(s, input, pieces, static_cast<int>(group.size()), plan, note.get());
    return plan;
  };
}

}  // namespace dtsim::run
