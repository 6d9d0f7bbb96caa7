"""An LLM and an image/speech/embedding model sharing one GPU ("SDXL and Qwen2.5-7B on the same A10?").

Two processes on one card each hold their own memory, so what the card must hold is the sum of both
peaks. vLLM pre-allocates ``gpu_memory_utilization`` of the card's memory at start-up, so sharing also
means lowering that share to what the other model leaves; the tool says which value leaves room.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from tools import catalog
from tools.errors import input_problem
from tools.hardware_fit import memory_request, resolve_hardware
from tools.media_memory import estimate_media_memory
from tools.memory import estimate_memory
from tools.workload import Precision, Quant

_UTILISATION_STEP = 0.05  # vLLM's flag is usually set in steps like 0.45, 0.5: round down to one


class Colocation(BaseModel):
    """Whether an LLM and a media model fit one GPU together, with each one's need."""

    model_config = ConfigDict(extra="forbid")

    gpu: str
    llm: str
    media_model: str
    llm_gib: float = Field(description="the LLM's per-GPU need for the stated load (vLLM, minimum for the batch)")
    media_gib: float = Field(description="the media model's peak, CUDA context included")
    needed_gib: float = Field(description="both together")
    usable_gib: float = Field(description="the GPU's usable memory (driver and ECC reserve taken off)")
    headroom_gib: float = Field(description="usable minus needed (negative: short by that much)")
    fits: bool
    vllm_gpu_memory_utilization: float | None = Field(
        description="the largest vLLM share (of the card's nominal memory) that leaves the media model its peak; "
        "None when the two do not fit"
    )


def evaluate_colocation(
    llm: str,
    media_model: str,
    gpu: str,
    precision: Precision = "bf16",
    quant: Quant = "none",
    context: int = 4096,
    concurrency: int = 1,
) -> Colocation:
    """Check whether an LLM (served with vLLM) and an image/speech/embedding model fit on one GPU together.

    Use this when the user wants both on the same card ("SDXL and Qwen2.5-7B on one A10", "同一张 L20 上同时跑
    whisper 和 Qwen2.5-14B"). Each is estimated alone with the same estimators as estimate_gpu_memory and
    estimate_media_gpu_memory; the card must hold the sum.

    Args:
        llm: LLM name or alias, e.g. "Qwen2.5-7B-Instruct".
        media_model: Media model name, e.g. "SDXL", "whisper-large-v3", "bge-m3".
        gpu: GPU name, e.g. "A10".
        precision: The LLM's weight precision.
        quant: The LLM's checkpoint format.
        context: The LLM's tokens per sequence (prompt + output).
        concurrency: The LLM's sequences served at once.
    """
    if context < 1 or concurrency < 1:
        raise input_problem("error.context_concurrency_positive", context=context, concurrency=concurrency)
    hw = resolve_hardware(gpu=gpu, gpus=1)
    text = estimate_memory(memory_request(llm, "inference", 1, precision, quant, context, concurrency=concurrency))
    media = estimate_media_memory({"model": media_model})
    needed = text.per_gpu_total_gib + media.total_gib
    fits = needed <= hw.usable_gib_per_gpu
    nominal = catalog.get_gpu(hw.gpu).memory_gib
    share = (hw.usable_gib_per_gpu - media.total_gib) / nominal
    utilisation = math.floor(share / _UTILISATION_STEP) * _UTILISATION_STEP if fits else None
    return Colocation(
        gpu=hw.gpu,
        llm=text.model,
        media_model=media.model,
        llm_gib=round(text.per_gpu_total_gib, 2),
        media_gib=round(media.total_gib, 2),
        needed_gib=round(needed, 2),
        usable_gib=round(hw.usable_gib_per_gpu, 2),
        headroom_gib=round(hw.usable_gib_per_gpu - needed, 2),
        fits=fits,
        vllm_gpu_memory_utilization=round(utilisation, 2) if utilisation is not None else None,
    )


class SharedGpu(BaseModel):
    """Whether two or more LLMs, each served by its own vLLM process, fit one GPU together."""

    model_config = ConfigDict(extra="forbid")

    gpu: str
    models: list[str] = Field(description="canonical names, in the order asked")
    needs_gib: list[float] = Field(description="each model's per-GPU need for the stated load, CUDA context included")
    needed_gib: float = Field(description="all of them together")
    usable_gib: float = Field(description="the GPU's usable memory (driver and ECC reserve taken off)")
    headroom_gib: float = Field(description="usable minus needed (negative: short by that much)")
    fits: bool
    vllm_gpu_memory_utilizations: list[float] | None = Field(
        description="a vLLM share per model (of the card's nominal memory) that holds its need, the shares "
        "summing to at most the usable memory; None when they do not fit"
    )


def evaluate_models_on_one_gpu(
    models: list[str],
    gpu: str,
    precision: Precision = "bf16",
    quant: Quant = "none",
    context: int = 4096,
    concurrency: int = 1,
) -> SharedGpu:
    """Check whether two or more LLMs, each served with its own vLLM process, fit on one GPU together.

    Use this when the user wants several LLMs on the same card ("Qwen2.5-7B and Llama-3.1-8B side by side on one
    L20", "一张 A100 上同时跑 7B 和 14B"). Each model is estimated alone, with the same estimator as
    estimate_gpu_memory at the same load; the card must hold the sum, and each process needs its own
    gpu_memory_utilization share.

    Args:
        models: Two to four LLM names or aliases, e.g. ["Qwen2.5-7B-Instruct", "Llama-3.1-8B-Instruct"].
        gpu: GPU name, e.g. "L20".
        precision: The weight precision of every model.
        quant: The checkpoint format of every model.
        context: Tokens per sequence (prompt + output) of each model.
        concurrency: Sequences each model serves at once.
    """
    if context < 1 or concurrency < 1:
        raise input_problem("error.context_concurrency_positive", context=context, concurrency=concurrency)
    if not 2 <= len(models) <= 4:
        raise input_problem("error.colocate_models", count=len(models))
    hw = resolve_hardware(gpu=gpu, gpus=1)
    estimates = [
        estimate_memory(memory_request(m, "inference", 1, precision, quant, context, concurrency=concurrency))
        for m in models
    ]
    needs = [e.per_gpu_total_gib for e in estimates]
    needed = sum(needs)
    nominal = catalog.get_gpu(hw.gpu).memory_gib
    # each process's share rounded up to vLLM's usual step; the shares together must fit the usable memory
    shares = [math.ceil(need / nominal / _UTILISATION_STEP) * _UTILISATION_STEP for need in needs]
    fits = needed <= hw.usable_gib_per_gpu and sum(shares) * nominal <= hw.usable_gib_per_gpu
    return SharedGpu(
        gpu=hw.gpu,
        models=[e.model for e in estimates],
        needs_gib=[round(n, 2) for n in needs],
        needed_gib=round(needed, 2),
        usable_gib=round(hw.usable_gib_per_gpu, 2),
        headroom_gib=round(hw.usable_gib_per_gpu - needed, 2),
        fits=fits,
        vllm_gpu_memory_utilizations=[round(s, 2) for s in shares] if fits else None,
    )
