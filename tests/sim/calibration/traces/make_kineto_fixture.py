#!/usr/bin/env python3
"""Writes a100_two_steps.json: a PyTorch profiler (Kineto) trace of two training steps of one small transformer
block on an A100, every kernel timed by dtsim's own models with known constants, so that `dtsim calibrate --gpu a100`
must fit them back (tests/sim/calibration/kineto_calibration_test.cpp):

    gemm_efficiency 0.75, memory_efficiency 0.6, attention_scale 0.9, launch_gap 1.5 us, launch_dispatch 9.25 us

The models (models/gemm_time.cpp, models/attention_time.cpp, sim/calibration/profile_fit.hpp) are restated here.
Every time is a whole number of nanoseconds (Kineto writes microseconds with three decimals), so the durations carry
at most 0.5 ns of rounding. Run: python3 make_kineto_fixture.py > a100_two_steps.json
"""
import json
import math

# a100 (models/gpu_profile.cpp)
PEAK = 312e12
SMS = 108
HBM = 1555e9
# the constants the trace is made with
GEMM_EFF = 0.75
MEM_EFF = 0.6
ATT_SCALE = 0.9
GAP_NS = 1500
DISPATCH_NS = 9250
CALL_NS = 3000  # a launch call's own duration
STALL_NS = 2_000_000  # the CPU between steps (a stall the dispatch fit leaves out)

TILES = [(256, 128), (128, 256), (128, 128), (256, 64), (64, 256), (128, 64), (64, 128), (64, 64)]
FILL_K = 128


def gemm_compute_s(m, n, k, count, eff):
    def tiles(t):
        return math.ceil(m / t[0]) * math.ceil(n / t[1]) * count
    tile = next((t for t in TILES if tiles(t) >= SMS), TILES[-1])
    waves = math.ceil(tiles(tile) / SMS)
    return waves * 2.0 * tile[0] * tile[1] * (k + FILL_K) / (PEAK * eff / SMS)


def gemm_s(m, n, k, count=1):
    memory = 2.0 * count * (m * k + k * n + m * n) / (HBM * MEM_EFF)
    return max(gemm_compute_s(m, n, k, count, GEMM_EFF), memory)


def elementwise_s(shapes):
    sizes = [2.0 * math.prod(s) for s in shapes if s]
    return (sum(sizes) + max(sizes)) / (HBM * MEM_EFF)


# FlashAttention-2 on the A100 at 2048 tokens (models/attention_time.cpp): 73 % and 63 % of 312 TFLOP/s shaped by the
# H100 FlashAttention-2 curves (forward 362 of 370, causal 298 of 370, backward 291 of 322 at 2048).
def attention_s(batch, tokens, heads, dim, causal, backward):
    forward_flops = 4.0 * tokens * tokens * dim * batch * heads * (0.5 if causal else 1.0)
    if backward:
        rate = 0.63 * 312e12 * 291 / 322
        rate = rate * (298 / 362 if causal else 1.0)
        return 2.5 * forward_flops / (rate * ATT_SCALE)
    rate = 0.73 * 312e12 * (298 if causal else 362) / 370
    return forward_flops / (rate * ATT_SCALE)


def ns(seconds):
    return int(round(seconds * 1e9))


BF16 = "c10::BFloat16"
B, S, H, D, HIDDEN = 4, 2048, 16, 128, 4096
ROWS = B * S
GEMM = "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn"


def op(name, dims, kernels, types=None, concrete=None, layer=None, stream=7):
    return {"name": name, "dims": dims, "types": types or [BF16 if d else "" for d in dims],
            "concrete": concrete, "kernels": kernels, "layer": layer, "stream": stream}


def flash_concrete(causal, index, length):
    c = [""] * length
    c[index] = "True" if causal else "False"
    return c


