"""Speed estimates: decode from memory bandwidth, prefill from compute, training time from 6·N·D.

Assumptions and limits
----------------------
* Decode is bandwidth bound: each step reads every active weight once plus the KV cache of every running
  sequence, so ``t_step = t0 + bytes / (eta_bw * bandwidth)``. A least-squares fit over published vLLM 0.6
  single-stream results (Qwen2.5 0.5B-32B bf16 on A100-80GB) gives ``t0 ≈ 3 ms`` and ``eta_bw ≈ 0.77``;
  weight-only int4/int8 kernels reach a lower effective bandwidth (≈0.5) and MoE routing adds overhead
  (≈0.25 of the active-parameter roofline); see ``../shared/reference/estimators.md`` §2.
* A step becomes compute bound when ``2 · active_params · batch`` FLOPs take longer than the reads; the
  compute efficiency is ``eta_compute``.
* Tensor parallel splits the reads across GPUs and adds two all-reduces per layer; over PCIe they cost
  noticeably more than over NVLink.
* Engine: serving engines (vLLM, SGLang, TensorRT-LLM) replay CUDA graphs, so a step costs ``t0`` plus
  the reads; ``t0`` is per engine (``tools/data/speed_constants.yaml``: vLLM's from the Qwen2.5 fit above,
  SGLang's model-runner step from its own published batch-1 figure; a whole request through SGLang pays
  vLLM's request figure, none being sourced for SGLang). "serving" means vLLM's figures.
* Weight-only int4/int8 GEMMs (GPTQ/AWQ) dequantise in the kernel: a fixed cost per decoder layer plus
  their own bandwidth share, both fitted on the Qwen2.5 vLLM 0.6.3 quantised rows of
  ``benchmarks/data/speed_dev.csv`` (a 0.5B int4 model is *slower* than bf16 there, a 7B one 1.8x faster).
* GPUs differ in the share of their spec bandwidth that batch-1 decode reaches; the dense ``eta`` is the
  A100's and other GPUs scale it by a sourced relative share (``achieved_bandwidth`` rows; 1.0 if none).
* HF transformers' eager ``generate`` launches every kernel from Python; the GPU waits for the CPU
  unless the reads take longer, so ``t_step = max(c · layers, bytes / bandwidth)`` with ``c ≈ 0.84 ms``
  per decoder layer: the median of step time / layers over the Qwen2.5 speed benchmark's transformers 4.46
  BF16 and GPTQ-Int4 rows (0.5B-32B, input length 1, A100-80GB; the calibration source; range 0.79-0.90).
  This is why HF decode is several times slower than vLLM at batch 1 and why its tokens/s hardly changes
  from 0.5B to 7B. HF MoE layers loop over experts in Python: not modelled (far slower than this).
* Prefill is compute bound: ``2 · active_params`` FLOPs per prompt token plus attention.
* Training time uses ``6 · N · tokens`` FLOPs (``N`` = active parameters; LoRA skips weight gradients:
  ``4 · N``, plus one more forward with gradient checkpointing) at a stated model-FLOPs utilisation.
These are planning figures (±30%), not benchmarks: measure before you commit to a fleet.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from tools.architecture import ModelArchitecture
from tools.throughput_data import SpeedConstants, speed_constants

TrainTask = Literal["full", "lora", "qlora"]
Engine = Literal["serving", "vllm", "sglang", "transformers"]


class GpuPerf(BaseModel):
    """The spec-sheet figures speed depends on, for one GPU and one compute precision."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    memory_bandwidth_gb_s: float = Field(gt=0, description="HBM/GDDR bandwidth, GB/s (10^9 B/s)")
    dense_tflops: float = Field(gt=0, description="dense Tensor Core TFLOPS at the compute precision")
    link_gb_s: float | None = Field(default=None, description="GPU-to-GPU NVLink bandwidth; None = PCIe")


