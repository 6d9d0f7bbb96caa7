"""GPU memory of diffusion, speech and embedding models at inference, one function per term.

A pipeline's components run one after another (text encoders, then the denoiser ``steps`` times, then the
VAE decode), so the peak is the largest stage: the weights resident during that stage plus its transient
activations. What is resident depends on the diffusers memory option:

* ``none``: every component stays on the GPU.
* ``model``: ``enable_model_cpu_offload()``; only the running component is on the GPU.
* ``sequential``: ``enable_sequential_cpu_offload()``; only the running block (about one layer) is on the
  GPU, at a large cost in speed.

Assumptions and limits
----------------------
* Inference only, PyTorch SDPA attention (no score matrix is stored); ``attention_slicing`` then saves
  nothing measurable and is reported as such.
* Live activations are :data:`DENOISER_LIVE_TENSORS` hidden-width tensors per token and
  :data:`VAE_LIVE_VALUES_PER_PIXEL` values per output pixel: two constants fitted on published diffusers
  runs (``benchmarks/data/media_memory_dev.csv``) and checked on other rows in ``benchmarks/``.
* The VAE decodes in the pipeline dtype; ``vae_tiling`` caps the decoded area at one 512x512 tile (plus
  overlap). A video VAE decodes ``temporal_compression`` frames at a time.
* Quantised dtypes (fp8, int8, nf4) apply to a diffusion pipeline's denoiser (diffusers' per-component
  ``quantization_config``), to its large text encoders only with ``quantize_text_encoders``, never to the
  VAE; speech, embedding and reranker models quantise every component (CTranslate2 and bitsandbytes
  quantise all linear layers). Loaders keep norms and embeddings in 16-bit; that is not modelled here, so
  the planner keeps a wider margin for quantised pipelines.
* Beam search copies the encoder output per beam (transformers' ``_expand_inputs_for_generation``), so
  Whisper's cross-attention cache grows with the beams as the self-attention cache does.
* ``max_memory_allocated``-style figures; what nvidia-smi shows adds the CUDA context
  (:data:`tools.memory_terms.CUDA_CONTEXT_GIB`).
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tools.errors import input_problem
from tools.media_models import DTYPE_BYTES, Component, Dtype, MediaModel, resolve_media_model
from tools.memory_terms import CUDA_CONTEXT_GIB
from tools.notes import Note, NoteValue, note

GIB = 1024**3

Offload = Literal["none", "model", "sequential"]

DENOISER_LIVE_TENSORS = 42.0
"""Hidden-width activation tensors alive per token at a denoiser's peak (fitted: FLUX.1-dev, offloaded run)."""

VAE_LIVE_VALUES_PER_PIXEL = 1740.0
"""Activation values alive per output pixel at the VAE decoder's peak (fitted: SDXL and FLUX.1-dev runs)."""

ENCODER_LIVE_TENSORS = 12.0
"""Hidden-width tensors alive per token in an encoder layer (attention q/k/v/o, the 4x MLP, residual)."""

VAE_TILE_PIXELS = 512 * 512
"""diffusers' default decode tile for SD-family VAEs (``tile_sample_min_size`` 512)."""

_QUANTIZABLE_ENCODER_PARAMS = 1_000_000_000
MAX_PIXELS = 4096 * 4096
MAX_FRAMES = 1024


class MediaRequest(BaseModel):
    """What to size: a registered non-LLM model and its inference settings.

    Only the fields of the model's kind apply; the others must be left at their defaults.
    """

    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="registered name or alias, e.g. 'SDXL', 'flux dev', 'whisper v3', 'bge-m3'")
    dtype: Dtype | None = Field(default=None, description="weights dtype; None = the model's default")
    batch: int = Field(default=1, ge=1, le=1024, description="images per call / audio streams / sequences")
    width: int | None = Field(default=None, ge=64, le=4096, description="image or video width in pixels")
    height: int | None = Field(default=None, ge=64, le=4096, description="image or video height in pixels")
    frames: int | None = Field(default=None, ge=1, le=MAX_FRAMES, description="video frames; None = default")
    offload: Offload = "none"
    text_encoders_on_cpu: bool = Field(default=False, description="encode prompts on the CPU (Wan's --t5_cpu)")
    quantize_text_encoders: bool = Field(
        default=False, description="diffusion: quantise text encoders over 1B parameters too (T5-XXL ...)"
    )
    vae_tiling: bool = False
    attention_slicing: bool = False
    seq_tokens: int | None = Field(default=None, ge=1, description="embedding/reranker tokens per sequence")
    beams: int = Field(default=1, ge=1, le=16, description="speech: beam-search width of the decoder")

    @model_validator(mode="after")
    def _sizes(self) -> MediaRequest:
        if (self.width is None) != (self.height is None):
            raise ValueError("give both width and height, e.g. 1024x1024")
        if self.width and self.height and self.width * self.height > MAX_PIXELS:
            raise ValueError("at most 4096x4096 pixels")
        return self


