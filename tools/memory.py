"""GPU memory for LLM inference and fine-tuning, per GPU, term by term.

``estimate_memory(request)`` returns a :class:`MemoryEstimate`: weights, KV cache, activations,
gradients, optimizer states, other buffers and the CUDA/allocator overhead, each in GiB (2^30 bytes)
per GPU, with a stated meaning for every number and the assumptions behind it. The byte formulas live
in :mod:`tools.memory_terms` (one function per term) and :mod:`tools.quantization` (weight formats);
:mod:`tools.memory_inference` and :mod:`tools.memory_training` assemble them.

Fast path (the planner): resolve the architecture once and pass it in,
``estimate_memory(EstimateRequest(...), arch)``; nothing is read from disk and per-architecture counts
are cached, so a call takes well under a millisecond. :func:`per_gpu_requirement` does the same with
keyword arguments.

Which number to compare with what:

* ``per_gpu_tensors_gib`` = what ``torch.cuda.max_memory_allocated()`` (or torchtune's
  ``peak_memory_active``) reports on the busiest GPU; ``total_tensors_gib`` sums the GPUs.
* ``per_gpu_total_gib`` = tensors + overhead = what nvidia-smi shows (vLLM: the minimum it needs; it
  pre-allocates ``gpu_memory_utilization x capacity`` regardless, see ``vllm``).

Assumptions and limits
----------------------
* Architecture from the model registry or a ``config.json``; MoE models hold all experts in memory.
* Quantised formats quantise decoder linear layers only; embeddings, lm_head, norms, routers stay 16-bit.
  GPTQ/AWQ group 128 = 0.52 B per weight, NF4 with double quantisation 0.516 B, FP8/int8 1 B.
* GPTQ/AWQ/bnb-4bit kernels get an fp16 scratch of the largest weight matrix; AutoAWQ loading a
  tied-embedding checkpoint briefly holds one more embedding copy (the peak for very short prompts).
* Attention is FlashAttention/SDPA (no ``seq x seq`` matrix); eager attention adds
  ``batch x heads x seq^2 x 6`` bytes per layer, which is not modelled.
* HF transformers inference: transformers >= 4.45 (logits for the last position only; set
  ``full_prompt_logits`` for older versions); peak = weights + KV(prompt + generated) + the prefill
  transient of one layer (MLP buffers; attention/RoPE temporaries for narrow-expert MoE);
  ``device_map="auto"`` is a layer split, each GPU running its own transient.
* HF DeepSeek (MLA) code caches decompressed per-head K/V; vLLM/SGLang cache the compressed latent,
  replicated on every tensor-parallel GPU. Sliding-window layers keep at most the window.
* vLLM: weights and activations from a profile run (V1, 0.8+: ``max_num_batched_tokens``, 8192 by
  default; V0: one whole ``max_model_len`` prefill, 512 tokens above a 32K context), non-torch
  memory (context, CUDA graphs, all-reduce buffers) as a stated constant per GPU; KV in 16-token blocks.
  Marlin/FP8 kernels need no dequantisation scratch.
* ``batch`` is the number of sequences served together (inference) or the micro-batch per GPU
  (training); tokens = batch x sequence length.
* Training: DDP or DeepSpeed ZeRO 0-3 (FSDP full shard = ZeRO-3) over data-parallel GPUs, micro-batch
  per GPU; no tensor/pipeline parallel training. Mixed precision keeps fp32 master weights and fp32
  gradients (Megatron/LLaMA-Factory 18 B per parameter with AdamW); ``master_weights=False`` is
  torchtune's pure bf16 (8 B per parameter). ZeRO-3 holds the gathered current module plus the
  prefetched next layer (a whole MoE layer with all its experts, as FSDP wraps it). DDP keeps a
  second copy of the gradients in its buckets. Optimizer steps are fused (no temporary copy of states).
  8-bit AdamW keeps 2 B per parameter plus block scales; paged optimizers live in unified memory and
  are not counted. LoRA adapters are fp32 under AMP, 16-bit in pure-bf16 recipes; dropout is ignored.
* Activations: Korthikanti-style per-layer counts for SwiGLU decoders (dense and MoE), eager or
  ``torch.compile``'d; logits + cross-entropy ``tokens x vocab x 12`` bytes unless chunked.
  Sequence packing is assumed (every position is a real token).
* Overhead: CUDA context + workspaces 0.5 GiB, NCCL 0.5 GiB when GPUs communicate, and the caching
  allocator's slack (:mod:`tools.memory_allocator`): 2 MiB segment rounding of every weight (and, under
  DDP, gradient/optimizer) tensor plus cached blocks left unused: for inference half the largest freed
  prefill block; for training a base and shares of one logits block and one MLP block, fitted on
  development runs that measured nvidia-smi and ``max_memory_allocated`` (``tools/data/memory_reserve.yaml``).
  Real fragmentation varies with the allocation order; the band says by how much.
* Not modelled: CPU RAM, pipeline-parallel micro-batch schedules, sequence/context parallelism,
  speculative decoding, prefix caching, multimodal encoders' activations.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tools.architecture import ModelArchitecture
from tools.memory_band import band_for
from tools.memory_inference import Assembly, VllmView, inference_terms
from tools.memory_request import EstimateRequest, Task, parse_request
from tools.memory_stack import is_serving_engine
from tools.memory_terms import CUDA_CONTEXT_GIB, GIB, NCCL_BUFFERS_GIB, shapes
from tools.memory_training import training_terms
from tools.notes import Note, note
from tools.quantization import checkpoint_quant, weight_format

__all__ = [
    "EstimateRequest",
    "MemoryBreakdown",
    "MemoryEstimate",
    "VllmView",
    "estimate_memory",
    "parse_request",
    "per_gpu_requirement",
]


class MemoryBreakdown(BaseModel):
    """Memory terms on ONE GPU (the busiest one), GiB = 2^30 bytes."""

    model_config = ConfigDict(extra="forbid")

    weights_gib: float = Field(description="model weights (incl. LoRA adapters, ZeRO-3 gather buffer)")
    kv_cache_gib: float = Field(description="K/V cache for the requested batch and tokens")
    activations_gib: float = Field(description="activations and transient buffers at the peak")
    gradients_gib: float = Field(description="gradients alive at the peak")
    optimizer_gib: float = Field(description="optimizer states (incl. fp32 master weights)")
    other_gib: float = Field(description="kernel scratch, e.g. dequantisation buffers")
    overhead_gib: float = Field(description="CUDA context, workspaces, NCCL, allocator cache")


class MemoryEstimate(BaseModel):
    """Memory needed to run or train a model, per GPU and in total, with meanings and assumptions."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="canonical model name")
    params_b: float = Field(description="total parameters, billions")
    active_params_b: float = Field(description="parameters used per token (MoE), billions")
    task: Task
    framework: str
    framework_version: str | None = Field(default=None, description="stack version the estimate models")
    num_gpus: int
    layout: Note = Field(description="how the model is spread over the GPUs")
    per_gpu: MemoryBreakdown
    per_gpu_tensors_gib: float = Field(description="sum of tensor terms: torch max_memory_allocated")
    per_gpu_total_gib: float = Field(description="tensors + overhead: what nvidia-smi shows")
    per_gpu_allocated_gib: float = Field(default=0.0, description="torch.cuda.max_memory_allocated(): the tensors")
    per_gpu_reserved_gib: float = Field(
        default=0.0, description="torch.cuda.max_memory_reserved(): tensors + caching-allocator slack"
    )
    per_gpu_nvidia_smi_gib: float = Field(
        default=0.0, description="what nvidia-smi shows: reserved + CUDA context (+ NCCL); = per_gpu_total_gib"
    )
    per_gpu_band_low_gib: float = Field(default=0.0, description="p10 of the nvidia-smi view (held-out residuals)")
    per_gpu_band_high_gib: float = Field(
        default=0.0, description="p90 of the nvidia-smi view: the planner checks fits against this"
    )
    total_tensors_gib: float = Field(description="tensor bytes summed over all GPUs")
    total_gib: float = Field(description="tensors + overhead summed over all GPUs")
    peak_phase: str | None = Field(default=None, description="training: the moment the peak occurs")
    assumptions: list[Note]
    meanings: dict[str, str]
    warnings: list[Note]
    vllm: VllmView | None = None


