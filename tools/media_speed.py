"""Speed of diffusion, speech and embedding models on one GPU: FLOPs at a stated utilisation.

Assumptions and limits
----------------------
* Diffusion: ``steps x passes x FLOPs per pass / (dense TFLOPS x utilisation)``. A DiT pass costs
  ``2 x params x tokens`` plus attention ``4 x layers x tokens^2 x hidden``. A UNet pass is counted as
  ``2 x params x tokens / 16``: most of SDXL's parameters sit in blocks at a quarter of the latent
  resolution per side; the utilisation constant absorbs what that leaves out (the full-resolution convs).
  The VAE decode and text encoders add a fixed share (:data:`DIFFUSION_FIXED_SHARE`).
* Speech (Whisper): the encoder runs once per 30 s window (``2 x params x frames``); the decoder emits
  ``tokens_per_audio_s`` tokens per second of audio, each step bandwidth bound (all decoder weights read
  once per step for the whole batch) or compute bound, whichever is slower. Non-autoregressive models
  (Paraformer, SenseVoice) are one encoder pass per window.
* Embedding / reranker: ``2 x params`` FLOPs per token plus attention, compute bound at batch sizes used
  for indexing.
* The constants are fitted on the development rows in ``benchmarks/data/media_speed_dev.csv`` or stated
  as assumptions; ``benchmarks/media_accuracy.py`` checks them on rows they were not fitted on. Planning
  figures (about +-30%), not benchmarks of the user's setup.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from tools.media_memory import Offload, denoiser_tokens, latent_frames, weights_bytes
from tools.media_models import DTYPE_BYTES, Dtype, MediaModel
from tools.notes import Note, note
from tools.throughput import GpuPerf

UNET_UTILISATION = 0.31
"""Achieved share of dense TFLOPS by the UNet FLOP count above (fitted: SDXL, A100, bf16, SDPA)."""

DIT_UTILISATION = 0.6
"""Achieved share of dense TFLOPS for DiT denoisers: large GEMMs and flash attention (stated)."""

ENCODER_UTILISATION = 0.5
"""Achieved share of dense TFLOPS for batched encoder passes (the LLM prefill assumption)."""

BANDWIDTH_EFFICIENCY = 0.77
"""Achieved share of memory bandwidth when every weight is read once per step (the LLM decode fit)."""

SPEECH_STEP_OVERHEAD_S = 0.015
"""Per decoder step of Whisper: beam search, timestamp rules, kernel launches (fitted: faster-whisper
large-v2, fp16, beam 5, batch 1, RTX 3070 Ti)."""

OFFLOAD_TRANSFER_GB_S = 8.0
"""Host-to-GPU copy rate of diffusers' CPU offload from pageable memory (stated; PCIe Gen4 x16 peaks at
32 GB/s, unpinned copies reach a fraction). Model offload moves every component in and out once per image
(FLUX.1 [dev]: 12 s -> 20 s per image in the diffusers quantisation benchmark); sequential offload moves
the denoiser's weights in every step."""

NAR_WINDOW_OVERHEAD_S = 0.07
"""Per 10 s of audio for non-autoregressive ASR (Paraformer, SenseVoice): feature extraction, CTC/CIF
decoding and launches dominate their few FLOPs (SenseVoice-Small's card: 70 ms for 10 s of audio)."""

DIFFUSION_FIXED_SHARE = 0.05
"""Text encoding and VAE decode as a share of the denoising time (stated)."""