class StagePeak(BaseModel):
    """Memory of one pipeline stage: weights resident while it runs plus its transient activations."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stage: Literal["text_encoders", "denoiser", "vae_decode", "encoder", "decoder"]
    weights_gib: float
    activations_gib: float

    @property
    def total_gib(self) -> float:
        """Weights plus activations."""
        return self.weights_gib + self.activations_gib


class MediaMemoryEstimate(BaseModel):
    """Peak GPU memory of one model replica on one GPU, term by term."""

    model_config = ConfigDict(extra="forbid")

    model: str
    kind: str
    dtype: Dtype
    offload: Offload
    component_weights_gib: dict[str, float] = Field(description="each component's weights at its dtype")
    stages: list[StagePeak]
    peak_stage: str
    peak_allocated_gib: float = Field(description="tensors at the peak stage (max_memory_allocated view)")
    cuda_context_gib: float
    total_gib: float = Field(description="peak plus CUDA context: what the GPU must hold")
    tokens: int = Field(description="denoiser latent tokens per image/video, or encoder positions per sequence")
    assumptions: list[Note]


def component_dtype(component: Component, dtype: Dtype, quantize_text_encoders: bool = False) -> Dtype:
    """Dtype a component is held in.

    Quantised dtypes reach every component of speech and embedding models (roles encoder/decoder), a
    diffusion pipeline's denoiser, and its text encoders over 1B parameters only when asked; a VAE and
    small text encoders stay in 16-bit.
    """
    if dtype in ("fp32", "fp16", "bf16"):
        return dtype
    if component.role in ("denoiser", "encoder", "decoder"):
        return dtype
    if component.role == "text_encoder" and quantize_text_encoders and component.params > _QUANTIZABLE_ENCODER_PARAMS:
        return dtype
    return "bf16"


def weights_bytes(component: Component, dtype: Dtype, quantize_text_encoders: bool = False) -> float:
    """Bytes of one component's weights at the dtype it is held in."""
    return component.params * DTYPE_BYTES[component_dtype(component, dtype, quantize_text_encoders)]


def activation_bytes_per_value(dtype: Dtype) -> int:
    """Activations run in 16-bit for every 16-bit or quantised dtype, in 32-bit for fp32."""
    return 4 if dtype == "fp32" else 2


def latent_frames(model: MediaModel, frames: int) -> int:
    """Latent frames of a video: the first frame alone, then one per ``temporal_compression`` frames."""
    if not model.temporal_compression:
        return 1
    return 1 + math.ceil((frames - 1) / model.temporal_compression)


def denoiser_tokens(model: MediaModel, width: int, height: int, frames: int) -> int:
    """Positions the denoiser works on: latent pixels (UNet) or latent patches plus prompt tokens (DiT)."""
    assert model.vae_scale and model.patch_size and model.text_tokens is not None
    side = model.vae_scale * model.patch_size
    spatial = math.ceil(height / side) * math.ceil(width / side)
    image_tokens = spatial * latent_frames(model, frames)
    return image_tokens + (model.text_tokens if model.denoiser_arch == "dit" else 0)


def denoiser_activation_bytes(model: MediaModel, tokens: int, batch: int, dtype: Dtype) -> float:
    """Transient activations of one denoiser pass; batched classifier-free guidance doubles the batch."""
    assert model.hidden_size
    passes = 2 if model.cfg and model.cfg_batched else 1
    return DENOISER_LIVE_TENSORS * tokens * model.hidden_size * batch * passes * activation_bytes_per_value(dtype)


