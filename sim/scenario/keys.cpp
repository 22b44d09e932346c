#include "sim/scenario/keys.hpp"

#include <sstream>

#include "compressors/error_feedback.hpp"
#include "compressors/registry.hpp"
#include "models/fp8_recipe.hpp"
#include "models/gpu_profile.hpp"
#include "models/optimizer.hpp"
#include "models/zoo.hpp"
#include "sim/memory/recomputation.hpp"
#include "sim/parallel/context_parallel.hpp"
#include "sim/parallel/gradient_dtype.hpp"
#include "sim/parallel/layout.hpp"
#include "sim/parallel/pipeline_schedule.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/collectives/nccl_tuning.hpp"
#include "sim/core/error.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/section.hpp"
#include "sim/scheduling/scheduler.hpp"
#include "sim/sync/gossip_graph.hpp"
#include "sim/sync/scheme.hpp"
#include "sim/sync/architecture_traits.hpp"
#include "sim/sync/sync_policy.hpp"

namespace dtsim::scenario {
namespace {

std::vector<std::string> numerics_models() { return {"softmax_regression", "mlp", "cnn"}; }
std::vector<std::string> datasets() { return {"gaussian_mixture", "teacher", "mnist", "cifar10"}; }
std::vector<std::string> shardings() { return {"iid", "dirichlet"}; }
std::vector<std::string> optimizers() { return {"sgd", "momentum", "nesterov", "adam"}; }
std::vector<std::string> sparse_collectives() { return {"allgather", "gtopk"}; }
std::vector<std::string> devices() { return {"cpu", "cuda"}; }
std::vector<std::string> noises() { return {"none", "lognormal", "exponential"}; }
std::vector<std::string> distributions() { return {"normal", "laplace", "heavy_tailed", "numerics"}; }
std::vector<std::string> compressor_names() {
  std::vector<std::string> names;
  for (const auto& e : compressors::compressor_registry()) names.emplace_back(e.name);
  return names;
}
std::vector<std::string> feedback_names() {
  std::vector<std::string> names;
  for (const auto& e : compressors::error_feedback_registry()) names.emplace_back(e.name);
  return names;
}
std::vector<std::string> memory_checks() { return {"refuse", "warn"}; }
std::vector<std::string> attentions() { return {"eager", "flash", "flash3"}; }
std::vector<std::string> kernel_choices() { return {"fused", "eager"}; }
std::vector<std::string> placements() { return {"dedicated", "colocated"}; }
std::vector<std::string> pulls() { return {"dense", "compressed"}; }
std::vector<std::string> gossip_exchanges() { return {"models", "powergossip"}; }

/// Text for a markdown table cell: a `|` would end the cell.
std::string cell(std::string text) {
  for (std::size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2)) text.replace(at, 1, "\\|");
  return text;
}

const std::string kDuration = "duration";
const std::string kSize = "size";

}  // namespace

std::string KeySpec::allowed() const {
  if (choices) return core::join_names(choices());
  if (type == "integer") return std::to_string(min) + " to " + std::to_string(max);
  if (type == "duration") return "e.g. \"5us\", \"1.2ms\" (ns us ms s min h d)";
  if (type == "bandwidth")
    return "e.g. \"10Gbps\" or \"10Gb/s\", \"12.5GBps\" or \"12.5GB/s\" (bps Kbps Mbps Gbps Tbps Bps KBps MBps GBps TBps "
           "KiBps MiBps GiBps, each also as b/s, Gb/s, GB/s, ...)";
  if (type == "size") return "e.g. \"25MiB\", \"4MB\" (B KB MB GB TB KiB MiB GiB TiB)";
  if (type == "compute rate") return "e.g. \"15.7TFLOPS\" (FLOPS GFLOPS TFLOPS PFLOPS)";
  if (type == "boolean") return "true, false";
  return "";
}