class SpeedAssumptions(BaseModel):
    """Efficiency constants, each a stated assumption rather than a measurement of the user's setup."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    step_overhead_s: float = Field(
        default_factory=lambda: speed_constants().engine("vllm").step_overhead_s,
        description="per decode step of vLLM: scheduler, sampling, graph replay",
    )
    hf_layer_launch_s: float = Field(
        default=0.00084, description="HF transformers eager decode: CPU time to launch one decoder layer"
    )
    eta_bandwidth_dense: float = Field(default=0.77, description="achieved / peak bandwidth, 16-bit weights")
    eta_bandwidth_quantized: float = Field(
        default_factory=lambda: speed_constants().kernel_family("weight_only_int").eta_bandwidth,
        description="same, weight-only int4/int8 kernels",
    )
    quantized_layer_overhead_s: float = Field(
        default_factory=lambda: speed_constants().kernel_family("weight_only_int").layer_overhead_s,
        description="weight-only int4/int8 kernels: fixed cost per decoder layer and step",
    )
    eta_bandwidth_moe: float = Field(default=0.25, description="same, MoE (routing, small expert GEMMs)")
    eta_compute: float = Field(default=0.5, description="achieved / peak Tensor Core FLOPs (prefill, decode)")
    mfu_training: float = Field(default=0.4, description="model FLOPs utilisation for training")
    pcie_gb_s: float = Field(default=25.0, description="effective all-reduce bandwidth over PCIe Gen4")
    allreduce_latency_s: float = Field(default=15e-6, description="per all-reduce launch latency")


_DEFAULT: list[tuple[SpeedConstants, SpeedAssumptions]] = []


def default_assumptions() -> SpeedAssumptions:
    """``SpeedAssumptions()``, made once per set of speed constants (frozen, so it is shared).

    A plan asks for the defaults hundreds of times; validating them anew each time was ~6% of its work.
    """
    constants = speed_constants()
    if not _DEFAULT or _DEFAULT[0][0] is not constants:
        _DEFAULT[:] = [(constants, SpeedAssumptions())]
    return _DEFAULT[0][1]


class DecodeSpeed(BaseModel):
    """Decode throughput of one model replica (one tensor-parallel group)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    batch: int = Field(description="sequences decoded together")
    step_ms: float = Field(description="time of one decode step (one token for every sequence), ms")
    tokens_per_s_per_stream: float = Field(description="output tokens/s each user sees")
    tokens_per_s_total: float = Field(description="output tokens/s of the replica, all streams")
    bound: Literal["memory", "compute"]


def decode_speed(
    arch: ModelArchitecture,
    gpu: GpuPerf,
    *,
    weight_bytes_total: float,
    kv_bytes_per_sequence: float,
    batch: int,
    tensor_parallel: int = 1,
    quantized: bool = False,
    assumptions: SpeedAssumptions | None = None,
    engine: Engine = "serving",
    scope: Literal["request", "step"] = "request",
) -> DecodeSpeed:
    """Estimate decode speed for ``batch`` concurrent sequences on ``tensor_parallel`` GPUs.

    Args:
        arch: the model.
        gpu: speed figures of one GPU.
        weight_bytes_total: bytes of all weights (all GPUs together).
        kv_bytes_per_sequence: KV-cache bytes of one sequence at its average length.
        batch: concurrent sequences (>= 1).
        tensor_parallel: GPUs the model is split across.
        quantized: weight-only quantised kernels (GPTQ/AWQ/bnb): lower effective bandwidth.
        assumptions: efficiency constants; defaults documented on :class:`SpeedAssumptions`.
        engine: "vllm" (= "serving") or "sglang" (CUDA-graph engines, each its own step overhead), or
            "transformers" (HF eager generate, launch bound).
        scope: "request" (default) = the engine's per-token cost of a whole request (scheduler, sampler,
            detokeniser), as generated tokens / wall time see it; "step" = the model-runner step alone,
            as TPOT or ``bench_latency`` report it.
    """
    a = assumptions or default_assumptions()
    constants = speed_constants()
    breakdown = arch.param_breakdown()
    active_fraction = breakdown.active / breakdown.total
    if arch.moe is not None:
        eta = a.eta_bandwidth_moe
    else:
        eta = a.eta_bandwidth_quantized if quantized else a.eta_bandwidth_dense
    read_bytes = (weight_bytes_total * active_fraction + batch * kv_bytes_per_sequence) / tensor_parallel
    memory_s = read_bytes / (eta * constants.bandwidth_share(gpu.name) * gpu.memory_bandwidth_gb_s * 1e9)
    if quantized and arch.moe is None:
        memory_s += a.quantized_layer_overhead_s * arch.num_layers
    compute_s = 2 * breakdown.active * batch / (tensor_parallel * gpu.dense_tflops * 1e12 * a.eta_compute)
    if engine == "transformers":
        # Kernels are launched from Python layer by layer; the GPU work overlaps the launching.
        step_s = max(memory_s, compute_s, a.hf_layer_launch_s * arch.num_layers)
    else:
        name = "vllm" if engine == "serving" else engine
        if name == "vllm" and scope == "request":
            overhead = a.step_overhead_s
        elif scope == "request":
            overhead = constants.request_overhead_s(name)
        else:
            overhead = constants.engine(name).step_overhead_s
        step_s = max(memory_s, compute_s) + overhead + _allreduce_s(arch, gpu, batch, tensor_parallel, a)
    return DecodeSpeed(
        batch=batch,
        step_ms=step_s * 1e3,
        tokens_per_s_per_stream=1 / step_s,
        tokens_per_s_total=batch / step_s,
        bound="memory" if memory_s >= compute_s else "compute",
    )