def vae_decode_bytes(model: MediaModel, width: int, height: int, batch: int, dtype: Dtype, tiling: bool) -> float:
    """Transient activations of the VAE decoder at the output resolution (one tile when tiling)."""
    pixels = width * height
    if tiling:
        pixels = min(pixels, int(VAE_TILE_PIXELS * 1.25))
    frames_at_once = model.temporal_compression or 1
    return VAE_LIVE_VALUES_PER_PIXEL * pixels * frames_at_once * batch * activation_bytes_per_value(dtype)


def decoder_cache_bytes(model: MediaModel, streams: int, beams: int, dtype: Dtype) -> float:
    """Bytes of a speech decoder's cache for every beam of every stream.

    Cross-attention keys/values over the encoder frames and self-attention keys/values of the window's
    tokens; beam search expands the encoder output per beam, so both grow with the beams.
    """
    if model.tokens_per_audio_s is None:
        return 0.0
    assert model.decoder_layers and model.hidden_size and model.window_s and model.encoder_frames
    tokens = model.tokens_per_audio_s * model.window_s
    per_position = model.decoder_layers * 2 * model.hidden_size * activation_bytes_per_value(dtype)
    return streams * beams * per_position * (model.encoder_frames + tokens)


def encoder_activation_bytes(model: MediaModel, tokens: int, batch: int, dtype: Dtype) -> float:
    """Transient activations of one encoder layer over ``batch`` sequences of ``tokens`` positions."""
    assert model.hidden_size
    return ENCODER_LIVE_TENSORS * tokens * model.hidden_size * batch * activation_bytes_per_value(dtype)


def estimate_media_memory(req: MediaRequest | dict[str, object]) -> MediaMemoryEstimate:
    """Estimate peak GPU memory of a diffusion, speech, embedding or reranker model at inference.

    Args:
        req: the model and its settings (a :class:`MediaRequest` or its fields).

    Returns:
        Per-component weights, each stage's weights and activations, the peak stage and the total.

    Raises:
        UnknownNameError: the model is not registered.
        ToolInputError: a setting that does not apply to this kind of model.
    """
    r = req if isinstance(req, MediaRequest) else MediaRequest.model_validate(req)
    model = resolve_media_model(r.model)
    dtype = r.dtype or model.default_dtype
    _check_applicable(model, r)
    weights = {c.name: weights_bytes(c, dtype, r.quantize_text_encoders) for c in model.components}
    if model.kind == "diffusion":
        stages, tokens, notes = _diffusion_stages(model, r, dtype, weights)
    else:
        stages, tokens, notes = _encoder_stages(model, r, dtype, weights)
    peak = max(stages, key=lambda s: s.total_gib)
    allocated = peak.total_gib
    return MediaMemoryEstimate(
        model=model.name,
        kind=model.kind,
        dtype=dtype,
        offload=r.offload,
        component_weights_gib={name: round(b / GIB, 3) for name, b in weights.items()},
        stages=stages,
        peak_stage=peak.stage,
        peak_allocated_gib=round(allocated, 2),
        cuda_context_gib=CUDA_CONTEXT_GIB,
        total_gib=round(allocated + CUDA_CONTEXT_GIB, 2),
        tokens=tokens,
        assumptions=notes,
    )


def _check_applicable(model: MediaModel, r: MediaRequest) -> None:
    if r.beams > 1 and model.tokens_per_audio_s is None:
        raise input_problem("error.media.beams", model=model.display_name)
    if model.kind != "diffusion":
        for flag, value in (("--resolution", r.width), ("--frames", r.frames)):
            if value is not None:
                raise input_problem("error.media.image_flag", flag=flag, model=model.display_name)
        if (
            r.offload != "none"
            or r.vae_tiling
            or r.attention_slicing
            or r.text_encoders_on_cpu
            or (r.quantize_text_encoders)
        ):
            raise input_problem("error.media.diffusers_options", model=model.display_name)
    if r.frames is not None and not model.is_video:
        raise input_problem("error.media.frames_on_image_model", model=model.display_name)
    if r.seq_tokens is not None:
        if model.kind not in ("embedding", "reranker"):
            raise input_problem("error.media.doc_tokens", model=model.display_name)
        assert model.max_tokens
        if r.seq_tokens > model.max_tokens:
            raise input_problem("error.media.max_tokens", model=model.display_name, most=model.max_tokens)


