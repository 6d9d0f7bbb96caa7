"""Vision-language models: images as tokens (Qwen2-VL's rule), the tower's weights, and the LLM plan."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tools.errors import ToolInputError
from tools.media_models import resolve_media_model
from tools.models import resolve_model
from tools.vlm import estimate_vlm_memory, image_tokens, plan_vlm, smart_resize, video_tokens, vlm_architecture

QWEN_VL = "https://github.com/QwenLM/Qwen2.5-VL (qwen-vl-utils smart_resize: multiples of 28 px, 28x28 px per token)"


@pytest.mark.parametrize(
    ("size", "tokens"),
    [
        ((1024, 1024), 37 * 37),  # 1024 -> 1036 = 37 x 28
        ((1920, 1080), 69 * 39),  # 1920 -> 1932 (69 x 28), 1080 -> 1092 (39 x 28)
        ((28, 28), 4),  # below min_pixels (3,136 = 56 x 56): scaled up to 56 x 56
    ],
)
def test_image_tokens_follow_smart_resize(size: tuple[int, int], tokens: int) -> None:
    model = resolve_media_model("qwen2.5-vl-7b")
    assert image_tokens(model, *size) == tokens, QWEN_VL


def test_a_huge_image_is_capped_at_max_pixels() -> None:
    model = resolve_media_model("qwen2.5-vl-7b")
    w, h = smart_resize(model, 8000, 8000)
    assert w * h <= 12_845_056 and w % 28 == 0 and h % 28 == 0


def test_video_frames_pair_up_and_shrink() -> None:
    model = resolve_media_model("qwen2.5-vl-7b")
    one_pair = video_tokens(model, 1280, 720, 2)
    assert video_tokens(model, 1280, 720, 32) == 16 * one_pair
    assert one_pair <= 768 + 60  # VIDEO_MAX_PIXELS per frame pair, rounded to 28 px


def test_the_architecture_is_the_language_model_plus_the_tower() -> None:
    vl = vlm_architecture(resolve_media_model("Qwen2.5-VL-7B"))
    base = resolve_model("Qwen2.5-7B-Instruct")
    assert vl.param_breakdown().total - base.param_breakdown().total == 670_000_000
    # Published total of Qwen2.5-VL-7B-Instruct: 8.29B (repository).
    assert vl.param_breakdown().total / 1e9 == pytest.approx(8.29, abs=0.02)


def test_images_grow_the_kv_cache() -> None:
    text_only = estimate_vlm_memory("qwen2.5-vl-7b", images_per_request=0, batch=8)
    with_images = estimate_vlm_memory("qwen2.5-vl-7b", images_per_request=4, batch=8)
    assert with_images.image_tokens_per_request == 4 * 37 * 37
    assert with_images.llm.per_gpu.kv_cache_gib > text_only.llm.per_gpu.kv_cache_gib
    assert with_images.total_gib > with_images.llm.per_gpu_total_gib


def test_plan_includes_image_tokens_and_tower() -> None:
    plan = plan_vlm({"model": "千问VL 7B", "concurrency": 16}, images_per_request=2)
    assert plan.model == "Qwen2.5-VL-7B-Instruct" and plan.options
    assert plan.workload.context == 4096 + 2 * 37 * 37
    assert any("vision tower" in a.text for a in plan.assumptions)


def test_not_a_vlm_is_refused() -> None:
    with pytest.raises(ToolInputError, match="not a vision-language model"):
        estimate_vlm_memory("sdxl")


def test_cli_vlm_plan_json() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "ui", "plan", "--model", "Qwen2.5-VL-7B", "--images-per-request", "2",
         "--resolution", "1024x1024", "--concurrency", "8", "--json"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["options"] and data["workload"]["context"] == 4096 + 2 * 37 * 37
