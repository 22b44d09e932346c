#pragma once
/// Expert parallelism for mixture-of-experts layers as Megatron-LM runs it (megatron/core/parallel_state.py,
/// initialize_model_parallel; megatron/core/transformer/moe/token_dispatcher.py, MoEAlltoAllTokenDispatcher).
///
/// Groups. The dense layers use tensor x context x data (x pipeline) as usual. The expert layers re-factor the same
/// ranks of each pipeline stage: Megatron-LM builds a second RankGenerator(tp = expert_tensor_parallel_size,
/// ep = expert_model_parallel_size, dp = expert_data_parallel_size, pp, cp = 1) with
/// expert_data_parallel_size = world / (expert_tensor x expert x pipeline), and takes its 'tp' groups as the expert
/// tensor-parallel groups, its 'ep' groups as the expert-parallel groups and its 'dp' groups as the expert
/// data-parallel groups. With pipeline outermost, that numbers a stage's ranks in rank order and splits them, innermost
/// first, into expert_tensor, then expert, then expert_data (layout.hpp's folded dimensions). Expert parallelism is
/// thus folded into data parallelism: it multiplies no ranks; a routed expert's parameters live on expert_tensor x
/// expert_data ranks and its gradients are summed over expert_data; the dense parameters' over data x context.
///
/// Tokens. Each rank routes its own tokens (its 1/(tensor x context) of the micro-batch's, with sequence parallelism,
/// which Megatron-LM requires with tensor parallelism and MoE): it permutes each token's top_k copies by expert, sends
/// them to the experts' ranks by an all-to-all over the expert group (dispatch), all-gathers them over the expert
/// tensor group when it is wider than 1, runs its experts as grouped GEMMs, reduce-scatters, sends the outputs back by
/// a second all-to-all (combine) and un-permutes them; backward runs the conjugate exchanges: two all-to-alls per MoE
/// layer each way. Each rank computes, on average, the routed work of its own tokens (expert_tensor x more tokens on
/// 1/expert_tensor of the weights). The busiest rank waits for no one and everyone waits for it: its experts' share of
/// the routed tokens (rank_load) scales the expert GEMMs and the all-to-alls.
#include <string>

#include "models/model.hpp"
#include "sim/parallel/layout.hpp"

namespace dtsim::parallel {

/// Why `layout`'s expert dimensions cannot hold `model` (empty when they can): expert_tensor x expert not dividing a
/// stage's tensor x context x data ranks, expert parallelism on a model without routed experts, experts not divisible
/// by expert, tensor parallelism on MoE layers without sequence parallelism (Megatron-LM's requirement), ZeRO-3 or
/// hybrid sharding of expert parameters.
std::string expert_refusal(const Layout& layout, const models::Model& model);

/// True when `model`'s MoE layers have shared experts (a dense module between the permutation and the routed
/// experts): what moe_shared_expert_overlap overlaps with the dispatch.
bool has_shared_experts(const models::Model& model);

/// The busiest expert-parallel rank's routed tokens over the mean, for routed-expert module `routed` spread over
/// `expert` ranks of experts / expert experts each: its busiest expert at expert_imbalance times the mean, the
/// other experts sharing the rest evenly: (L + (n - 1) (E - L) / (E - 1)) / n for E experts, n a rank, imbalance L.
double rank_load(const models::Layer& routed, int expert);

}  // namespace dtsim::parallel