q = [B, S, H, D]
forward_ops = [
    op("aten::copy_", [[HIDDEN * 64], [HIDDEN * 64], []], [("Memcpy HtoD (Pinned -> Device)", 40_000)],
       types=["c10::BFloat16", "c10::BFloat16", "bool"]),
    op("aten::addmm", [[HIDDEN], [ROWS, HIDDEN], [HIDDEN, HIDDEN], [], []],
       [(GEMM, ns(gemm_s(ROWS, HIDDEN, HIDDEN)))], layer="forward fc1"),
    op("aten::native_layer_norm", [[ROWS, HIDDEN], [HIDDEN], [HIDDEN], []],
       [("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>",
         ns(elementwise_s([[ROWS, HIDDEN], [HIDDEN], [HIDDEN]])))], types=[BF16, BF16, BF16, "double"]),
    op("aten::_flash_attention_forward", [q, q, q, [], [], [], [], [], [], []],
       [("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>, false, false>",
         ns(attention_s(B, S, H, D, False, False)))], concrete=flash_concrete(False, 8, 10), layer="forward attn"),
    op("aten::_flash_attention_forward", [q, q, q, [], [], [], [], [], [], []],
       [("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>, true, false>",
         ns(attention_s(B, S, H, D, True, False)))], concrete=flash_concrete(True, 8, 10), layer="forward attn"),
    op("aten::bmm", [[B * H, S, D], [B * H, D, S]],
       [("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn", ns(gemm_s(S, S, D, B * H)))]),
    op("aten::add", [[ROWS, HIDDEN], [ROWS, HIDDEN], []],
       [("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<c10::BFloat16>>",
         ns(elementwise_s([[ROWS, HIDDEN], [ROWS, HIDDEN]])))], types=[BF16, BF16, "Scalar"]),
    # a GEMM the model times as memory-bound (k = 16): left out of the efficiency fit
    op("aten::mm", [[ROWS, 16], [16, ROWS]],
       [("ampere_bf16_s1688gemm_bf16_128x128_ldg8_f2f_nn", ns(gemm_s(ROWS, ROWS, 16)))]),
]
bq = [B, S, H, D]
backward_ops = [
    op("aten::_flash_attention_backward", [bq, bq, bq, bq, bq, [B, H, S], [], [], [], [], [], [], [], [], []],
       [("void pytorch_flash::flash_bwd_dot_do_o_kernel<true, Flash_bwd_kernel_traits<128, 64, 128, 8>>", None),
        ("void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128>>", None),
        ("void pytorch_flash::flash_bwd_convert_dq_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8>>", None)],
       types=[BF16] * 5 + ["float"] + [""] * 9, concrete=flash_concrete(False, 11, 15), layer="backward attn"),
    op("aten::mm", [[ROWS, HIDDEN], [HIDDEN, HIDDEN]], [(GEMM, ns(gemm_s(ROWS, HIDDEN, HIDDEN)))],
       layer="backward fc1"),
    op("aten::mm", [[HIDDEN, ROWS], [ROWS, HIDDEN]], [(GEMM, ns(gemm_s(HIDDEN, HIDDEN, ROWS)))],
       layer="backward fc1"),
    op("aten::mul", [[ROWS, HIDDEN], [ROWS, HIDDEN]],
       [("void at::native::vectorized_elementwise_kernel<4, at::native::binary_internal::MulFunctor<float>>",
         ns(elementwise_s([[ROWS, HIDDEN], [ROWS, HIDDEN]])))]),
    op("record_param_comms", [[HIDDEN * HIDDEN]],
       [("ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 200_000)], stream=20),
]
# FlashAttention's backward: its three kernels share the modelled time 1 : 8 : 1.
total = ns(attention_s(B, S, H, D, False, True))
parts = [total // 10, total - 2 * (total // 10), total // 10]
backward_ops[0]["kernels"] = [(name, t) for (name, _), t in zip(backward_ops[0]["kernels"], parts)]
optimizer_ops = [
    op("aten::_fused_adamw_", [[]],
       [("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::FusedAdamMathFunctor>",
         300_000)], types=[""]),
]

events = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}}]
FWD, BWD = 100, 101
cpu = {FWD: 1_000_000_000, BWD: 0}
stream_free = {7: 0, 20: 0}
correlation = [1000]
ranges = {}


def us(t_ns):
    return round(t_ns / 1000, 3)


def x(cat, name, pid, tid, start, dur, args=None):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": us(start), "dur": us(dur)}
    if args is not None:
        e["args"] = args
    events.append(e)


def run(ops, thread):
    for o in ops:
        op_start = cpu[thread] - 500
        for name, dur in o["kernels"]:
            correlation[0] += 1
            c = correlation[0]
            call = cpu[thread]
            x("cuda_runtime", "cudaLaunchKernel", 1, thread, call, CALL_NS, {"correlation": c, "cbid": 211})
            start = max(stream_free[o["stream"]] + GAP_NS, call + CALL_NS)
            cat = "gpu_memcpy" if name.startswith("Memcpy") else "kernel"
            x(cat, name, 0, o["stream"], start, dur, {"correlation": c, "stream": o["stream"], "device": 0})
            stream_free[o["stream"]] = start + dur
            cpu[thread] += DISPATCH_NS
        op_end = cpu[thread] - DISPATCH_NS + CALL_NS + 500
        args = {"Input Dims": o["dims"], "Input type": o["types"]}
        if o["concrete"]:
            args["Concrete Inputs"] = o["concrete"]
        x("cpu_op", o["name"], 1, thread, op_start, op_end - op_start, args)
        if o["layer"]:
            x("user_annotation", o["layer"], 1, thread, op_start - 100, op_end - op_start + 200)


for step in (1, 2):
    step_start = cpu[FWD] - 1000
    run(forward_ops, FWD)
    cpu[BWD] = cpu[FWD]
    run(backward_ops, BWD)
    cpu[FWD] = cpu[BWD]
    run(optimizer_ops, FWD)
    x("user_annotation", "ProfilerStep#%d" % step, 1, FWD, step_start, cpu[FWD] - step_start)
    cpu[FWD] += STALL_NS
events.append({"ph": "s", "id": 1001, "pid": 1, "tid": FWD, "ts": 1.0, "cat": "ac2g", "name": "ac2g"})
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB"}],
           "traceEvents": events}, __import__("sys").stdout, indent=0)
print()
