"""Memory of diffusion, speech and embedding models: golden rows with sources, and each term's behaviour."""

from __future__ import annotations

import pytest

from tools.errors import ToolInputError
from tools.media_memory import (
    MediaRequest,
    denoiser_tokens,
    estimate_media_memory,
    latent_frames,
)
from tools.media_models import resolve_media_model

QUANT_BENCH = "https://huggingface.co/datasets/derekl35/diffusers-quantization-benchmarks"
SDXL_BENCH = "https://huggingface.co/datasets/sayakpaul/sample-datasets (collated_results_sdxl.csv)"


@pytest.mark.parametrize(
    ("request_fields", "measured_gib", "tolerance", "source"),
    [
        # Development rows: the two activation constants were fitted on these (tolerance = the fit's spread).
        ({"model": "flux dev"}, 36.166, 0.05, QUANT_BENCH + " BF16, no offload"),
        ({"model": "flux dev", "offload": "model"}, 23.271, 0.05, QUANT_BENCH + " BF16, model CPU offload"),
        ({"model": "sdxl", "dtype": "bf16"}, 8.958, 0.12, SDXL_BENCH + " bf16, SDPA, batch 1, A100"),
        ({"model": "sdxl", "dtype": "fp32"}, 16.827, 0.2, SDXL_BENCH + " fp32, batch 1, A100"),
    ],
)
def test_peak_allocated_against_published_runs(
    request_fields: dict[str, object], measured_gib: float, tolerance: float, source: str
) -> None:
    est = estimate_media_memory(request_fields)
    assert est.peak_allocated_gib == pytest.approx(measured_gib, rel=tolerance), source


def test_loaded_weights_match_the_published_figure_exactly() -> None:
    # "Memory after loading" for FLUX.1-dev in BF16 is 31.447 GiB (QUANT_BENCH): the weights alone.
    est = estimate_media_memory({"model": "flux dev"})
    assert sum(est.component_weights_gib.values()) == pytest.approx(31.447, abs=0.05)


def test_model_offload_keeps_only_the_running_component() -> None:
    full = estimate_media_memory({"model": "flux dev"})
    offloaded = estimate_media_memory({"model": "flux dev", "offload": "model"})
    sequential = estimate_media_memory({"model": "flux dev", "offload": "sequential"})
    assert sequential.total_gib < offloaded.total_gib < full.total_gib
    assert offloaded.peak_stage == "denoiser"


def test_vae_tiling_caps_the_decode_and_resolution_grows_it() -> None:
    big = estimate_media_memory({"model": "sdxl", "width": 2048, "height": 2048})
    tiled = estimate_media_memory({"model": "sdxl", "width": 2048, "height": 2048, "vae_tiling": True})
    vae = {s.stage: s.activations_gib for s in big.stages}["vae_decode"]
    vae_tiled = {s.stage: s.activations_gib for s in tiled.stages}["vae_decode"]
    assert vae_tiled < vae / 10
    small = estimate_media_memory({"model": "sdxl", "width": 512, "height": 512})
    assert small.total_gib < big.total_gib


def test_guidance_doubles_the_denoiser_batch_only_when_batched() -> None:
    sdxl = resolve_media_model("sdxl")
    wan = resolve_media_model("wan 1.3b")
    assert sdxl.cfg and sdxl.cfg_batched and wan.cfg and not wan.cfg_batched
    one = estimate_media_memory({"model": "sdxl", "batch": 1})
    two = estimate_media_memory({"model": "sdxl", "batch": 2})
    den = [{s.stage: s.activations_gib for s in e.stages}["denoiser"] for e in (one, two)]
    assert den[1] == pytest.approx(2 * den[0])


def test_token_rules() -> None:
    flux = resolve_media_model("flux dev")
    # 1024x1024 -> 128x128 latent -> 64x64 patches of 2x2 = 4,096 image tokens, plus 512 T5 tokens.
    assert denoiser_tokens(flux, 1024, 1024, 1) == 4096 + 512
    wan = resolve_media_model("wan 1.3b")
    # 81 frames -> 1 + 80/4 = 21 latent frames (Wan-VAE: 4x in time).
    assert latent_frames(wan, 81) == 21
    assert denoiser_tokens(wan, 832, 480, 81) == 21 * 30 * 52 + 512


def test_whisper_beams_grow_the_decoder_cache() -> None:
    one = estimate_media_memory({"model": "whisper v3"})
    five = estimate_media_memory({"model": "whisper v3", "beams": 5})
    assert five.total_gib > one.total_gib
    assert {s.stage for s in one.stages} == {"encoder", "decoder"}


def test_embedding_activations_grow_with_batch_and_length() -> None:
    small = estimate_media_memory({"model": "bge-m3", "batch": 1, "seq_tokens": 512})
    big = estimate_media_memory({"model": "bge-m3", "batch": 64, "seq_tokens": 8192})
    assert big.total_gib > small.total_gib
    assert small.component_weights_gib["encoder"] == pytest.approx(567_754_752 * 2 / 1024**3, abs=0.001)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"model": "whisper v3", "width": 512, "height": 512}, "--resolution applies to image and video"),
        ({"model": "sdxl", "frames": 16}, "--frames applies to video models"),
        ({"model": "bge-m3", "seq_tokens": 100_000}, "at most 8,192 tokens"),
        ({"model": "sdxl", "beams": 4}, "--beams applies to autoregressive speech"),
        ({"model": "bge-m3", "offload": "model"}, "diffusers memory options"),
    ],
)
def test_settings_of_another_kind_are_refused(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ToolInputError, match=message):
        estimate_media_memory(fields)


def test_sizes_are_validated() -> None:
    with pytest.raises(ValueError, match="both width and height"):
        MediaRequest(model="sdxl", width=1024)
    with pytest.raises(ValueError):
        MediaRequest(model="sdxl", batch=0)


def test_quantised_dtypes_reach_speech_and_embedding_weights_and_text_encoders_only_when_asked() -> None:
    whisper16 = estimate_media_memory({"model": "whisper v3"})
    whisper8 = estimate_media_memory({"model": "whisper v3", "dtype": "int8"})
    assert sum(whisper8.component_weights_gib.values()) == pytest.approx(
        sum(whisper16.component_weights_gib.values()) / 2, rel=0.01)
    flux = estimate_media_memory({"model": "flux dev", "dtype": "nf4"})
    flux_all = estimate_media_memory({"model": "flux dev", "dtype": "nf4", "quantize_text_encoders": True})
    t5 = "text_encoder_2 (T5-XXL encoder)"
    assert flux.component_weights_gib[t5] == pytest.approx(4 * flux_all.component_weights_gib[t5], rel=0.01)


def test_beam_search_copies_the_encoder_output_per_beam() -> None:
    one = estimate_media_memory({"model": "whisper v3"})
    five = estimate_media_memory({"model": "whisper v3", "beams": 5})
    cache = [{s.stage: s.activations_gib for s in e.stages}["decoder"] for e in (one, five)]
    assert cache[1] == pytest.approx(5 * cache[0])