def _allreduce_s(arch: ModelArchitecture, gpu: GpuPerf, tokens: int, tp: int, a: SpeedAssumptions) -> float:
    """Two ring all-reduces of the hidden state per layer (after attention and after the MLP)."""
    if tp <= 1:
        return 0.0
    link = gpu.link_gb_s or a.pcie_gb_s
    payload = tokens * arch.hidden_size * 2 * 2 * (tp - 1) / tp
    return 2 * arch.num_layers * (payload / (link * 1e9) + a.allreduce_latency_s)


def prefill_tokens_per_s(
    arch: ModelArchitecture,
    gpu: GpuPerf,
    *,
    prompt_tokens: int,
    tensor_parallel: int = 1,
    assumptions: SpeedAssumptions | None = None,
) -> float:
    """Prompt tokens processed per second by one replica (compute bound), incl. causal attention."""
    a = assumptions or default_assumptions()
    attn_dim = arch.num_attention_heads * arch.head_dim
    # Causal attention: QK^T and AV over on average half the prompt, 2 FLOPs per multiply-add.
    attention_flops = 2 * 2 * arch.num_layers * attn_dim * prompt_tokens / 2
    flops_per_token = 2 * arch.param_breakdown().active + attention_flops
    return tensor_parallel * gpu.dense_tflops * 1e12 * a.eta_compute / flops_per_token


def time_to_first_token_s(
    arch: ModelArchitecture,
    gpu: GpuPerf,
    *,
    prompt_tokens: int,
    first_step_s: float,
    tensor_parallel: int = 1,
    assumptions: SpeedAssumptions | None = None,
) -> float:
    """Seconds from request to first output token at batch 1: the prefill plus one decode step."""
    rate = prefill_tokens_per_s(
        arch, gpu, prompt_tokens=prompt_tokens, tensor_parallel=tensor_parallel, assumptions=assumptions
    )
    return prompt_tokens / rate + first_step_s


def training_flops(arch: ModelArchitecture, tokens: float, task: TrainTask, grad_ckpt: bool) -> float:
    """FLOPs to train on ``tokens`` tokens: 6·N·D for full fine-tuning, 4·N·D for (Q)LoRA (+2·N·D recompute)."""
    per_token = 6 if task == "full" else 4
    if grad_ckpt:
        per_token += 2
    return per_token * arch.param_breakdown().active * tokens


def training_hours(
    arch: ModelArchitecture,
    gpu: GpuPerf,
    *,
    tokens: float,
    gpus: int,
    task: TrainTask,
    grad_ckpt: bool,
    assumptions: SpeedAssumptions | None = None,
) -> float:
    """Wall-clock hours to process ``tokens`` training tokens on ``gpus`` GPUs at the assumed MFU."""
    a = assumptions or default_assumptions()
    seconds = training_flops(arch, tokens, task, grad_ckpt) / (gpus * gpu.dense_tflops * 1e12 * a.mfu_training)
    return seconds / 3600