class MediaSpeed(BaseModel):
    """Throughput of one model replica on one GPU."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seconds_per_item: float = Field(description="seconds per image, video, audio hour or million tokens")
    items_per_hour: float = Field(description="images, videos, audio hours or million tokens per GPU-hour")
    unit: str = Field(description="'image', 'video', 'audio hour' or 'million tokens'")
    assumptions: list[Note]


def denoiser_pass_flops(model: MediaModel, tokens: int) -> float:
    """FLOPs of one denoiser pass over ``tokens`` positions (batch 1)."""
    params = model.params_of("denoiser")
    if model.denoiser_arch == "unet":
        return 2.0 * params * tokens / 16
    assert model.layers and model.hidden_size
    return 2.0 * params * tokens + 4.0 * model.layers * tokens**2 * model.hidden_size


def diffusion_speed(
    model: MediaModel,
    gpu: GpuPerf,
    width: int,
    height: int,
    steps: int,
    frames: int | None = None,
    offload: Offload = "none",
    dtype: Dtype | None = None,
) -> MediaSpeed:
    """Seconds per image (or video) and items per GPU-hour at batch 1, with the offload transfers."""
    frames = frames or model.default_frames or 1
    tokens = denoiser_tokens(model, width, height, frames)
    passes = 2 if model.cfg else 1
    util = UNET_UTILISATION if model.denoiser_arch == "unet" else DIT_UTILISATION
    denoise = steps * passes * denoiser_pass_flops(model, tokens) / (gpu.dense_tflops * 1e12 * util)
    transfer = _offload_seconds(model, offload, steps, dtype or model.default_dtype)
    seconds = denoise * (1 + DIFFUSION_FIXED_SHARE) + transfer
    unit = "video" if model.is_video else "image"
    return MediaSpeed(
        seconds_per_item=round(seconds, 2),
        items_per_hour=round(3600 / seconds, 1),
        unit=unit,
        assumptions=[
            note("media.speed.diffusion", steps=steps, passes=passes, tokens=tokens, utilisation=util,
                 tflops=gpu.dense_tflops, gpu=gpu.name, fixed_share=DIFFUSION_FIXED_SHARE),
            *([note("media.speed.latent_frames", frames=latent_frames(model, frames))] if model.is_video else []),
            *([note("media.speed.offload", seconds=round(transfer, 2), gb_s=OFFLOAD_TRANSFER_GB_S)]
              if transfer else []),
        ],  # fmt: skip
    )


def _offload_seconds(model: MediaModel, offload: Offload, steps: int, dtype: Dtype) -> float:
    if offload == "none":
        return 0.0
    moved = {c.name: weights_bytes(c, dtype) for c in model.components}
    if offload == "model":
        total = 2 * sum(moved.values())
    else:
        total = steps * sum(b for c, b in zip(model.components, moved.values(), strict=True) if c.role == "denoiser")
    return total / (OFFLOAD_TRANSFER_GB_S * 1e9)


def speech_speed(model: MediaModel, gpu: GpuPerf, dtype: Dtype, streams: int = 1, beams: int = 1) -> MediaSpeed:
    """Audio hours transcribed per GPU-hour with ``streams`` windows decoded together."""
    assert model.window_s and model.encoder_frames
    encoder_params = model.params_of("encoder")
    flops = 2.0 * encoder_params * model.encoder_frames * streams
    encode_s = flops / (gpu.dense_tflops * 1e12 * ENCODER_UTILISATION)
    decode_s = 0.0
    if model.tokens_per_audio_s is not None:
        decoder_params = model.params_of("decoder")
        read_s = decoder_params * DTYPE_BYTES[dtype] / (gpu.memory_bandwidth_gb_s * 1e9 * BANDWIDTH_EFFICIENCY)
        math_s = 2.0 * decoder_params * streams * beams / (gpu.dense_tflops * 1e12 * ENCODER_UTILISATION)
        steps = model.tokens_per_audio_s * model.window_s
        decode_s = steps * (max(read_s, math_s) + SPEECH_STEP_OVERHEAD_S)
    if model.tokens_per_audio_s is None:
        # A pass over `streams` windows at once pays the fixed per-window work once (batched).
        encode_s = max(encode_s, NAR_WINDOW_OVERHEAD_S * model.window_s / 10)
    window_s = encode_s + decode_s
    audio_s_per_s = streams * model.window_s / window_s
    return MediaSpeed(
        seconds_per_item=round(3600 / audio_s_per_s, 1),
        items_per_hour=round(audio_s_per_s, 1),
        unit="audio hour",
        assumptions=[
            note("media.speed.speech", streams=streams, window_s=model.window_s, beams=beams,
                 rtf=window_s / (streams * model.window_s), gpu=gpu.name),
        ],  # fmt: skip
    )


def encoder_speed(model: MediaModel, gpu: GpuPerf, seq_tokens: int) -> MediaSpeed:
    """Million tokens encoded per GPU-hour at ``seq_tokens`` tokens per sequence (batched)."""
    assert model.layers and model.hidden_size
    per_token = 2.0 * model.total_params + 4.0 * model.layers * seq_tokens * model.hidden_size
    tokens_per_s = gpu.dense_tflops * 1e12 * ENCODER_UTILISATION / per_token
    per_hour = tokens_per_s * 3600 / 1e6
    return MediaSpeed(
        seconds_per_item=round(1e6 / tokens_per_s, 2),
        items_per_hour=round(per_hour, 1),
        unit="million tokens",
        assumptions=[
            note("media.speed.encoder", tokens_per_s=round(tokens_per_s), seq_tokens=seq_tokens,
                 utilisation=ENCODER_UTILISATION, tflops=gpu.dense_tflops, gpu=gpu.name),
        ],  # fmt: skip
    )


def replicas_for(load_per_hour: float, items_per_hour: float) -> int:
    """GPUs (one replica each) needed to sustain ``load_per_hour`` items; at least one."""
    return max(1, math.ceil(load_per_hour / items_per_hour))
