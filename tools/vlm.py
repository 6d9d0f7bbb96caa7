"""Vision-language models: images and video frames as tokens, the vision tower, and the LLM they feed.

A VLM is sized as its language model (``models.yaml``) with the vision tower's parameters added to the
weights (``ModelArchitecture.other_params``) and each request's image tokens added to its prompt, so the
KV cache and prefill grow with the images. The vision tower's own activations, for the images encoded at
once, are a separate term.

Assumptions and limits
----------------------
* Image tokens follow Qwen2-VL's ``smart_resize``: height and width rounded to multiples of
  ``patch_size x spatial_merge`` (28 px) within ``[min_pixels, max_pixels]``, one token per 28x28 block.
* Video: frames are taken in pairs (temporal patch 2), each pair at most :data:`VIDEO_MAX_PIXELS` pixels,
  as qwen-vl-utils does by default.
* Vision activations: :data:`tools.media_memory.ENCODER_LIVE_TENSORS` tower-width tensors per patch,
  16-bit, for the images encoded together (one request's by default).
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from tools.architecture import ModelArchitecture
from tools.errors import input_problem
from tools.media_memory import ENCODER_LIVE_TENSORS, GIB
from tools.media_models import MediaModel, resolve_media_model
from tools.memory import MemoryEstimate, estimate_memory
from tools.memory_request import EstimateRequest
from tools.models import resolve_model
from tools.notes import Note, note
from tools.plan import Plan, plan_deployment
from tools.workload import DEFAULT_CONTEXT_TOKENS, parse_workload

VIDEO_MAX_PIXELS = 768 * 28 * 28
"""Per-frame pixel budget for video in qwen-vl-utils (VIDEO_MAX_PIXELS)."""

MAX_IMAGES = 256


class VlmMemoryEstimate(BaseModel):
    """Memory of a VLM request mix: the language model's estimate plus the vision tower's activations."""

    model_config = ConfigDict(extra="forbid")

    model: str
    language_model: str
    image_tokens_per_request: int
    prompt_tokens: int = Field(description="text plus image tokens per request")
    llm: MemoryEstimate = Field(description="the language model's estimate with the vision weights included")
    vision_activation_gib: float
    total_gib: float = Field(description="per GPU: the language model's total plus the vision activations")
    assumptions: list[Note]


def smart_resize(model: MediaModel, width: int, height: int) -> tuple[int, int]:
    """Width and height the processor feeds the tower: multiples of 28 px within the pixel bounds."""
    assert model.patch_size and model.spatial_merge and model.min_pixels and model.max_pixels
    factor = model.patch_size * model.spatial_merge
    w = max(factor, round(width / factor) * factor)
    h = max(factor, round(height / factor) * factor)
    if w * h > model.max_pixels:
        beta = math.sqrt(width * height / model.max_pixels)
        w = max(factor, math.floor(width / beta / factor) * factor)
        h = max(factor, math.floor(height / beta / factor) * factor)
    elif w * h < model.min_pixels:
        beta = math.sqrt(model.min_pixels / (width * height))
        w = math.ceil(width * beta / factor) * factor
        h = math.ceil(height * beta / factor) * factor
    return w, h


def image_tokens(model: MediaModel, width: int, height: int) -> int:
    """LLM tokens one image of ``width x height`` pixels becomes."""
    assert model.patch_size and model.spatial_merge
    factor = model.patch_size * model.spatial_merge
    w, h = smart_resize(model, width, height)
    return (w // factor) * (h // factor)


def video_tokens(model: MediaModel, width: int, height: int, frames: int) -> int:
    """LLM tokens of a video clip of ``frames`` sampled frames (pairs of frames share tokens)."""
    assert model.patch_size and model.spatial_merge
    factor = model.patch_size * model.spatial_merge
    scale = min(1.0, math.sqrt(VIDEO_MAX_PIXELS / (width * height)))
    w, h = smart_resize(model, max(factor, int(width * scale)), max(factor, int(height * scale)))
    return math.ceil(frames / 2) * (w // factor) * (h // factor)


def vlm_architecture(model: MediaModel) -> ModelArchitecture:
    """Return the language model's architecture with the vision tower's parameters added to the weights."""
    assert model.language_model
    base = resolve_model(model.language_model)
    vision = model.total_params
    return base.model_copy(
        update={
            "name": model.name,
            "other_params": base.other_params + vision,
            "official_params_b": round(base.param_breakdown().total / 1e9 + vision / 1e9, 2),
            "notes": f"{model.display_name}: {base.name} plus a {vision / 1e9:.2f}B vision tower",
        }
    )


def vision_activation_bytes(model: MediaModel, width: int, height: int, images: int) -> float:
    """Activations of the vision tower while it encodes ``images`` images together."""
    assert model.patch_size and model.hidden_size
    w, h = smart_resize(model, width, height)
    patches = (w // model.patch_size) * (h // model.patch_size)
    return ENCODER_LIVE_TENSORS * patches * model.hidden_size * 2 * images


def estimate_vlm_memory(
    model_name: str,
    *,
    images_per_request: int = 1,
    width: int = 1024,
    height: int = 1024,
    frames: int | None = None,
    text_tokens: int = 512,
    gen_tokens: int = 512,
    batch: int = 1,
    precision: str = "bf16",
    quant: str = "none",
    framework: str = "vllm",
) -> VlmMemoryEstimate:
    """Estimate GPU memory of a VLM serving requests with images (or a video clip).

    Args:
        model_name: a registered VLM, e.g. "Qwen2.5-VL-7B".
        images_per_request: images in each request (0 with ``frames`` for video only).
        width: image or frame width in pixels.
        height: image or frame height in pixels.
        frames: sampled video frames per request; None = images only.
        text_tokens: text tokens of the prompt besides the images.
        gen_tokens: output tokens per request.
        batch: requests served at once.
        precision: LLM weight/compute precision.
        quant: LLM checkpoint quantisation.
        framework: serving stack of the language model.

    Raises:
        UnknownNameError: the model is not registered.
        ToolInputError: not a VLM, or impossible sizes.
    """
    model = resolve_media_model(model_name)
    if model.kind != "vlm":
        raise input_problem(f"error.vlm.not_vlm.{model.kind}", model=model.display_name)
    if not 0 <= images_per_request <= MAX_IMAGES or not (64 <= width <= 16384 and 64 <= height <= 16384):
        raise input_problem("error.vlm.image_sizes", most=MAX_IMAGES)
    per_request = images_per_request * image_tokens(model, width, height)
    if frames:
        per_request += video_tokens(model, width, height, frames)
    arch = vlm_architecture(model)
    prompt = text_tokens + per_request
    request = EstimateRequest.model_validate(
        {
            "model": arch.name,
            "prompt_tokens": prompt,
            "gen_tokens": gen_tokens,
            "batch": batch,
            "precision": precision,
            "quant": quant,
            "framework": framework,
        }
    )
    llm = estimate_memory(request, arch)
    encoded = max(1, images_per_request)
    vision = vision_activation_bytes(model, width, height, encoded) / GIB
    return VlmMemoryEstimate(
        model=model.name,
        language_model=model.language_model or "",
        image_tokens_per_request=per_request,
        prompt_tokens=prompt,
        llm=llm,
        vision_activation_gib=round(vision, 2),
        total_gib=round(llm.per_gpu_total_gib + vision, 2),
        assumptions=[
            note(
                "vlm.video_tokens" if frames else "vlm.image_tokens",
                images=images_per_request,
                width=width,
                height=height,
                image_tokens=per_request,
                text_tokens=text_tokens,
                **({"frames": frames} if frames else {}),
            ),
            note(
                "vlm.composition",
                model=model.display_name,
                language_model=model.language_model or "",
                vision_b=model.total_params / 1e9,
            ),
            note("vlm.tower_activations", images=encoded, gib=round(vision, 2)),
        ],  # fmt: skip
    )


def plan_vlm(
    workload: dict[str, object],
    *,
    images_per_request: int = 1,
    width: int = 1024,
    height: int = 1024,
    frames: int | None = None,
) -> Plan:
    """Plan a VLM deployment: the language model's plan with the images' tokens and the tower's weights.

    Args:
        workload: the text-LLM workload fields (``model`` names the VLM; ``context`` is the text part of
            each request, default :data:`tools.workload.DEFAULT_CONTEXT_TOKENS`).
        images_per_request: images in each request.
        width: image or frame width in pixels.
        height: image or frame height in pixels.
        frames: sampled video frames per request; None = images only.

    Raises:
        UnknownNameError, ToolInputError: as for :func:`estimate_vlm_memory`.
    """
    model = resolve_media_model(str(workload["model"]))
    if model.kind != "vlm":
        raise input_problem(f"error.vlm.not_vlm.{model.kind}", model=model.display_name)
    if not 0 <= images_per_request <= MAX_IMAGES:
        raise input_problem("error.vlm.images_per_request", most=MAX_IMAGES)
    per_request = images_per_request * image_tokens(model, width, height)
    if frames:
        per_request += video_tokens(model, width, height, frames)
    text = int(workload.get("context") or DEFAULT_CONTEXT_TOKENS)  # type: ignore[call-overload]
    fields = {**workload, "model": model.name, "context": text + per_request}
    plan = plan_deployment(parse_workload(fields), vlm_architecture(model))
    vision = vision_activation_bytes(model, width, height, max(1, images_per_request)) / GIB
    for option in plan.options:
        free = option.per_gpu_capacity_gib - option.per_gpu_gib_needed
        if free < vision:
            option.tight_fit = True
            option.notes.append(note("vlm.tower_tight", gib=round(vision, 2), free=round(free, 2)))
    plan.assumptions[:0] = [
        note("vlm.plan_image_tokens", images=images_per_request, width=width, height=height,
             image_tokens=per_request, text_tokens=text),
        note("vlm.plan_tower", model=model.display_name, language_model=model.language_model or "",
             vision_b=model.total_params / 1e9, gib=round(vision, 2)),
    ]  # fmt: skip
    return plan