namespace {

/// [strategy.<scheme>] for every scheme with options (sim/sync's registry).
void append_scheme_tables(std::vector<KeySpec>& keys) {
  for (const sync::SchemeEntry& e : sync::scheme_registry()) {
    const sync::Scheme& scheme = e.scheme();
    if (scheme.options().empty()) continue;
    keys.push_back({"strategy", std::string(e.name), "table", "-",
                    scheme.title() + " options (only with sync = \"" + std::string(e.name) + "\")", 0, 0, nullptr});
  }
}

/// The keys of every scheme's option table.
void append_scheme_options(std::vector<KeySpec>& keys) {
  for (const sync::SchemeEntry& e : sync::scheme_registry())
    for (const sync::SchemeOption& o : e.scheme().options())
      keys.push_back({"strategy." + std::string(e.name), o.key, o.type, o.default_text, o.description,
                      static_cast<std::int64_t>(o.min), static_cast<std::int64_t>(o.max), nullptr});
}

std::vector<KeySpec> make_scenario_keys() {
  std::vector<KeySpec> keys{
      {"", "platform", "string or table", "required",
       "built-in platform name, a platform file relative to the scenario, or a table with `file` and platform keys "
       "to override",
       0, 0, nullptr},
      {"", "workers", "integer", "required", "data-parallel workers; worker r runs on GPU r", 1, 1 << 20, nullptr},
      {"", "batch_size", "integer", "required", "samples per worker per iteration", 1, 1 << 24, nullptr},
      {"", "iterations", "integer", "3",
       "iterations simulated (with local SGD the default rounds up to whole periods; a count given must end on one)",
       1, 100000, nullptr},
      {"", "model", "table", "required", "the model (not with [numerics], which defines it)", 0, 0, nullptr},
      {"", "gpu", "table", "-", "the GPU and how fast it runs the model", 0, 0, nullptr},
      {"", "strategy", "table", "-", "synchronisation, collective, scheduler and fidelity", 0, 0, nullptr},
      {"", "output", "table", "-", "what to write and where", 0, 0, nullptr},
      {"", "compression", "table", "-", "gradient compression with real kernels (timing mode)", 0, 0, nullptr},
      {"", "stragglers", "table", "-", "slow workers and compute-time noise", 0, 0, nullptr},
      {"", "failures", "array of tables", "-", "worker crashes and link failures ([[failures]])", 0, 0, nullptr},
      {"", "numerics", "table", "-", "real training of a small model against simulated time (replaces [model])", 0,
       0, nullptr},
      {"", "memory", "table", "-", "the memory model: optimizer state, activation recomputation, what to do when a GPU "
       "is too small", 0, 0, nullptr},
      {"", "parallel", "table", "-",
       "a 3D-parallel layout: tensor, pipeline and data parallelism, ZeRO/FSDP sharding (large transformers)", 0, 0,
       nullptr},
      {"model", "name", "string", "required", "a built-in model, the name of an inline layer table, or of a new [model.shape]", 0, 0,
       nullptr},
      {"model", "sequence_length", "integer", "model's",
       "tokens per sample of a built-in transformer (defaults: BERT 128, GPT-2 1024, GPT-3, Megatron-LM's, MT-NLG and "
       "BLOOM 2048, Llama 2 4096, Llama 3 8192; required for a new [model.shape]); at most the positions it was "
       "trained with",
       1, 131072, nullptr},
      {"model", "attention", "string", "eager",
       "a built-in transformer's attention core: eager (Q K^T, softmax, dropout and attention over V, each in memory, as "
       "Hugging Face's eager implementation), flash (FlashAttention-2: one fused kernel, no score matrices kept, timed "
       "from its measured throughput) or flash3 (FlashAttention-3, Hopper GPUs only)",
       0, 0, attentions},
      {"model", "kernels", "string", "model's",
       "a built-in transformer's element-wise kernels: fused (Megatron-LM's: scale, mask and softmax one pass over the "
       "attention scores instead of three; bias, dropout and residual add one kernel instead of dropout then add; bias "
       "and GeLU as the zoo already counts them, the bias inside the GEMM; the attention dropout stays its own kernel) "
       "or eager (each its own kernel, as PyTorch eager runs them). Default: fused for GPT-3, Megatron-LM's series, MT-NLG and "
       "BLOOM (Megatron-LM), eager for the others (Hugging Face) and for a new [model.shape]",
       0, 0, kernel_choices},
      {"model", "file", "string", "-",
       "CSV layer table instead of a built-in model: name,parameters,forward_flops or name,parameters,forward_ms,"
       "backward_ms",
       0, 0, nullptr},
      {"model", "layers", "array of tables", "-", "inline layer table ([[model.layers]]), forward order", 0, 0,
       nullptr},
      {"model", "shape", "table", "-",
       "a decoder-only transformer by its shape ([model.shape]): changes to the zoo decoder `name`, or a new model "
       "when `name` is none of the zoo's (then sequence_length is required)",
       0, 0, nullptr},
      {"model.shape", "layers", "integer", "zoo entry's", "transformer layers (a new shape: required)", 1, 1 << 16,
       nullptr},
      {"model.shape", "hidden", "integer", "zoo entry's", "model width (a new shape: required)", 1, 1 << 20, nullptr},
      {"model.shape", "heads", "integer", "zoo entry's", "attention (query) heads (a new shape: required)", 1, 1 << 16,
       nullptr},
      {"model.shape", "kv_heads", "integer", "zoo entry's, else heads",
       "key/value heads: heads (multi-head), a divisor of heads (grouped-query), 1 (multi-query)", 1, 1 << 16, nullptr},
      {"model.shape", "ffn_hidden", "integer", "zoo entry's, else 4 x hidden",
       "the MLP's intermediate width (of gate and of up when gated; required for a new gated shape)", 1, 1 << 22,
       nullptr},
      {"model.shape", "gated", "boolean", "zoo entry's, else false",
       "SwiGLU MLP: SiLU(x W_gate) * (x W_up), then W_down (Shazeer 2020); false: GeLU(x W_fc), then W_proj", 0, 0,
       nullptr},
      {"model.shape", "vocabulary", "integer", "zoo entry's", "vocabulary size (a new shape: required)", 1, 1 << 24,
       nullptr},
      {"model.shape", "tied_embeddings", "boolean", "zoo entry's, else true",
       "the language-model head multiplies by the token embedding's weight (no head weight of its own)", 0, 0, nullptr},
      {"model.shape", "position", "string", "zoo entry's, else learned",
       "learned (a table of max_positions rows added to the embedding), rotary (RoPE on Q and K) or alibi (a bias on "
       "the attention scores)",
       0, 0, models::position_scheme_names},
      {"model.shape", "max_positions", "integer", "zoo entry's, else sequence_length",
       "the longest sequence (rows of a learned table); sequence_length may not exceed it", 1, 1 << 24, nullptr},
      {"model.shape", "norm", "string", "zoo entry's, else layernorm", "layernorm (weight and bias) or rmsnorm "
       "(weight)", 0, 0, models::norm_kind_names},
      {"model.shape", "bias", "boolean", "zoo entry's, else true",
       "biases on the linear layers (the language-model head has none)", 0, 0, nullptr},
      {"model.shape", "dropout", "boolean", "zoo entry's, else true",
       "dropout on the attention probabilities and before each residual add (Megatron-LM's default 0.1; Llama and "
       "BLOOM train without)",
       0, 0, nullptr},
      {"model.shape", "embedding_norm", "boolean", "zoo entry's, else false",
       "a norm right after the token embedding (BLOOM's word_embeddings_layernorm)", 0, 0, nullptr},
      {"model.shape", "modules", "string", "zoo entry's, else gpt2",
       "whose modules the layer table follows: gpt2 (Hugging Face GPT2Model: one fused Q/K/V projection, as "
       "Megatron-LM; and one fused gate/up projection when gated) or llama (LlamaForCausalLM: separate q, k, v, gate "
       "and up projections, each its own GEMM)",
       0, 0, models::module_style_names},
      {"model.shape", "head_dim", "integer", "zoo entry's, else hidden / heads",
       "features per attention head (Qwen3-MoE: 128 with hidden 4096 and 64 heads)", 1, 1 << 16, nullptr},
      {"model.shape", "kv_lora_rank", "integer", "zoo entry's, else 0",
       "multi-head latent attention (DeepSeek-V2/V3) when above 0: keys and values up-projected from a latent of this "
       "width; needs head_dim (qk_nope_head_dim), rope_head_dim and v_head_dim", 0, 1 << 20, nullptr},
      {"model.shape", "q_lora_rank", "integer", "zoo entry's, else 0",
       "multi-head latent attention: queries up-projected from a latent of this width (0: a full projection)", 0,
       1 << 20, nullptr},
      {"model.shape", "rope_head_dim", "integer", "zoo entry's, else 0",
       "multi-head latent attention: the rotary features of each query/key head (qk_rope_head_dim)", 0, 1 << 16, nullptr},
      {"model.shape", "v_head_dim", "integer", "zoo entry's, else 0",
       "multi-head latent attention: features per value head", 0, 1 << 16, nullptr},
      {"model.shape", "experts", "integer", "zoo entry's, else 0",
       "routed experts of each mixture-of-experts layer (0: dense MLPs)", 0, 1 << 16, nullptr},
      {"model.shape", "top_k", "integer", "zoo entry's", "experts each token is routed to (1 .. experts)", 0, 1 << 16,
       nullptr},
      {"model.shape", "shared_experts", "integer", "zoo entry's, else 0",
       "experts every token passes through beside its routed ones (DeepSeek-V3: 1)", 0, 1 << 10, nullptr},
      {"model.shape", "expert_ffn_hidden", "integer", "zoo entry's",
       "each expert's MLP width (gated like the dense MLP)", 0, 1 << 22, nullptr},
      {"model.shape", "dense_layers", "integer", "zoo entry's, else 0",
       "the first layers keep the dense MLP (DeepSeek-V3: 3)", 0, 1 << 16, nullptr},
      {"model.shape", "moe_every", "integer", "zoo entry's, else 1",
       "layer i (from 0) past dense_layers is a mixture of experts when (i + 1) is a multiple (Llama 4 Maverick: 2)", 1,
       1 << 16, nullptr},
      {"model.shape", "capacity_factor", "number", "zoo entry's, else 0",
       "an expert takes at most this times the mean of the routed tokens and drops the rest (GShard, Switch); 0: "
       "dropless", 0, 1 << 16, nullptr},
      {"model.shape", "router_imbalance", "number", "1",
       "the busiest expert's routed tokens over the mean (1 to experts; capped by capacity_factor): the busiest "
       "expert-parallel rank's expert GEMMs and all-to-alls grow with it", 1, 1 << 16, nullptr},
      {"model.layers", "name", "string", "required", "layer name", 0, 0, nullptr},
      {"model.layers", "parameters", "integer", "0", "parameters (one fp32 gradient tensor)", 0,
       std::int64_t{1} << 40, nullptr},
      {"model.layers", "forward_flops", "number", "-", "forward FLOPs per sample (roofline timing)", 0, 0, nullptr},
      {"model.layers", "forward_time", kDuration, "-", "measured forward time per iteration", 0, 0, nullptr},
      {"model.layers", "backward_time", kDuration, "-", "measured backward time per iteration", 0, 0, nullptr},
      {"gpu", "profile", "string", "v100", "GPU profile; when the platform states its `gpu`, that one is the default and any other is refused", 0, 0, models::gpu_names},
      {"gpu", "precision", "string", "fp32",
       "arithmetic precision (refused where the GPU has no such units); fp8: Transformer Engine's recipe, Linear "
       "layers' GEMMs in fp8 (E4M3 forward, E5M2 gradients) at the fp8 peak, every other layer in bf16, bf16 weights "
       "with fp32 master weights",
       0, 0, models::precision_names},
      {"gpu", "fp8_recipe", "string", "delayed (mxfp8 on b200, gb200)",
       "with precision fp8, how tensors are scaled (Transformer Engine's recipes): delayed (amax history), current "
       "(each tensor's own amax: one more read) or mxfp8 (a scale per 32 elements; Blackwell only); each adds its "
       "quantization kernels and its fp8 weight copies",
       0, 0, models::fp8_recipe_names},
      {"gpu", "fp32", "compute rate", "profile's", "peak dense fp32 rate", 0, 0, nullptr},
      {"gpu", "tf32", "compute rate", "profile's", "peak dense tf32 rate", 0, 0, nullptr},
      {"gpu", "fp16", "compute rate", "profile's", "peak dense fp16 rate", 0, 0, nullptr},
      {"gpu", "bf16", "compute rate", "profile's", "peak dense bf16 rate", 0, 0, nullptr},
      {"gpu", "fp8", "compute rate", "profile's", "peak dense fp8 rate", 0, 0, nullptr},
      {"gpu", "memory_bandwidth", "bandwidth", "profile's", "memory bandwidth", 0, 0, nullptr},
      {"gpu", "memory", kSize, "profile's", "device memory capacity (datasheet: v100 16GiB, a100 40GiB, h100 80GiB, "
       "h200 141GiB, h800 80GiB, b200 180GiB, gb200 186GiB, mi300x 192GiB, rtx2080ti 11GiB)", 0, 0, nullptr},
      {"gpu", "compute_efficiency", "number", "profile's", "fraction of peak FLOP/s reached (0.001 to 1)", 0, 1,
       nullptr},
      {"gpu", "sm_count", "integer", "profile's",
       "streaming multiprocessors: the wave size of the GEMM model (v100 80, a100 108, h100 h200 h800 132, b200 148, "
       "gb200 152, mi300x 304 compute units, rtx2080ti 68)", 1,
       4096, nullptr},
      {"gpu", "gemm_model", "string", "waves",
       "how matrix multiplies are timed: waves (by shape: cuBLAS tiles in waves over the SMs, tile and wave "
       "quantisation, up to gemm_efficiency of peak) or roofline (at compute_efficiency, like other layers)",
       0, 0, models::gemm_model_names},
      {"gpu", "gemm_efficiency", "number", "profile's",
       "fraction of peak FLOP/s a large GEMM filling whole waves sustains (0.001 to 1; a100 0.8382, h100, h200 and "
       "h800 0.7728 sustained under load, b200 0.776, gb200 0.729, mi300x 0.514 short bursts, all at bf16, v100 and "
       "rtx2080ti their compute_efficiency); at fp8 the profile's fp8 figure when it has one (h100, h200 and h800 "
       "0.683 sustained, b200 0.763, gb200 0.723 bursts) unless this is given",
       0, 1, nullptr},
      {"gpu", "memory_efficiency", "number", "profile's", "fraction of memory bandwidth reached (0.001 to 1)", 0, 1,
       nullptr},
      {"gpu", "launch", "string", "eager",
       "how the framework issues kernels: eager (PyTorch eager: 8 us of CPU dispatch and a 0.9 us gap per kernel, so "
       "short kernels are launch-bound) or cuda_graphs (replayed from a CUDA graph: no dispatch, 0.5 us gap)",
       0, 0, models::launch_mode_names},
      {"gpu", "overlap_slowdown", "number", "1.189",
       "compute runs this many times slower while the worker's exchange runs beside it (1 to 100; 1 = no "
       "interference; default: Lee et al. 2025, measured on A100/H100/MI250/MI210)",
       1, 100, nullptr},
      {"gpu", "collective_launch", kDuration, "8.4us",
       "fixed cost of starting each exchange before its first message, hidden behind the exchange running "
       "before it (default: NCCL's ring/Simple base latency; 0 with collective nccl or auto, whose calls already "
       "pay it)",
       0, 0, nullptr},
      {"gpu", "calibration", "string", "-",
       "a calibration file `dtsim calibrate --gpu NAME TRACE.json` fitted to a PyTorch profiler trace (path relative "
       "to the scenario): its profile's kernel constants (gemm_efficiency, memory_efficiency, attention_scale, "
       "launch_gap, launch_dispatch) replace the built-in ones; keys given here replace those",
       0, 0, nullptr},
      {"gpu", "attention_scale", "number", "1",
       "measured over published FlashAttention throughput (0.01 to 10; 1: the papers' figures)", 0, 10, nullptr},
      {"gpu", "launch_gap", kDuration, "launch's",
       "GPU gap between two back-to-back kernels of a stream, replacing gpu.launch's", 0, 0, nullptr},
      {"gpu", "launch_dispatch", kDuration, "launch's",
       "CPU time to issue one kernel, replacing gpu.launch's", 0, 0, nullptr},
      {"gpu", "measured_iteration_time", kDuration, "-",
       "measured single-GPU iteration at this batch; scales the roofline times to it", 0, 0, nullptr},
      {"gpu", "measured_layers", "string", "-",
       "CSV layer,forward_ms,backward_ms measured on one GPU at this batch (every layer of the model, by name, "
       "path relative to the scenario); replaces the roofline times",
       0, 0, nullptr},
      {"strategy", "architecture", "string", "allreduce",
       "how gradients meet: an all-reduce collective, a parameter server, BytePS, or gossip between neighbours", 0, 0,
       sync::architecture_names},
      {"strategy", "sync", "string", "bsp", "synchronisation scheme (README: Synchronisation and architectures)", 0, 0,
       sync::sync_names},
      {"strategy", "backup_workers", "integer", "0",
       "bsp on ps or byteps: a round closes with the first n - b pushes, later ones are dropped", 0, 1 << 20, nullptr},
      {"strategy", "collective", "string", "ring", "all-reduce algorithm", 0, 0, collectives::collective_names},
      {"strategy", "nccl_algo", "string", "-",
       "NCCL_ALGO: the algorithm collective \"nccl\" (or \"auto\") must use at every size; default: NCCL's tuner",
       0, 0, collectives::nccl_algorithm_names},
      {"strategy", "nccl_proto", "string", "-",
       "NCCL_PROTO: the protocol collective \"nccl\" (or \"auto\") must use at every size; default: NCCL's tuner",
       0, 0, collectives::nccl_protocol_names},
      {"strategy", "scheduler", "string", "wfbp", "gradient bucketing and ordering", 0, 0,
       scheduling::scheduler_names},
      {"strategy", "framework", "string", "none",
       "the framework that hands the scheduler's buckets to the collective library, with its per-operation costs: "
       "none; horovod (each bucket one tensor: a negotiation round among all ranks every cycle, ready tensors fused "
       "up to the threshold, fusion-buffer copies at the GPU's memory bandwidth; [strategy.horovod]); ddp (PyTorch "
       "DDP: every gradient copied into its bucket before the all-reduce and back after it). Only with architecture "
       "\"allreduce\"",
       0, 0, scheduling::framework_names},
      {"strategy", "fidelity", "string", "flow", "how communication is simulated", 0, 0, fidelity_names},
      {"strategy", "gradient_dtype", "string", "the framework's",
       "dtype gradients are accumulated in and exchanged in (every all-reduce, reduce-scatter, push and pull of "
       "gradients; the models of model averaging); default: fp32, except bf16 or fp16 training under [parallel] "
       "sharding (DeepSpeed, FSDP: the training dtype) and fp16 training under tensor or pipeline parallelism "
       "(Megatron-LM); README: Gradient dtype",
       0, 0, parallel::gradient_dtype_names},
      {"strategy", "fusion", "table", "-", "Horovod fusion options (only with scheduler = \"fusion\")", 0, 0, nullptr},
      {"strategy", "ddp", "table", "-", "PyTorch DDP options (only with scheduler = \"ddp\")", 0, 0, nullptr},
      {"strategy", "priority", "table", "-", "ByteScheduler options (only with scheduler = \"priority\")", 0, 0,
       nullptr},
      {"strategy", "horovod", "table", "-", "Horovod options (only with framework = \"horovod\")", 0, 0, nullptr},
  };
  append_scheme_tables(keys);
  keys.insert(keys.end(), {
      {"strategy", "ps", "table", "-", "parameter server options (only with architecture = \"ps\" or \"byteps\")", 0,
       0, nullptr},
      {"strategy", "gossip", "table", "-", "gossip options (only with architecture = \"gossip\")", 0, 0, nullptr},
      {"strategy", "lag", "table", "-",
       "LAG skipped uploads (bsp on ps or byteps, with [numerics]: the decisions come from real gradients)", 0, 0,
       nullptr},
  });
  append_scheme_options(keys);
  keys.insert(keys.end(), {
      {"strategy.ps", "servers", "integer", "1", "parameter servers (S)", 1, 1 << 20, nullptr},
      {"strategy.ps", "placement", "string", "dedicated",
       "dedicated: servers on the hosts after the workers, spread over their nodes (BytePS: CPU machines); "
       "colocated: server s on worker s's host (byteps: on the first GPU of machine s, one per GPU machine)",
       0, 0, placements},
      {"strategy.ps", "partition", kSize, "ps: 0B, byteps: 4096000B",
       "largest piece of a bucket a server holds; 0B: each bucket split evenly over the servers", 0, 0, nullptr},
      {"strategy.ps", "summation", "string", "ps: 10GBps, byteps: 25.6GBps",
       "server summation throughput (bytes of fp32 input per second, one push at a time per server), or \"free\"",
       0, 0, nullptr},
      {"strategy.ps", "hierarchical", "boolean", "ps: false, byteps: true",
       "a node's GPUs first reduce to its first GPU, which pushes and pulls for the node and broadcasts back", 0, 0,
       nullptr},
      {"strategy.ps", "credit", kSize, "0B",
       "bytes a worker pushes at once, lower layers first (BytePS scheduling credit); 0B: no limit, bucket order",
       0, 0, nullptr},
      {"strategy.ps", "pull", "string", "dense",
       "dense: the summed bucket in fp32; compressed: the server compresses the aggregate with the push's "
       "compressor (e.g. signSGD majority vote), same wire size as a push",
       0, 0, pulls},
      {"strategy.gossip", "topology", "string", "ring", "communication graph (mixing weights: Metropolis-Hastings)",
       0, 0, sync::gossip_topology_names},
      {"strategy.gossip", "degree", "integer", "4", "random graph: mean degree", 1, 1 << 20, nullptr},
      {"strategy.gossip", "seed", "integer", "0", "random graph: seed", 0, std::int64_t{1} << 62, nullptr},
      {"strategy.gossip", "consensus_step", "number", "-",
       "CHOCO-SGD's consensus step size gamma, in (0, 1]: required by compressed gossip in numerics mode (Koloskova "
       "et al. tune it per compressor); PowerGossip's step (default 1)",
       0, 0, nullptr},
      {"strategy.gossip", "exchange", "string", "models",
       "what an edge carries (sync bsp, no [compression]): models: every model whole (D-PSGD, or CHOCO-SGD with "
       "[compression]); powergossip: rank-1 power iteration on the edge's model difference per parameter matrix, "
       "X^T p (n floats) then X q (m floats), vectors whole (Vogels, Karimireddy & Jaggi, NeurIPS 2020); the step "
       "is consensus_step, default 1",
       0, 0, gossip_exchanges},
      {"strategy.lag", "threshold", "number", "required",
       "xi: skip when ||g - g_last_sent||^2 <= xi / (lr^2 n^2) x sum of the last `window` squared model changes", 0,
       0, nullptr},
      {"strategy.lag", "window", "integer", "10", "D: model changes the criterion looks back on", 1, 1000, nullptr},
      {"strategy.fusion", "threshold", kSize, "128MiB", "fusion buffer; 0B disables fusion", 0, 0, nullptr},
      {"strategy.fusion", "cycle_time", kDuration, "1ms", "Horovod background cycle", 0, 0, nullptr},
      {"strategy.ddp", "first_bucket", kSize, "1MiB", "limit of the first bucket", 0, 0, nullptr},
      {"strategy.ddp", "bucket_cap", kSize, "25MiB", "limit of the later buckets", 0, 0, nullptr},
      {"strategy.horovod", "fusion_threshold", kSize, "64MiB",
       "HOROVOD_FUSION_THRESHOLD: the fusion buffer (Horovod 0.13 to 0.20; 128MiB from 0.21); 0B: every tensor alone",
       0, 0, nullptr},
      {"strategy.horovod", "cycle_time", kDuration, "5ms",
       "HOROVOD_CYCLE_TIME: the background thread's cycle (Horovod 0.13 to 0.20; 1ms from 0.21); 0s: no sleep, a "
       "cycle as soon as a tensor is ready",
       0, 0, nullptr},
      {"strategy.horovod", "response_cache", "boolean", "true",
       "HOROVOD_CACHE_CAPACITY > 0: ranks agree on cached tensors by two bit-vector all-reduces; false (capacity 0): "
       "every cycle the coordinator gathers the requests and broadcasts the responses",
       0, 0, nullptr},
      {"strategy.priority", "partition", kSize, "4MB", "largest piece of a tensor", 0, 0, nullptr},
      {"strategy.priority", "credit", kSize, "16MB", "bytes in flight", 0, 0, nullptr},
      {"compression", "compressor", "string", "required", "the compressor (README: Gradient compressors)", 0, 0,
       compressor_names},
      {"compression", "options", "table", "-", "the compressor's parameters, e.g. ratio = 0.01", 0, 0, nullptr},
      {"compression", "error_feedback", "string", "none", "error feedback layer", 0, 0, feedback_names},
      {"compression", "error_feedback_options", "table", "-",
       "the error feedback layer's parameters, e.g. gamma = 0.5 (residual), momentum = 0.9 (dgc), clip_norm = 1.0 "
       "(any kind), alpha = 0.25 (diana), zeta = 1.0 (clag)",
       0, 0, nullptr},
      {"compression", "sparse_collective", "string", "allgather",
       "how sparse payloads meet: all-gather of every rank's, or gTop-k (tree merge back to k per hop; " +
           core::join_names(compressors::sparse_compressors()) + ")",
       0, 0, sparse_collectives},
      {"compression", "gradient", "string", "normal",
       "what the kernels run on: synthetic gradients of a distribution, or numerics mode's real gradient (the "
       "model's first mini-batch gradient on worker 0; needs [numerics])",
       0, 0, distributions},
      {"compression", "gradient_scale", "number", "0.001", "their scale (standard deviation of the normal)", 0, 0,
       nullptr},
      {"compression", "layer_scales", "table", "-",
       "per-layer gradient scales: layer-name prefix = scale, e.g. { \"conv1\" = 1e-2, \"fc\" = 1e-4 } (longest "
       "prefix wins; other layers use gradient_scale)",
       0, 0, nullptr},
      {"compression", "kernel_time", "string", "model",
       "\"model\" (each compressor's kernels priced on the GPU profile: memory passes, selection, launches; "
       "reproducible), a fixed throughput such as \"20GBps\" of fp32 input, or \"measured\" (host runs scaled by "
       "host / GPU memory bandwidth; the outputs say the result is not reproducible)",
       0, 0, nullptr},
      {"compression", "device", "string", "cpu",
       "where the kernels run: \"cpu\" (the host kernels, times scaled to the GPU) or \"cuda\" (the device kernels "
       "on this machine's GPU, docs/cuda.md; refused by a build without CUDA or on a machine without a GPU)",
       0, 0, devices},
      {"compression", "seed", "integer", "0", "seed of the synthetic gradients (stochastic compressors take their own seed option)", 0,
       std::int64_t{1} << 62, nullptr},
      {"memory", "check", "string", "refuse",
       "a run whose peak memory per GPU exceeds the GPU's is refused before simulating, with the breakdown and the "
       "ways out; warn: it runs and the report says so",
       0, 0, memory_checks},
      {"memory", "optimizer", "string", "momentum",
       "optimizer whose state is kept (and whose step's memory traffic is timed); with [numerics], numerics.optimizer "
       "decides",
       0, 0, models::optimizer_names},
      {"memory", "activation_recomputation", "string", "none",
       "none; selective: the attention core is recomputed (Korthikanti et al. 2022); full: each transformer layer "
       "keeps only its input and runs its forward again in backward",
       0, 0, memory::recomputation_names},
      {"parallel", "tensor", "integer", "1",
       "tensor-parallel GPUs per group (Megatron-LM: column/row-parallel linear layers, two all-reduces per transformer "
       "layer forward and two backward)",
       1, 1 << 16, nullptr},
      {"parallel", "context", "integer", "1",
       "context-parallel GPUs per group (Megatron-LM / Transformer Engine): each holds 1/context of every sequence's "
       "tokens; attention exchanges keys and values over the group; gradients are summed over data x context",
       1, 1 << 16, nullptr},
      {"parallel", "context_comm", "string", "p2p",
       "context parallelism's key/value exchange: p2p (ring attention, overlapped with the attention blocks) or "
       "all_gather (Llama 3: all-gather before attention, reduce-scatter of their gradients after, not overlapped)",
       0, 0, parallel::context_comm_names},
      {"parallel", "pipeline", "integer", "1",
       "pipeline stages (transformer layers split evenly over them unless layers_per_stage lists them)", 1, 1 << 16,
       nullptr},
      {"parallel", "layers_per_stage", "array of integers", "equal",
       "transformer layers of each stage (with virtual_stages: of each model chunk, in model order), summing to the "
       "model's; the first stage also carries the embedding, the last the final norm, head and loss, and either may "
       "hold 0 layers to carry those alone. Llama 3 405B on 16 stages: [7, 8, ..., 8, 7] (Dubey et al. 2024, 3.3.2)",
       0, 1 << 16, nullptr},
      {"parallel", "data", "integer", "workers / (tensor x context x pipeline)",
       "data-parallel replicas; tensor x context x pipeline x data must equal workers", 1, 1 << 20, nullptr},
      {"parallel", "micro_batch", "integer", "batch_size",
       "samples per micro-batch; batch_size (samples per replica per iteration) must be a multiple", 1, 1 << 24,
       nullptr},
      {"parallel", "schedule", "string", "1f1b", "pipeline schedule: gpipe, 1f1b (PipeDream-Flush) or interleaved 1F1B", 0,
       0, parallel::pipeline_schedule_names},
      {"parallel", "virtual_stages", "integer", "1", "model chunks per GPU (schedule = \"interleaved\" needs >= 2)", 1,
       1 << 10, nullptr},
      {"parallel", "sequence_parallel", "boolean", "false",
       "Megatron-LM sequence parallelism: norms and dropout split over the tensor group (all-gather and reduce-scatter "
       "instead of all-reduce)",
       0, 0, nullptr},
      {"parallel", "sharding", "string", "none",
       "data-parallel sharding: none, zero1 (optimizer state), zero2 (and gradients; FSDP SHARD_GRAD_OP), zero3 (and "
       "parameters; FSDP FULL_SHARD), hybrid (FSDP HYBRID_SHARD: zero3 inside a node)",
       0, 0, parallel::sharding_names},
      {"parallel", "expert", "integer", "1",
       "expert-parallel GPUs per group (Megatron-LM's expert_model_parallel_size): each holds 1/expert of every MoE "
       "layer's routed experts; tokens reach them by all-to-all. Folded into the data-parallel ranks: expert_tensor x "
       "expert divides tensor x context x data, and expert gradients are summed over what is left (expert_data)",
       1, 1 << 16, nullptr},
      {"parallel", "expert_tensor", "integer", "1",
       "expert-tensor-parallel GPUs per group (Megatron-LM's expert_tensor_parallel_size): each routed expert's weights "
       "split over them, the routed tokens all-gathered before and reduce-scattered after",
       1, 1 << 16, nullptr},
      {"parallel", "moe_shared_expert_overlap", "boolean", "false",
       "with expert > 1, Megatron-LM's moe_shared_expert_overlap: the shared experts compute while the tokens are "
       "dispatched (else the all-to-alls are on the critical path)",
       0, 0, nullptr},
      {"parallel", "framework", "string", "generic",
       "how the framework runs sharding = \"zero3\": generic (a layer gathered at most two ahead, no copies), fsdp "
       "(PyTorch 2.x FSDP FULL_SHARD: flat-parameter casts and gradient copies at HBM bandwidth, the rate limiter, "
       "backward_prefetch, all-gathers and reduce-scatters on one NCCL stream), deepspeed (ZeRO-3: one all-gather per "
       "sub-module, the prefetch bucket, persistent small parameters, gradients reduce-scattered in buckets); megatron "
       "(Megatron-LM's data parallelism with sharding = \"none\" or \"zero1\", its distributed optimizer: gradients "
       "reduced per bucket of its contiguous buffer, the updated parameters all-gathered per bucket; fp32 gradients "
       "with bf16, its grad_reduce_in_fp32 being strategy.gradient_dtype)",
       0, 0, parallel::framework_names},
      {"parallel", "overlap_grad_reduce", "boolean", "false",
       "framework = \"megatron\": each bucket's reduce-scatter (all-reduce) as the last micro-batch's backward fills "
       "it; false: one bucket per model chunk, reduced after the backward passes",
       0, 0, nullptr},
      {"parallel", "overlap_param_gather", "boolean", "false",
       "framework = \"megatron\", sharding = \"zero1\", overlap_grad_reduce: each bucket's all-gather of updated "
       "parameters in the next forward, dispatched by the forward pre-hook of the bucket before it, each model chunk's "
       "at its own first forward (Megatron-LM's --no-align-param-gather; the interleaved schedule's aligned launches "
       "are not modelled); false: all after the step, before the forward",
       0, 0, nullptr},
      {"parallel", "bucket_size", "integer", "max(40000000, 1000000 x data)",
       "framework = \"megatron\" with overlap_grad_reduce: gradient elements per bucket (first pipeline stage, first "
       "model chunk; the others are one bucket each)",
       1, 2000000000, nullptr},
      {"parallel", "limit_all_gathers", "boolean", "true",
       "framework = \"fsdp\": FSDP's rate limiter (at most 2 all-gathers in flight); false: every forward all-gather "
       "issued at once",
       0, 0, nullptr},
      {"parallel", "backward_prefetch", "string", "backward_pre",
       "framework = \"fsdp\": FSDP's BackwardPrefetch: backward_pre (the next all-gather before this layer's gradient "
       "computation), backward_post (after it), none (after its reduce-scatter)",
       0, 0, parallel::backward_prefetch_names},
      {"parallel", "prefetch_bucket_size", "integer", "50000000",
       "framework = \"deepspeed\": stage3_prefetch_bucket_size, parameter elements prefetched ahead", 0, 2000000000,
       nullptr},
      {"parallel", "param_persistence_threshold", "integer", "100000",
       "framework = \"deepspeed\": stage3_param_persistence_threshold, tensors of fewer elements stay whole on every "
       "GPU (never gathered)",
       0, 2000000000, nullptr},
      {"parallel", "reduce_bucket_size", "integer", "500000000",
       "framework = \"deepspeed\": reduce_bucket_size, gradient elements reduce-scattered together", 1, 2000000000,
       nullptr},
      {"parallel", "order", "string", "tensor,context,pipeline,data",
       "rank placement, innermost first: with the default, a tensor group is consecutive GPUs (inside a node)", 0, 0,
       nullptr},
      {"numerics", "model", "string", "mlp", "the trained model; its tensors are also the simulated model", 0, 0,
       numerics_models},
      {"numerics", "hidden", "array of integers", "[128]", "mlp: hidden layer widths", 0, 0, nullptr},
      {"numerics", "dataset", "string", "gaussian_mixture", "training data", 0, 0, datasets},
      {"numerics", "examples", "integer", "4096", "synthetic data: examples", 16, 1 << 24, nullptr},
      {"numerics", "dims", "integer", "32", "synthetic data: features per example", 1, 1 << 20, nullptr},
      {"numerics", "classes", "integer", "10", "synthetic data: classes", 2, 1000, nullptr},
      {"numerics", "separation", "number", "0.5", "gaussian_mixture: standard deviation of the class means", 0, 0,
       nullptr},
      {"numerics", "files", "array of strings", "-",
       "mnist: [images, labels] IDX files; cifar10: data_batch_*.bin files (relative to the scenario)", 0, 0,
       nullptr},
      {"numerics", "test_fraction", "number", "0.2", "held-out share of the data (0.01 to 0.9)", 0, 0, nullptr},
      {"numerics", "shards", "string", "iid", "how the data is split among workers", 0, 0, shardings},
      {"numerics", "dirichlet_alpha", "number", "0.5", "dirichlet shards: label skew (smaller = more skewed)", 0, 0,
       nullptr},
      {"numerics", "steps", "integer", "200", "training steps (iterations)", 1, 1 << 24, nullptr},
      {"numerics", "eval_every", "integer", "20", "steps between test-set evaluations", 1, 1 << 24, nullptr},
      {"numerics", "optimizer", "string", "sgd", "optimizer applied to the averaged gradient", 0, 0, optimizers},
      {"numerics", "learning_rate", "number", "0.1", "peak learning rate", 0, 0, nullptr},
      {"numerics", "warmup_steps", "integer", "0", "linear learning-rate warm-up", 0, 1 << 24, nullptr},
      {"numerics", "target_accuracy", "number", "-", "report the simulated time to reach this test accuracy", 0, 0,
       nullptr},
      {"numerics", "seed", "integer", "1", "data, initialisation and mini-batch order", 0, std::int64_t{1} << 62,
       nullptr},
      {"stragglers", "slow_workers", "array of integers", "[]", "workers whose compute is always slower", 0, 0,
       nullptr},
      {"stragglers", "slow_factor", "number", "2", "their compute-time multiplier (>= 1)", 0, 0, nullptr},
      {"stragglers", "noise", "string", "none",
       "per worker and iteration: lognormal multiplies compute by exp(scale N(0,1)), exponential by 1 + Exp(scale)", 0,
       0, noises},
      {"stragglers", "noise_scale", "number", "0.1", "scale of the noise (0 to 10)", 0, 0, nullptr},
      {"stragglers", "seed", "integer", "0", "seed of the noise: same seed, same run", 0, std::int64_t{1} << 62,
       nullptr},
      {"stragglers", "interference", "table", "-", "periodic interference: some workers slow down for a while, every period",
       0, 0, nullptr},
      {"stragglers", "speed_profiles", "string", "-",
       "CSV worker,time_s,speed (relative to the scenario): trace-driven compute speed per worker from each time on "
       "(1 nominal; like a SimGrid speed profile)",
       0, 0, nullptr},
      {"stragglers", "slow_links", "array of strings", "[]",
       "directed links that run slower, e.g. [\"nic3_UP\"] (a degraded cable or port; `dtsim platform show` names them)",
       0, 0, nullptr},
      {"stragglers", "slow_link_factor", "number", "2", "their bandwidth divisor (>= 1)", 0, 0, nullptr},
      {"stragglers.interference", "period", kDuration, "required", "time from one interference to the next", 0, 0,
       nullptr},
      {"stragglers.interference", "duration", kDuration, "required", "how long each lasts (at most the period)", 0, 0,
       nullptr},
      {"stragglers.interference", "offset", kDuration, "0s", "start of the first", 0, 0, nullptr},
      {"stragglers.interference", "factor", "number", "2", "compute-time multiplier while it lasts (>= 1)", 0, 0,
       nullptr},
      {"stragglers.interference", "workers", "array of integers", "all", "the workers it hits", 0, 0, nullptr},
      {"failures", "at", kDuration, "required", "when it happens", 0, 0, nullptr},
      {"failures", "worker", "integer", "-", "the worker that crashes (give worker or link)", 0, 1 << 20, nullptr},
      {"failures", "link", "string", "-",
       "the directed link that goes down, e.g. \"nic3_UP\" (`dtsim platform show` and report links name them)", 0,
       0, nullptr},
      {"failures", "duration", kDuration, "-", "link: back up after this long (absent: down for good)", 0, 0,
       nullptr},
      {"output", "dir", "string", "dtsim-out", "output folder (dtsim run --out overrides)", 0, 0, nullptr},
      {"output", "timeline", "boolean", "true", "write timeline.json (Chrome trace)", 0, 0, nullptr},
      {"output", "trace_workers", "integer", "16",
       "workers whose events are recorded for the timeline and the Gantt plot (memory grows with it)", 1, 1 << 20,
       nullptr},
  });
  return keys;
}

}  // namespace

