"""The non-LLM registry: every row validates, names and aliases users type resolve, bad rows are named."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.data_files import DataFileError
from tools.errors import UnknownNameError
from tools.media_models import (
    find_media_model,
    list_media_models,
    load_media_models,
    read_media_models,
    resolve_media_model,
)


@pytest.mark.parametrize(
    ("typed", "name"),
    [
        ("SDXL", "stable-diffusion-xl-base-1.0"),
        ("stable diffusion xl", "stable-diffusion-xl-base-1.0"),
        ("flux dev", "FLUX.1-dev"),
        ("FLUX.1-schnell", "FLUX.1-schnell"),
        ("sd3.5 large", "stable-diffusion-3.5-large"),
        ("whisper v3", "whisper-large-v3"),
        ("whisper turbo", "whisper-large-v3-turbo"),
        ("bge m3", "bge-m3"),
        ("bge-reranker-v2-m3", "bge-reranker-v2-m3"),
        ("通义万相", "Wan2.1-T2V-14B"),
        ("千问图像", "Qwen-Image"),
        ("SenseVoice", "SenseVoiceSmall"),
    ],
)
def test_names_users_type_resolve(typed: str, name: str) -> None:
    model = find_media_model(typed)
    assert model is not None and model.name == name


def test_every_row_has_a_source_and_the_fields_of_its_kind() -> None:
    models = load_media_models()
    assert {m.kind for m in models} == {"diffusion", "speech", "embedding", "reranker", "vlm"}
    for model in models:
        assert model.source.startswith("https://")
        if model.kind == "diffusion":
            assert model.params_of("denoiser") > 0 and model.params_of("vae") > 0


def test_published_totals() -> None:
    # SDXL base: UNet 2.567B + CLIP-L 123M + OpenCLIP bigG 695M + VAE 84M (model repository);
    # Whisper large-v3: 1,543,490,560 (model card); FLUX.1-dev transformer 11.9B (model repository).
    assert resolve_media_model("sdxl").total_params == pytest.approx(3.469e9, rel=1e-3)
    assert resolve_media_model("whisper-large-v3").total_params == 1_543_490_560
    assert resolve_media_model("flux dev").params_of("denoiser") == pytest.approx(11.9e9, rel=1e-3)


def test_unknown_name_suggests_close_ones() -> None:
    with pytest.raises(UnknownNameError, match="Did you mean"):
        resolve_media_model("flux pro")


def test_kind_filter() -> None:
    assert all(m.kind == "speech" for m in list_media_models("speech"))
    assert len(list_media_models("speech")) >= 3


def test_a_bad_row_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "media.yaml"
    bad.write_text(
        "models:\n  - {name: x, display_name: X, kind: diffusion, source: 'https://x', default_dtype: fp16,\n"
        "     components: [{name: unet, role: denoiser, params: 10}]}\n",
        encoding="utf-8",
    )
    with pytest.raises(DataFileError, match=r"model #1 \(x\)"):
        read_media_models(bad)


def test_a_name_used_twice_is_refused(tmp_path: Path) -> None:
    row = (
        "  - {{name: {n}, display_name: E, kind: embedding, source: 'https://x', default_dtype: fp16,\n"
        "     aliases: [same], components: [{{name: e, role: encoder, params: 10}}],\n"
        "     layers: 2, hidden_size: 8, max_tokens: 16}}\n"
    )
    path = tmp_path / "media.yaml"
    path.write_text("models:\n" + row.format(n="a") + row.format(n="b"), encoding="utf-8")
    with pytest.raises(DataFileError, match="names both"):
        read_media_models(path)