def estimate_memory(req: EstimateRequest | dict[str, Any], arch: ModelArchitecture | None = None) -> MemoryEstimate:
    """Estimate GPU memory per GPU for inference or fine-tuning, term by term (GiB).

    Args:
        req: the request, or a dict validated with :func:`parse_request`.
        arch: an already-resolved architecture (fast path); None resolves ``req.model`` through
            :func:`tools.models.resolve_model` (registry name, alias or config.json path).

    Raises:
        ToolInputError: bad input or an unknown model name.
    """
    request = req if isinstance(req, EstimateRequest) else parse_request(req)
    if arch is None:
        from tools.models import resolve_model

        arch = resolve_model(request.model)
    quant = request.quant
    notes: list[Note] = []
    if quant == "none" and request.task == "qlora":
        quant = "bnb-nf4"
        notes.append(note("est.qlora_nf4"))
    elif quant == "none" and arch.quantization is not None:
        if request.task == "inference":
            quant = checkpoint_quant(arch)
            notes.append(note("est.checkpoint_format", quant=quant))
        else:
            notes.append(
                note("est.checkpoint_dequantised", quant=checkpoint_quant(arch), precision=request.precision)
            )
    group = arch.quantization.group_size if arch.quantization else None
    fmt = weight_format(request.precision, quant, group)
    if request.task == "inference":
        assembly = inference_terms(request, arch, fmt)
    else:
        assembly = training_terms(request, arch, fmt)
    assembly.assumptions[:0] = notes
    return _estimate(request, arch, assembly)