const std::vector<KeySpec>& scenario_keys() {
  static const std::vector<KeySpec> keys = make_scenario_keys();
  return keys;
}

const KeySpec& key_spec(std::string_view table, std::string_view key) {
  for (const KeySpec& k : scenario_keys())
    if (k.table == table && k.key == key) return k;
  DTSIM_CHECK(false, "no key spec for " + std::string(table) + "." + std::string(key));
}

std::string choice_key(Section& section, const std::string& table, const std::string& key) {
  const KeySpec& spec = key_spec(table, key);
  return section.choice(key, spec.default_text, spec.choices());
}

std::vector<std::string> keys_of(std::string_view table) {
  std::vector<std::string> keys;
  for (const KeySpec& k : scenario_keys())
    if (k.table == table) keys.push_back(k.key);
  return keys;
}

std::string scenario_reference_markdown() {
  std::ostringstream md;
  md << "# Scenario file reference\n\n"
     << "Generated by `dtsim list keys` from the registry the scenario loader validates with "
        "(sim/scenario/keys.cpp); a test checks that this file is current.\n"
     << "`required`: the key must be given; `-`: optional, not used when absent. Sizes, durations, bandwidths "
        "and compute rates are strings with a unit. Any key can be overridden with `--set table.key=value`.\n";
  std::string table = "\x01";
  for (const KeySpec& k : scenario_keys()) {
    if (k.table != table) {
      table = k.table;
      md << "\n## " << (table.empty() ? std::string("Top level") : "[" + table + "]") << "\n\n"
         << "| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
    }
    md << "| `" << k.key << "` | " << k.type << " | " << cell(k.default_text) << " | " << cell(k.allowed()) << " | "
       << cell(k.description) << " |\n";
  }
  return md.str();
}

}  // namespace dtsim::scenario