def _diffusion_stages(
    model: MediaModel, r: MediaRequest, dtype: Dtype, weights: dict[str, float]
) -> tuple[list[StagePeak], int, list[Note]]:
    assert model.default_resolution
    width, height = (r.width, r.height) if r.width and r.height else model.default_resolution
    frames = r.frames or model.default_frames or 1
    tokens = denoiser_tokens(model, width, height, frames)
    by_role = {
        role: sum(weights[c.name] for c in model.components if c.role == role)
        for role in ("text_encoder", "denoiser", "vae")
    }
    den_act = denoiser_activation_bytes(model, tokens, r.batch, dtype)
    vae_act = vae_decode_bytes(model, width, height, r.batch, dtype, r.vae_tiling)
    if r.text_encoders_on_cpu:
        by_role["text_encoder"] = 0.0
    resident = _resident(model, r.offload, by_role)
    stages = [
        StagePeak(stage="text_encoders", weights_gib=resident["text_encoder"] / GIB, activations_gib=0.0),
        StagePeak(stage="denoiser", weights_gib=resident["denoiser"] / GIB, activations_gib=den_act / GIB),
        StagePeak(stage="vae_decode", weights_gib=resident["vae"] / GIB, activations_gib=vae_act / GIB),
    ]
    setting = f"media.{'video' if model.is_video else 'image'}_setting.{_cfg_kind(model)}"
    shape: dict[str, NoteValue] = {"frames": frames} if model.is_video else {}
    notes = [
        note(setting, model=model.display_name, width=width, height=height, batch=r.batch, dtype=dtype, tokens=tokens,
             **shape),
        note(f"media.offload.{r.offload}"),
        *([note("media.text_encoders_on_cpu")] if r.text_encoders_on_cpu else []),
        note("media.vae_tiled" if r.vae_tiling else "media.vae_whole"),
        note("media.sdpa_slicing" if r.attention_slicing else "media.sdpa"),
    ]  # fmt: skip
    return stages, tokens, notes


def _resident(model: MediaModel, offload: Offload, by_role: dict[str, float]) -> dict[str, float]:
    """Weights on the GPU while each stage runs, by the stage's role."""
    everything = sum(by_role.values())
    if offload == "none":
        return {role: everything for role in by_role}
    if offload == "model":
        return dict(by_role)
    # Sequential offload moves one block at a time: about one layer of the running component.
    blocks = model.layers or 24
    return {role: size / blocks for role, size in by_role.items()}


def _cfg_kind(model: MediaModel) -> str:
    """How classifier-free guidance runs: the suffix of the setting note's code."""
    if not model.cfg:
        return "distilled"
    return "batched" if model.cfg_batched else "second_pass"


def _encoder_stages(
    model: MediaModel, r: MediaRequest, dtype: Dtype, weights: dict[str, float]
) -> tuple[list[StagePeak], int, list[Note]]:
    resident = sum(weights.values()) / GIB
    if model.kind == "speech":
        assert model.encoder_frames and model.window_s
        tokens = model.encoder_frames
        enc = encoder_activation_bytes(model, tokens, r.batch, dtype) / GIB
        cache = decoder_cache_bytes(model, r.batch, r.beams, dtype) / GIB
        notes = [
            note(
                "media.speech_setting", model=model.display_name, streams=r.batch, window_s=model.window_s, dtype=dtype
            )
        ]
        stages = [StagePeak(stage="encoder", weights_gib=resident, activations_gib=enc)]
        if model.tokens_per_audio_s is not None:
            notes.append(
                note(
                    "media.decoder_cache",
                    frames=model.encoder_frames,
                    tokens=model.tokens_per_audio_s * model.window_s,
                    beams=r.beams,
                )
            )
            stages.append(StagePeak(stage="decoder", weights_gib=resident, activations_gib=cache))
        else:
            notes.append(note("media.non_autoregressive"))
        return stages, tokens, notes
    assert model.max_tokens
    tokens = r.seq_tokens or min(model.max_tokens, 512)
    act = encoder_activation_bytes(model, tokens, r.batch, dtype) / GIB
    notes = [
        note("media.encoder_setting", model=model.display_name, batch=r.batch, tokens=tokens, dtype=dtype),
        note("media.no_kv_cache"),
    ]
    return [StagePeak(stage="encoder", weights_gib=resident, activations_gib=act)], tokens, notes
