"""How one model copy lays out on an instance type's GPUs: what a GPU can run and what each GPU holds.

The planner (:mod:`tools.plan`) asks this module, for every instance type, whether its GPU can run the
workload at all (:func:`precheck`), how much memory one GPU may use (:func:`usable_memory_gib`), which
tensor x pipeline layouts are possible (:func:`tp_problem`, :func:`node_counts`) and what each GPU of a
layout holds (:func:`layout_for`). Sizing the replicas and pricing the option stay in the planner.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple  # internal records: a frozen dataclass compiles its methods on every cold start

from tools import catalog
from tools.architecture import ModelArchitecture
from tools.memory import MemoryBreakdown, MemoryEstimate, estimate_memory, parse_request
from tools.notes import Note, note
from tools.plan_notes import (
    USABLE_FRACTION_HBM,
    USABLE_FRACTION_OTHER,
    VLLM_GPU_MEMORY_UTILIZATION,
    framework_of,
)
from tools.throughput import GpuPerf
from tools.workload import Workload

TP_SIZES = (1, 2, 4, 8)
_PRE_TURING = frozenset({"Volta", "Pascal", "Maxwell"})
# vLLM runs FP8 checkpoints weight-only (FP8 Marlin, W8A16) on Ampere; older GPUs cannot run them.
_WEIGHT_ONLY_FP8_ARCHS = frozenset({"Ampere"})
MULTI_NODE_MIN_GBPS = 100
MAX_NODES = 4


def precheck(
    inst: catalog.InstanceType,
    gpu: catalog.GPU | None,
    wanted: set[str] | None,
    arch: ModelArchitecture,
    w: Workload,
) -> Note | None:
    """Return why ``inst`` cannot run the workload at all (slice, unknown GPU, precision), else None."""
    if inst.gpu_count is None:
        return note("reject.gpu_count_unknown")
    if not isinstance(inst.gpu_count, int) or inst.gpu_count < 1:
        return note("reject.vgpu")
    if gpu is None or not inst.gpu_memory_gib:
        return note("reject.gpu_unknown")
    if wanted is not None and gpu.name not in wanted:
        return note("reject.not_requested_gpu", gpu=gpu.name, wanted=str(w.gpu))
    if fp8_weights(arch, w) and not gpu.supports_fp8 and gpu.arch not in _WEIGHT_ONLY_FP8_ARCHS:
        return note("reject.fp8_unsupported", gpu=gpu.name, arch=str(gpu.arch))
    if w.quant == "awq-int4" and gpu.arch in _PRE_TURING:
        return note("reject.awq_unsupported", gpu=gpu.name, arch=str(gpu.arch))
    if dense_tflops(gpu, w, arch) is None:
        return note("reject.no_throughput", precision=w.precision, gpu=gpu.name)
    return None


def whole_gpus(inst: catalog.InstanceType) -> int:
    """Whole GPUs per instance; precheck has already turned away slices and unknown counts."""
    assert isinstance(inst.gpu_count, int)
    return inst.gpu_count


def usable_memory_gib(gpu: catalog.GPU, nominal_gib: float | None = None) -> float:
    """Return the usable memory of one GPU: the published CUDA-visible figure, else the stated fraction.

    Args:
        gpu: The GPU model.
        nominal_gib: Memory per GPU as the instance type lists it (default: the GPU's own figure).
    """
    if gpu.usable_memory_gib:
        return gpu.usable_memory_gib
    return (nominal_gib or gpu.memory_gib) * usable_fraction(gpu)


def usable_fraction(gpu: catalog.GPU) -> float:
    """Share of the nominal memory assumed usable where no CUDA-visible size is published (HBM vs GDDR)."""
    hbm = (gpu.memory_type or "").upper().startswith("HBM")
    return USABLE_FRACTION_HBM if hbm else USABLE_FRACTION_OTHER


def usable_gib(inst: catalog.InstanceType, gpu: catalog.GPU) -> float:
    """Usable memory of one GPU of ``inst``, GiB, from the size the instance type lists."""
    assert inst.gpu_memory_gib is not None  # precheck turned away types without it
    return usable_memory_gib(gpu, inst.gpu_memory_gib)


def dense_tflops(gpu: catalog.GPU, w: Workload, arch: ModelArchitecture) -> float | None:
    """Dense TFLOPS the workload's precision runs at on ``gpu``; None where the GPU has no such figure."""
    # Weight-only int4/int8 kernels still compute in 16-bit; FP8 uses FP8 Tensor Cores where they exist.
    if fp8_weights(arch, w) and gpu.supports_fp8:
        return gpu.fp8_dense_tflops
    if w.precision == "fp32":
        return gpu.tf32_dense_tflops or gpu.fp32_tflops
    return gpu.bf16_dense_tflops or gpu.fp16_dense_tflops


def gpu_perf(gpu: catalog.GPU, w: Workload, arch: ModelArchitecture) -> GpuPerf:
    """Return the figures :mod:`tools.throughput` needs for ``gpu`` at the workload's precision."""
    tflops = dense_tflops(gpu, w, arch)
    assert tflops is not None
    return GpuPerf(
        name=gpu.name,
        memory_bandwidth_gb_s=gpu.memory_bandwidth_gb_s,
        dense_tflops=tflops,
        link_gb_s=gpu.nvlink_gb_s,
    )


def estimate(
    arch: ModelArchitecture, w: Workload, *, gpus: int, batch: int, capacity: float, zero: int = 0
) -> MemoryEstimate:
    """Memory for one layout; many instance types share a GPU and count, so results are memoised."""
    key = (w.task, w.precision, w.quant, w.context_tokens, w.output_tokens, w.grad_ckpt)
    stack = (framework_of(w), w.framework_version)
    return _estimate_cached(arch, key, stack, gpus, batch, round(capacity, 3), zero)


@lru_cache(maxsize=4096)
def _estimate_cached(
    arch: ModelArchitecture,
    key: tuple[str, str, str, int, int, bool],
    stack: tuple[str, str | None],
    gpus: int,
    batch: int,
    capacity: float,
    zero: int,
) -> MemoryEstimate:
    # A pure function of its (hashable, immutable) arguments: caching it shares nothing mutable.
    task, precision, quant, ctx, output_tokens, grad_ckpt = key
    framework, version = stack
    # parse_request turns a contradictory combination (int8 + gptq-int4 ...) into a ToolInputError.
    if task == "inference":
        req = parse_request(
            {
                "model": arch.name,
                "task": "inference",
                "precision": precision,
                "quant": quant,
                "batch": batch,
                "prompt_tokens": max(1, ctx - output_tokens),
                "gen_tokens": output_tokens,
                "framework": framework,
                "framework_version": version,
                "gpus": gpus,
                "gpu_memory_gib": capacity,
                "gpu_memory_utilization": VLLM_GPU_MEMORY_UTILIZATION,
            }
        )
    else:
        req = parse_request(
            {
                "model": arch.name,
                "task": task,
                "precision": precision,
                "quant": "bnb-nf4" if task == "qlora" else quant,
                "batch": batch,
                "seq_len": ctx,
                "gpus": gpus,
                "zero": zero,
                "grad_ckpt": grad_ckpt,
                "framework": framework,
                "framework_version": version,
            }
        )
    return estimate_memory(req, arch)


def tp_problem(arch: ModelArchitecture, tp: int) -> Note | None:
    """Return why the model's heads cannot be split ``tp`` ways, else None."""
    if arch.num_attention_heads % tp:
        return note("reject.tp_heads", tp=tp, heads=arch.num_attention_heads)
    if arch.mla is None and arch.num_kv_heads % tp and tp % arch.num_kv_heads:
        return note("reject.tp_kv_heads", tp=tp, heads=arch.num_kv_heads)
    return None


class Layout(NamedTuple):
    """Per-GPU memory of one model copy laid out as ``tp`` GPUs x ``nodes`` pipeline stages."""

    tp: int
    nodes: int
    memory: MemoryBreakdown
    total_gib: float  # per GPU, incl. overhead


def layout_for(arch: ModelArchitecture, w: Workload, tp: int, nodes: int, batch: int, capacity: float) -> Layout:
    """Per-GPU memory of one model copy on ``tp`` GPUs x ``nodes`` stages running ``batch`` sequences."""
    # Pipeline stages split the layers: each GPU keeps 1/nodes of the weights and of the KV cache of a
    # tensor-parallel group that holds all layers; activations and overhead stay per GPU.
    est = estimate(arch, w, gpus=tp, batch=batch, capacity=capacity)
    if nodes == 1:
        return Layout(tp, 1, est.per_gpu, est.per_gpu_total_gib)
    b = est.per_gpu
    memory = b.model_copy(update={"weights_gib": b.weights_gib / nodes, "kv_cache_gib": b.kv_cache_gib / nodes})
    moved = (b.weights_gib + b.kv_cache_gib) * (1 - 1 / nodes)
    return Layout(tp, nodes, memory, est.per_gpu_total_gib - moved)


def node_counts(inst: catalog.InstanceType) -> list[int]:
    """Instances one model copy may span on this type (1 unless its network is fast enough)."""
    # Spanning instances only makes sense for full 8-GPU machines with RDMA or a very fast network.
    return [1, 2, 4] if whole_gpus(inst) >= 8 and _multi_node_network(inst) else [1]


def _multi_node_network(inst: catalog.InstanceType) -> bool:
    note = f"{inst.network_note or ''} {inst.status_note or ''}".lower()
    return (inst.network_gbps or 0) >= MULTI_NODE_MIN_GBPS or "rdma" in note or "roce" in note


def fp8_weights(arch: ModelArchitecture, w: Workload) -> bool:
    """FP8 weights: asked for, or the checkpoint's own format (DeepSeek-V3/R1) when no other quant is."""
    checkpoint_fp8 = arch.quantization is not None and arch.quantization.method == "fp8"
    return w.precision == "fp8" or w.quant == "fp8" or (w.quant == "none" and checkpoint_fp8)


def max_kv_split(arch: ModelArchitecture) -> int:
    """GPUs the KV cache is divided across at most (MLA's latent is replicated)."""
    return 1 if arch.mla is not None else arch.num_kv_heads
