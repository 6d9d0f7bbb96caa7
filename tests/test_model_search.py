"""Which model fits the named hardware: the tool, the understanding, and the answer through the CLI and API.

Domain: with the hardware fixed the model is the unknown. The answer is the largest registry model that the
estimator fits on that hardware at each weight format (BF16, FP8 where the GPU has FP8 Tensor Cores, 4-bit),
with the next larger model and what it needs; every figure is the same estimator's as evaluate_hardware_fit.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from engine_helpers import ask_api, ask_cli, first_line

from assistant.understanding import understand
from tools.errors import ToolInputError, UnknownNameError
from tools.hardware_fit import evaluate_hardware
from tools.model_search import largest_models_that_fit as largest_models
from tools.model_search import largest_models_within_budget
from tools.models import resolve_model


def _by_format(search: Any) -> dict[str, Any]:
    return {r.weights: r for r in search.results}


def test_largest_fits_and_the_next_larger_does_not_with_the_fit_tools_own_figures() -> None:
    found = largest_models(gpu="L20")
    for result in found.results:
        assert result.largest is not None and result.largest.fits
        fit = evaluate_hardware(result.largest.model, gpu="L20", gpus=1, **_format_args(result.weights))
        assert fit.fits and fit.per_gpu_needed_gib == result.largest.per_gpu_needed_gib
        if result.next_larger is not None:
            assert not result.next_larger.fits
            assert result.next_larger.params_b >= result.largest.params_b
            assert result.next_larger.per_gpu_needed_gib > result.next_larger.per_gpu_usable_gib


def _format_args(weights: str) -> dict[str, str]:
    return {
        "bf16": {"precision": "bf16", "quant": "none"},
        "fp8": {"precision": "fp8", "quant": "fp8"},
        "awq-int4": {"precision": "int4", "quant": "awq-int4"},
        "gptq-int4": {"precision": "int4", "quant": "gptq-int4"},
    }[weights]


def test_formats_follow_what_the_gpu_runs() -> None:
    assert set(_by_format(largest_models(gpu="L20"))) == {"bf16", "fp8", "awq-int4"}  # Ada: FP8 Tensor Cores
    assert set(_by_format(largest_models(gpu="A10"))) == {"bf16", "awq-int4"}  # Ampere: no FP8 Tensor Cores
    assert set(_by_format(largest_models(gpu="V100-16GB"))) == {"bf16", "gptq-int4"}  # Volta: no AWQ kernels


def test_four_bits_fit_a_larger_model_than_bf16_and_more_gpus_a_larger_one_still() -> None:
    one = _by_format(largest_models(gpu="A100-80GB"))
    assert one["awq-int4"].largest.params_b > one["bf16"].largest.params_b
    eight = _by_format(largest_models(gpu="A100-80GB", gpus=8))
    assert eight["bf16"].largest.params_b > one["bf16"].largest.params_b


def test_family_context_and_users_narrow_the_search() -> None:
    qwen = largest_models(gpu="H20", gpus=8, family="Qwen3")
    for result in qwen.results:
        assert result.largest is not None and resolve_model(result.largest.model).family.startswith("Qwen3")
    long = largest_models(gpu="A10", family="Llama", context=8192)
    assert all(resolve_model(r.largest.model).max_context >= 8192 for r in long.results if r.largest)
    busy = _by_format(largest_models(gpu="L20", concurrency=64, context=8192))
    idle = _by_format(largest_models(gpu="L20"))
    assert busy["bf16"].largest.params_b <= idle["bf16"].largest.params_b


def test_nothing_fits_says_so_with_the_smallest_models_need() -> None:
    found = _by_format(largest_models(gpu="A10", family="DeepSeek-V3"))
    assert found["bf16"].largest is None and found["bf16"].next_larger is not None
    assert found["bf16"].next_larger.per_gpu_needed_gib > found["bf16"].next_larger.per_gpu_usable_gib


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(UnknownNameError):
        largest_models(gpu="L20", family="Falcon")
    with pytest.raises(ToolInputError, match="positive"):
        largest_models(gpu="L20", concurrency=0)
    with pytest.raises(UnknownNameError):
        largest_models(gpu="Z9000")


@pytest.mark.parametrize(
    ("question", "gpu", "family"),
    [
        ("一张 L20 最大能跑多大的模型？", "L20", None),
        ("With 8 H20s, what's the biggest Qwen I can serve at 32k context?", "H20", "Qwen"),
        ("Which Llama fits on one A10 with 8k context?", "A10", "Llama"),
        ("4 张 4090 能跑什么模型", "RTX-4090", None),
    ],
)
def test_understood_as_a_model_search(question: str, gpu: str, family: str | None) -> None:
    s = understand(question)
    assert s.intent == "model_search" and s.gpu == gpu


@pytest.mark.parametrize(
    "question",
    ["Can Qwen2.5-72B run on 2 A100?", "What GPU do I need for Llama 70B?", "which instance should I use for qwen 7b"],
)
def test_a_named_model_is_not_a_model_search(question: str) -> None:
    assert understand(question).intent != "model_search"


def test_cli_answers_the_largest_model_first_in_chinese(cli_env: dict[str, str]) -> None:
    body = ask_cli(cli_env, "我们有 4 张 A100 80G，能跑的最大的 Qwen3 是哪个？")
    [call] = [c for c in body["tool_calls"] if c["name"] == "largest_models_that_fit"]
    assert call["args"] == {"gpu": "A100-80GB", "gpus": 4, "instances": 1, "family": "Qwen3"}
    top = max((r for r in call["result"]["results"] if r["largest"]), key=lambda r: r["largest"]["params_b"])
    line = first_line(body["text"])
    assert top["largest"]["model"] in line and "4 张 A100-80GB" in line
    assert body["kind"] == "estimate" and body["language"] == "zh"


def test_api_names_the_instance_and_keeps_the_stated_users_and_context(client: httpx.Client) -> None:
    body = ask_api(client, "what's the largest model we can serve on a gn7i-c8g1.2xlarge for 8 users at 8k context?")
    [call] = [c for c in body["tool_calls"] if c["name"] == "largest_models_that_fit"]
    assert call["args"]["instance_type"] == "ecs.gn7i-c8g1.2xlarge"
    assert call["args"]["concurrency"] == 8 and call["args"]["context"] == 8192
    assert "`ecs.gn7i-c8g1.2xlarge`" in first_line(body["text"]) and "| 4-bit AWQ |" in body["text"]


def test_api_family_alone_is_its_widest_instance(client: httpx.Client) -> None:
    body = ask_api(client, "gn8is 上最大能部署多大的模型，20 并发")
    [call] = [c for c in body["tool_calls"] if c["name"] == "largest_models_that_fit"]
    listed = [c for c in body["tool_calls"] if c["name"] == "find_instance_types"][0]["result"]["instances"]
    widest = max(i["gpu_count"] for i in listed if isinstance(i["gpu_count"], int) and not i["vgpu"])
    assert call["result"]["hardware"]["gpus"] == widest and call["args"]["concurrency"] == 20


def test_a_budget_buys_the_type_that_serves_the_largest_model() -> None:
    from tools import price_quotes

    within = largest_models_within_budget(5000)
    assert within.quote is not None and within.quote.monthly is not None and within.quote.monthly <= 5000
    assert within.search is not None and within.search.hardware.instance_type == within.quote.instance_type
    best = max(r.largest.params_b for r in within.search.results if r.largest and r.largest.fits)
    # no other affordable single-GPU-count type serves a larger model: check every A10/T4/... type under budget
    for inst in ("ecs.gn7i-c8g1.2xlarge", "ecs.gn6i-c4g1.xlarge"):
        quote = price_quotes.quote(inst)
        if quote and quote.monthly and quote.monthly <= 5000:
            other = largest_models(instance_type=inst)
            assert max(r.largest.params_b for r in other.results if r.largest and r.largest.fits) <= best
    assert largest_models_within_budget(100).search is None  # nothing rents for ¥100 a month
    with pytest.raises(ToolInputError, match="positive"):
        largest_models_within_budget(-5)


def test_api_budget_answer_leads_with_the_model_and_the_instance_it_buys(client: httpx.Client) -> None:
    body = ask_api(client, "我们只有每月 5000 块的预算，能跑什么模型？")
    [call] = [c for c in body["tool_calls"] if c["name"] == "largest_models_within_budget"]
    assert call["args"] == {"budget_cny_month": 5000.0}
    chosen = call["result"]["quote"]["instance_type"]
    line = first_line(body["text"])
    assert chosen in line and "¥5000" in line and body["language"] == "zh"
