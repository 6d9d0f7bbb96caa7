"""Speed model: golden numbers with sources and tolerances, plus monotonic behaviour."""

from __future__ import annotations

import pytest

from tools import catalog
from tools.models import resolve_model
from tools.throughput import GpuPerf, decode_speed, prefill_tokens_per_s, training_hours

ESTIMATORS_MD = "../shared/reference/estimators.md §2 (Qwen2.5 speed benchmark, vLLM 0.6.3, A100-80GB)"
A100 = catalog.get_gpu("A100-80GB")
A100_PERF = GpuPerf(
    name=A100.name,
    memory_bandwidth_gb_s=A100.memory_bandwidth_gb_s,
    dense_tflops=A100.bf16_dense_tflops or 0,
    link_gb_s=A100.nvlink_gb_s,
)


def _bf16_single_stream(model: str) -> float:
    arch = resolve_model(model)
    weights = arch.param_breakdown().total * 2
    return decode_speed(arch, A100_PERF, weight_bytes_total=weights, kv_bytes_per_sequence=0, batch=1)\
        .tokens_per_s_per_stream


@pytest.mark.parametrize(
    ("model", "measured_over_roofline", "tolerance"),
    [
        ("Qwen2.5-7B-Instruct", 0.63, 0.15),
        ("Qwen2.5-14B-Instruct", 0.68, 0.15),
        ("Qwen2.5-32B-Instruct", 0.71, 0.15),
    ],
)
def test_single_stream_decode_matches_published_ratio(model: str, measured_over_roofline: float, tolerance: float):
    # Source: ESTIMATORS_MD gives measured / (bandwidth / weight bytes) for batch-1 decode.
    arch = resolve_model(model)
    roofline = A100.memory_bandwidth_gb_s * 1e9 / (arch.param_breakdown().total * 2)
    expected = measured_over_roofline * roofline
    assert _bf16_single_stream(model) == pytest.approx(expected, rel=tolerance)


def test_batching_raises_total_but_not_per_stream_speed() -> None:
    arch = resolve_model("qwen2.5-7b")
    weights = arch.param_breakdown().total * 2
    kv = arch.kv_cache_elements(4096) * 2
    one = decode_speed(arch, A100_PERF, weight_bytes_total=weights, kv_bytes_per_sequence=kv, batch=1)
    many = decode_speed(arch, A100_PERF, weight_bytes_total=weights, kv_bytes_per_sequence=kv, batch=32)
    assert many.tokens_per_s_total > 10 * one.tokens_per_s_total
    assert many.tokens_per_s_per_stream < one.tokens_per_s_per_stream


def test_huge_batches_become_compute_bound() -> None:
    arch = resolve_model("qwen2.5-7b")
    weights = arch.param_breakdown().total * 2
    speed = decode_speed(arch, A100_PERF, weight_bytes_total=weights, kv_bytes_per_sequence=0, batch=4096)
    assert speed.bound == "compute"


def test_prefill_is_far_faster_than_decode() -> None:
    arch = resolve_model("qwen2.5-7b")
    assert prefill_tokens_per_s(arch, A100_PERF, prompt_tokens=2048) > 5000


def test_training_time_follows_six_n_d() -> None:
    # 6 x 8.03e9 params x 1e9 tokens / (8 GPUs x 312 TFLOPS x 40% MFU) = 16.1 hours (no checkpointing).
    arch = resolve_model("llama3.1-8b")
    hours = training_hours(arch, A100_PERF, tokens=1e9, gpus=8, task="full", grad_ckpt=False)
    assert hours == pytest.approx(6 * 8.03e9 * 1e9 / (8 * 312e12 * 0.4) / 3600, rel=0.01)