def per_gpu_requirement(
    arch: ModelArchitecture,
    *,
    task: Task = "inference",
    precision: str = "bf16",
    quant: str = "none",
    batch: int = 1,
    context_tokens: int,
    gen_tokens: int = 0,
    gpus: int = 1,
    framework: str = "transformers",
    **options: Any,
) -> MemoryEstimate:
    """Planner fast path: the estimate for an already-resolved architecture, from keyword arguments.

    ``context_tokens`` is the total per sequence (prompt + ``gen_tokens``) for inference and the
    sequence length for training; ``options`` are any other :class:`EstimateRequest` fields.
    """
    lengths: dict[str, Any] = (
        {"prompt_tokens": max(1, context_tokens - gen_tokens), "gen_tokens": gen_tokens}
        if task == "inference"
        else {"seq_len": context_tokens}
    )
    data = {
        "model": arch.name,
        "task": task,
        "precision": precision,
        "quant": quant,
        "batch": batch,
        "gpus": gpus,
        "framework": framework,
        **lengths,
        **options,
    }
    return estimate_memory(parse_request(data), arch)


def context_bytes(req: EstimateRequest, a: Assembly) -> float:
    """Return the overhead that is not the allocator's: CUDA context/workspaces and NCCL buffers."""
    if is_serving_engine(req.framework):
        return a.overhead  # vLLM's non-torch memory
    collective = req.gpus > 1 and (req.task != "inference" or a.layout.code == "layout.tensor_parallel")
    return (CUDA_CONTEXT_GIB + (NCCL_BUFFERS_GIB if collective else 0.0)) * GIB


def _gib(value: float) -> float:
    return round(value / GIB, 3)


def _estimate(req: EstimateRequest, arch: ModelArchitecture, a: Assembly) -> MemoryEstimate:
    s = shapes(arch)
    tensors = a.tensors
    band = band_for(req.framework, req.task)
    context = context_bytes(req, a)
    smi = tensors + a.overhead
    a.assumptions.append(band.note())
    breakdown = MemoryBreakdown(
        weights_gib=_gib(a.weights),
        kv_cache_gib=_gib(a.kv_cache),
        activations_gib=_gib(a.activations),
        gradients_gib=_gib(a.gradients),
        optimizer_gib=_gib(a.optimizer),
        other_gib=_gib(a.other),
        overhead_gib=_gib(a.overhead),
    )
    return MemoryEstimate(
        model=arch.name,
        params_b=round(s.total / 1e9, 3),
        active_params_b=round(s.active / 1e9, 3),
        task=req.task,
        framework=req.framework,
        framework_version=req.framework_version,
        num_gpus=req.gpus,
        layout=a.layout,
        per_gpu=breakdown,
        per_gpu_tensors_gib=_gib(tensors),
        per_gpu_total_gib=_gib(smi),
        per_gpu_allocated_gib=_gib(tensors),
        per_gpu_reserved_gib=_gib(max(tensors, smi - context)),
        per_gpu_nvidia_smi_gib=_gib(smi),
        per_gpu_band_low_gib=_gib(smi * band.p10),
        per_gpu_band_high_gib=_gib(smi * band.p90),
        total_tensors_gib=_gib(a.total_tensors_all_gpus),
        total_gib=_gib(a.total_tensors_all_gpus + a.overhead * req.gpus),
        peak_phase=a.peak_phase,
        assumptions=a.assumptions,
        meanings=a.meanings,
        warnings=a.warnings,
        vllm=a.vllm,
    )
