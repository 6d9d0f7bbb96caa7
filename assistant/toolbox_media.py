"""The media tools both engines call: image, video, speech, embedding and vision-language models.

Plain typed functions over :mod:`tools.media_plan`, :mod:`tools.media_memory` and :mod:`tools.vlm`, listed
with the LLM tools in :data:`assistant.toolbox.DOMAIN_TOOLS`; their schemas come from these signatures.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from tools.errors import input_error
from tools.media_memory import MediaMemoryEstimate, MediaRequest, Offload, estimate_media_memory
from tools.media_models import Dtype as MediaDtype
from tools.media_plan import MediaFit, MediaPlan, MediaWorkload, plan_media
from tools.media_plan import evaluate_media_fit as media_fit
from tools.plan import Plan
from tools.vlm import plan_vlm
from tools.workload import Precision, Quant

_ModelT = TypeVar("_ModelT", bound=BaseModel)


def _validated(model: type[_ModelT], fields: dict[str, Any]) -> _ModelT:
    """Validate the given (non-None) fields into ``model``; a bad value is a one-line tool error."""
    try:
        return model.model_validate({k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        raise input_error(exc) from None


def plan_media_deployment(
    model: str,
    images_per_hour: float | None = None,
    audio_hours: float | None = None,
    streams: int | None = None,
    docs: int | None = None,
    doc_tokens: int | None = None,
    candidates: int | None = None,
    qps: float | None = None,
    within_hours: float = 24.0,
    width: int | None = None,
    height: int | None = None,
    frames: int | None = None,
    steps: int | None = None,
    dtype: MediaDtype | None = None,
    offload: Offload = "none",
    gpu: str | None = None,
    gpus: int | None = None,
    region: str | None = None,
    budget_cny_month: float | None = None,
    max_options: int = 5,
) -> MediaPlan:
    """Rank Alibaba Cloud GPU instances for an image/video generation, speech, embedding or reranker model.

    One model replica per GPU; the load decides how many GPUs. Give the load of the model's kind.

    Args:
        model: e.g. "SDXL", "FLUX.1-dev", "Wan2.1-T2V-14B", "whisper-large-v3", "SenseVoiceSmall", "bge-m3".
        images_per_hour: Images (or videos) to generate per hour (image/video models).
        audio_hours: Hours of audio to transcribe as a batch job (speech models).
        streams: Live audio streams transcribed at once (speech models).
        docs: Documents to embed as a batch job (embedding models).
        doc_tokens: Tokens per document or passage (embedding and reranker models).
        candidates: Documents reranked per query (reranker models; with qps).
        qps: Queries per second (embedding and reranker models).
        within_hours: Time allowed for a batch job (audio_hours, docs).
        width: Image or video width in pixels (default: the model's own).
        height: Image or video height in pixels.
        frames: Video frames (text-to-video models).
        steps: Denoising steps (default: the model's own).
        dtype: Weights dtype: "fp16", "bf16", "fp8", "int8" or "nf4" (default: the model's own).
        offload: diffusers CPU offload: "none", "model" or "sequential".
        gpu: Only instances with this GPU, e.g. "A10", "L20".
        gpus: A fixed fleet of exactly this many GPUs (the user's own count); a batch job's time follows from it.
        region: Region id for prices, e.g. "cn-shanghai"; "any" prices each option in its cheapest region.
        budget_cny_month: Monthly budget in CNY; options over it are rejected.
        max_options: How many ranked options to return (1-20).
    """
    request = {"model": model, "dtype": dtype, "width": width, "height": height, "frames": frames, "offload": offload}
    fields = {
        "request": {k: v for k, v in request.items() if v is not None},
        "images_per_hour": images_per_hour,
        "audio_hours": audio_hours,
        "streams": streams,
        "docs": docs,
        "doc_tokens": doc_tokens,
        "candidates": candidates,
        "qps": qps,
        "within_hours": within_hours,
        "steps": steps,
        "gpu": gpu,
        "gpus": gpus,
        "region": region,
        "budget_cny_month": budget_cny_month,
        "max_options": max_options,
    }
    return plan_media(_validated(MediaWorkload, fields))


def estimate_media_gpu_memory(
    model: str,
    dtype: MediaDtype | None = None,
    width: int | None = None,
    height: int | None = None,
    batch: int = 1,
    frames: int | None = None,
    offload: Offload = "none",
    vae_tiling: bool = False,
    beams: int = 1,
    doc_tokens: int | None = None,
) -> MediaMemoryEstimate:
    """Estimate the GPU memory of an image/video, speech, embedding or reranker model, stage by stage.

    Args:
        model: e.g. "SDXL", "FLUX.1-dev", "whisper-large-v3", "bge-m3".
        dtype: Weights dtype: "fp32", "fp16", "bf16", "fp8", "int8" or "nf4" (default: the model's own).
        width: Image or video width in pixels (diffusion models).
        height: Image or video height in pixels.
        batch: Images per call, audio streams or sequences at once.
        frames: Video frames (text-to-video models).
        offload: diffusers CPU offload: "none", "model" or "sequential".
        vae_tiling: Decode the VAE in tiles.
        beams: Beam-search width (Whisper).
        doc_tokens: Tokens per sequence (embedding and reranker models).
    """
    fields = {
        "model": model,
        "dtype": dtype,
        "width": width,
        "height": height,
        "batch": batch,
        "frames": frames,
        "offload": offload,
        "vae_tiling": vae_tiling,
        "beams": beams,
        "seq_tokens": doc_tokens,
    }
    return estimate_media_memory(_validated(MediaRequest, fields))


def evaluate_media_fit(
    model: str,
    gpu: str,
    gpus: int = 1,
    dtype: MediaDtype | None = None,
    width: int | None = None,
    height: int | None = None,
    frames: int | None = None,
    offload: Offload = "none",
    beams: int = 1,
    doc_tokens: int | None = None,
) -> MediaFit:
    """Check an image/video, speech or embedding model on exactly the GPU(s) the user named.

    Use this when the user fixes the hardware ("on one A10", "一张 L20 能跑吗"). Returns the GiB needed and
    usable per GPU, the headroom, and settings that need less memory when it does not fit.

    Args:
        model: e.g. "FLUX.1-dev", "SDXL", "whisper-large-v3", "bge-m3".
        gpu: GPU name, e.g. "A10", "L20", "A100-80GB".
        gpus: How many of these GPUs (one model replica each).
        dtype: Weights dtype: "fp32", "fp16", "bf16", "fp8", "int8" or "nf4" (default: the model's own).
        width: Image or video width in pixels (diffusion models).
        height: Image or video height in pixels.
        frames: Video frames (text-to-video models).
        offload: diffusers CPU offload: "none", "model" or "sequential".
        beams: Beam-search width (Whisper).
        doc_tokens: Tokens per sequence (embedding and reranker models).
    """
    fields = {
        "model": model,
        "dtype": dtype,
        "width": width,
        "height": height,
        "frames": frames,
        "offload": offload,
        "beams": beams,
        "seq_tokens": doc_tokens,
    }
    return media_fit(_validated(MediaRequest, fields), gpu, gpus)


def plan_vlm_deployment(
    model: str,
    images_per_request: int = 1,
    width: int = 1024,
    height: int = 1024,
    concurrency: int | None = None,
    context: int | None = None,
    gen_tokens: int | None = None,
    precision: Precision = "bf16",
    quant: Quant = "none",
    gpu: str | None = None,
    region: str | None = None,
    max_options: int = 5,
) -> Plan:
    """Plan a vision-language model (Qwen2.5-VL, Qwen2-VL): the LLM plan with the images' tokens added.

    Args:
        model: e.g. "Qwen2.5-VL-7B-Instruct", "千问VL 7B".
        images_per_request: Images in each request.
        width: Image width in pixels.
        height: Image height in pixels.
        concurrency: Requests served at once.
        context: Text tokens per request besides the images.
        gen_tokens: Output tokens per request.
        precision: Weight/compute precision.
        quant: Checkpoint quantisation, e.g. "awq-int4".
        gpu: Only instances with this GPU.
        region: Region id for prices.
        max_options: How many ranked options to return.
    """
    fields = {
        "model": model,
        "concurrency": concurrency,
        "context": context,
        "gen_tokens": gen_tokens,
        "precision": precision,
        "quant": quant,
        "gpu": gpu,
        "region": region,
        "max_options": max_options,
    }
    return plan_vlm(
        {k: v for k, v in fields.items() if v is not None},
        images_per_request=images_per_request,
        width=width,
        height=height,
    )
