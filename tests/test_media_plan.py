"""The planner for image/video, speech and embedding workloads: options truly fit, loads size the fleet."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools.errors import ToolInputError
from tools.media_plan import MediaWorkload, plan_media


def test_sdxl_at_2000_images_an_hour_gets_priced_options_that_fit() -> None:
    plan = plan_media({"request": {"model": "sdxl", "width": 1024, "height": 1024}, "images_per_hour": 2000})
    assert plan.options
    for option in plan.options:
        assert option.per_gpu_gib_needed <= option.per_gpu_capacity_gib
        # Enough GPUs for the load: GPUs x images per GPU-hour covers 2,000 images an hour.
        assert option.total_gpus * option.speed_per_gpu.items_per_hour >= 2000
        assert option.cost_unit == "1,000 images"
    priced = [o for o in plan.options if o.price_cny_per_hour is not None]
    assert priced and all(o.price_source for o in priced)


def test_flux_dev_in_bf16_at_1024_does_not_fit_a_24_gb_card() -> None:
    # The article put SDXL on an A10; FLUX.1-dev in bf16 needs ~36 GiB at 1024x1024 (published run).
    plan = plan_media({"request": {"model": "flux dev"}, "images_per_hour": 100})
    assert all("A10" != (o.gpu_model or "") for o in plan.options)
    a10 = [r for r in plan.rejected if r.gpu_model == "A10"]
    assert a10 and a10[0].reason.code == "media.reject.memory"
    offloaded = plan_media({"request": {"model": "flux dev", "offload": "model", "dtype": "nf4"}, "gpu": "A10"})
    assert offloaded.options and offloaded.options[0].gpu_model == "A10"


def test_whisper_batch_transcription_sizes_gpus_for_the_deadline() -> None:
    fast = plan_media({"request": {"model": "whisper v3"}, "audio_hours": 10_000, "within_hours": 24})
    slow = plan_media({"request": {"model": "whisper v3"}, "audio_hours": 10_000, "within_hours": 240})
    assert fast.options[0].load_gpus > slow.options[0].load_gpus
    top = fast.options[0]
    assert top.batch_job_hours is not None and top.batch_job_hours <= 24
    assert top.cost_unit == "audio hour"


def test_bge_m3_corpus_indexing() -> None:
    plan = plan_media({"request": {"model": "bge-m3"}, "docs": 1_000_000, "doc_tokens": 512, "within_hours": 2})
    top = plan.options[0]
    assert top.batch_job_hours is not None and top.batch_job_hours <= 2
    assert top.cost_unit == "million tokens"


def test_a_gpu_filter_is_honoured() -> None:
    plan = plan_media({"request": {"model": "sdxl"}, "images_per_hour": 500, "gpu": "L20"})
    assert plan.options and all((o.gpu_model or o.gpu_model_likely) == "L20" for o in plan.options)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"request": {"model": "sdxl"}, "audio_hours": 10}, "--audio-hours does not apply"),
        ({"request": {"model": "whisper v3"}, "images_per_hour": 10}, "--images-per-hour does not apply"),
        ({"request": {"model": "bge-m3"}, "steps": 30}, "--steps does not apply"),
    ],
)
def test_loads_of_another_kind_are_refused(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ToolInputError, match=message):
        plan_media(fields)


def test_two_loads_at_once_are_refused() -> None:
    with pytest.raises(ValueError, match="give one load"):
        MediaWorkload.model_validate({"request": {"model": "sdxl"}, "images_per_hour": 1, "audio_hours": 1})


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ui", *args], capture_output=True, text=True, timeout=120)


def test_cli_plan_json_for_sdxl() -> None:
    out = run("plan", "--model", "sdxl", "--resolution", "1024x1024", "--images-per-hour", "2000", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["kind"] == "diffusion" and data["options"]
    assert {"instance_type", "total_gpus", "speed_per_gpu", "cost_cny_per_unit", "price_source"} <= data[
        "options"][0].keys()


def test_cli_estimate_for_whisper_and_bge() -> None:
    out = run("estimate", "--model", "whisper large v3", "--beams", "5", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["kind"] == "speech"
    out = run("estimate", "--model", "bge-m3", "--doc-tokens", "2048", "--batch", "16")
    assert out.returncode == 0, out.stderr
    assert "bge-m3" in out.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("plan", "--model", "sdxl", "--context", "4096"), "--context applies to text LLMs, not to sdxl"),
        (("plan", "--model", "qwen2.5-7b", "--images-per-hour", "10"), "--images-per-hour applies to image"),
        (("plan", "--model", "sdxl", "--resolution", "big"), "expected WIDTHxHEIGHT"),
        (("plan", "--model", "sdxl", "--resolution", "8192x8192"), "--resolution"),
        (("estimate", "--model", "bge-m3", "--doc-tokens", "99999"), "at most 8,192 tokens"),
    ],
)
def test_cli_bad_combinations_are_one_line_errors(args: tuple[str, ...], message: str) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) <= 3


def test_cpu_offload_costs_time_per_image() -> None:
    from tools.media_models import resolve_media_model
    from tools.media_speed import diffusion_speed
    from tools.throughput import GpuPerf

    flux = resolve_media_model("flux dev")
    gpu = GpuPerf(name="H100-SXM", memory_bandwidth_gb_s=3350, dense_tflops=989)
    times = [diffusion_speed(flux, gpu, 1024, 1024, 28, offload=o).seconds_per_item
             for o in ("none", "model", "sequential")]
    assert times[0] < times[1] < times[2]


def test_a_bf16_pipeline_is_not_planned_on_a_gpu_without_bf16() -> None:
    plan = plan_media({"request": {"model": "flux dev", "offload": "model"}, "images_per_hour": 100})
    assert all(o.gpu_model != "V100-32GB" for o in plan.options)
    assert any(r.reason.code == "media.reject.no_bf16" for r in plan.rejected if r.gpu_model == "V100-32GB")


def test_a_reranker_is_sized_by_every_query_candidate_pair() -> None:
    base = {"request": {"model": "bge-reranker-v2-m3"}, "qps": 50, "doc_tokens": 512}
    alone = plan_media(base).options[0]
    reranking = plan_media({**base, "candidates": 100}).options[0]
    # 50 queries/s x 100 candidates x (512 + 32) tokens: the fleet must cover that token rate.
    tokens_per_hour = 50 * (32 + 100 * (512 + 32)) * 3600 / 1e6
    assert reranking.load_gpus * reranking.speed_per_gpu.items_per_hour >= tokens_per_hour
    assert reranking.load_gpus > 10 * alone.load_gpus
    with pytest.raises(ToolInputError, match="scores --candidates per query"):
        plan_media({"request": {"model": "bge-reranker-v2-m3"}, "docs": 100})


def test_budget_and_region_are_honoured() -> None:
    cheap = plan_media({"request": {"model": "sdxl"}, "images_per_hour": 100, "budget_cny_month": 100})
    assert all((o.price_cny_per_month or 0) <= 100 for o in cheap.options)
    assert any(r.reason.code == "reject.over_budget" for r in cheap.rejected)
    with pytest.raises(ValueError, match="not an Alibaba Cloud region id"):
        MediaWorkload.model_validate({"request": {"model": "sdxl"}, "region": "mars-1"})
    beijing = plan_media({"request": {"model": "sdxl"}, "images_per_hour": 100, "region": "cn-beijing"})
    assert all(o.price_region in (None, "cn-beijing") for o in beijing.options)


def test_quantised_pipelines_keep_a_wider_margin_and_nothing_fitting_names_what_would() -> None:
    fp8 = plan_media({"request": {"model": "flux dev", "dtype": "fp8"}, "images_per_hour": 50})
    assert all(o.tight_fit == (o.headroom_pct < 30) for o in fp8.options)
    assert any(w.code == "media.quantised_tight" for w in fp8.warnings)
    none = plan_media({"request": {"model": "flux dev"}, "images_per_hour": 5, "gpu": "A10"})
    assert not none.options
    assert any(w.text.startswith("nothing fits FLUX.1 [dev] on A10") for w in none.warnings)
    assert any(w.code == "media.try_settings" and "--offload model" in w.text for w in none.warnings)


def test_cli_refuses_llm_flags_for_media_models_and_suggests_media_names() -> None:
    for args, message in (
        (("estimate", "--model", "sdxl", "--precision", "int4"), "--precision applies to text LLMs"),
        (("estimate", "--model", "sdxl", "--framework", "vllm"), "--framework applies to text LLMs"),
        (("plan", "--model", "sdxl", "--images-per-hour", "10", "--within-hours", "2"), "--within-hours"),
        (("estimate", "--model", "qwen2.5-vl-7b", "--task", "lora"), "fine-tuning is not modelled"),
        (("estimate", "--model", "qwen2.5-vl-7b", "--beams", "3"), "--beams does not apply"),
        (("estimate", "--model", "wan2.2"), "Wan2.1-T2V-1.3B"),
    ):
        out = run(*args)
        assert out.returncode == 2 and message in out.stderr, (args, out.stderr)


def test_cli_estimate_from_jsonl_knows_media_models(tmp_path: Path) -> None:
    path = tmp_path / "req.jsonl"
    lines = ['{"model": "sdxl"}', '{"model": "Qwen2.5-VL-7B", "images_per_request": 2}', '{"model": "sdxl", "x": 1}']
    path.write_text("\n".join(lines) + "\n")
    out = run("estimate", "--from", str(path))
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert results[0]["kind"] == "diffusion"
    assert results[1]["image_tokens_per_request"] == 2 * 37 * 37
    assert "error" in results[2] and "line 3" in results[2]["error"]


def test_models_lists_the_media_registry() -> None:
    out = run("models", "--kind", "media", "--json")
    assert out.returncode == 0
    assert {"sdxl", "whisper v3"} & {a for m in json.loads(out.stdout) for a in m["aliases"]}


def test_a_fixed_fleet_is_honoured_and_the_batch_time_follows_from_it() -> None:
    # 1,000 audio hours on exactly 2 A10s: no option changes the count, and the time halves against one A10.
    two = plan_media({"request": {"model": "whisper v3"}, "audio_hours": 1000, "gpu": "A10", "gpus": 2})
    one = plan_media({"request": {"model": "whisper v3"}, "audio_hours": 1000, "gpu": "A10", "gpus": 1})
    assert two.options and all(o.total_gpus == 2 for o in two.options)
    assert all(o.total_gpus == 1 for o in one.options)
    hours_two, hours_one = two.options[0].batch_job_hours, one.options[0].batch_job_hours
    assert hours_two is not None and hours_one is not None and hours_two == pytest.approx(hours_one / 2, rel=0.01)
    # A 4-GPU type cannot make exactly 2 GPUs: it is rejected with the reason, not resized.
    assert any("cannot make exactly 2 GPUs" in r.reason.text for r in two.rejected)
    assert any("fixed fleet of 2 GPUs" in a.text for a in two.assumptions)
