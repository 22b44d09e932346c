#pragma once
/// Pipeline schedules: the order in which one stage runs the forward and backward passes of its model chunks
/// over the micro-batches of an iteration.
#include <string>
#include <string_view>
#include <vector>

namespace dtsim::parallel {

/// One pass of one micro-batch through one of the stage's model chunks.
struct Pass {
  bool forward = true;
  int micro_batch = 0;
  int chunk = 0;  ///< the stage's chunk (0 .. virtual_stages-1); the model's chunk chunk * stages + stage
};

/// The passes stage `stage` of `stages` runs, in order, for `micro_batches` micro-batches and `chunks` model
/// chunks per stage. Every (micro-batch, chunk) appears once forward and once backward, forward first.
using PipelineSchedule = std::vector<Pass> (*)(int stage, int stages, int micro_batches, int chunks);

/// GPipe (Huang et al., NeurIPS 2019): every forward, then every backward in reverse micro-batch order.
std::vector<Pass> gpipe(int stage, int stages, int micro_batches, int chunks);
/// 1F1B (PipeDream-Flush, Narayanan et al., ICML 2021; Megatron-LM's default): stages - stage - 1 warm-up
/// forwards, then one forward and one backward in turn, then the remaining backwards.
std::vector<Pass> one_f_one_b(int stage, int stages, int micro_batches, int chunks);
/// Interleaved 1F1B (Narayanan et al., SC 2021, section 2.2.2; Megatron-LM's
/// forward_backward_pipelining_with_interleaving): each stage holds `chunks` model chunks and runs micro-batches
/// in groups of `stages` per chunk.
std::vector<Pass> interleaved_1f1b(int stage, int stages, int micro_batches, int chunks);

/// Registry keys: gpipe, 1f1b, interleaved.
std::vector<std::string> pipeline_schedule_names();
/// The schedule called `name`; throws core::InputError listing the names.
PipelineSchedule pipeline_schedule(std::string_view name);
/// Why `name` cannot run `micro_batches` micro-batches on `stages` stages with `chunks` chunks each (empty when it
/// can): GPipe and 1F1B run one chunk; interleaving needs chunks >= 2 and micro-batches a multiple of the stages.
std::string pipeline_schedule_refusal(std::string_view name, int stages, int micro_batches, int chunks);

}  // namespace dtsim::parallel
