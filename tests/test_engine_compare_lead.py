"""Comparisons name the winner first (issue 8, i8cmp3), through ``ask --json`` and ``POST /v1/ask``.

Every check derives the expected winner from the answer's own tool results (the plans' prices and speeds,
the fits), never from a hard-coded answer: memory variants of one GPU planned as two sides, sides that differ
per criterion named per criterion, each GPU with its own count and quantisation, methods compared on one
card, a budget kept on both sides, and a follow-up that swaps one side for another.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_helpers import ask_api, ask_api_follow_up, ask_cli, ask_cli_follow_up, first_line

pytestmark = pytest.mark.slow

Body = dict[str, Any]


def _calls(body: Body, name: str) -> list[tuple[dict[str, Any], Any]]:
    return [(c["args"], c["result"]) for c in body["tool_calls"] if c["name"] == name]


def _cheapest(plan: dict[str, Any]) -> dict[str, Any]:
    priced = [o for o in plan["options"] if o["price_cny_per_hour"] is not None]
    return min(priced, key=lambda o: o["price_cny_per_hour"])


def _per_criterion(body: Body) -> None:
    best = {a["gpu"]: _cheapest(p) for a, p in _calls(body, "plan_gpu_deployment")}
    assert set(best) == {"T4", "A10"} and {a["region"] for a, _ in _calls(body, "plan_gpu_deployment")} == {
        "ap-southeast-1"
    }
    cheap = min(best, key=lambda g: best[g]["price_cny_per_hour"])
    fast = max(best, key=lambda g: best[g]["decode_tokens_per_s"])
    assert cheap != fast  # in Singapore the T4 box is the cheaper one, the A10 the faster
    assert first_line(body["text"]).startswith(f"**{cheap} for cost, {fast} for speed:**")


def _memory_variants(body: Body) -> None:
    plans = {a["gpu"]: p for a, p in _calls(body, "plan_gpu_deployment")}
    assert set(plans) == {"A100-40GB", "A100-80GB"}  # both variants, one workload
    assert {a["concurrency"] for a, _ in _calls(body, "plan_gpu_deployment")} == {6}
    cheap = min(plans, key=lambda g: _cheapest(plans[g])["price_cny_per_hour"])
    assert first_line(body["text"]).startswith(f"**{cheap} for cost")


def _own_settings(body: Body) -> None:
    fits = {a["gpu"]: (a, r) for a, r in _calls(body, "evaluate_hardware_fit")}
    (a100, a100_fit), (h20, h20_fit) = fits["A100-80GB"], fits["H20"]
    assert (a100["gpus"], a100["quant"]) == (2, "awq-int4") and (h20["gpus"], h20["precision"]) == (1, "fp8")
    assert a100_fit["fits"] and not h20_fit["fits"]  # FP8 72B and 16 x 8k of KV cache overflow one H20
    assert first_line(body["text"]).startswith("**Only 2 x A100-80GB (AWQ) fits")


def _methods(body: Body) -> None:
    fits = {a["task"]: r for a, r in _calls(body, "evaluate_hardware_fit")}
    assert set(fits) == {"full", "lora"} and fits["lora"]["fits"] and not fits["full"]["fits"]
    assert first_line(body["text"]).startswith("**Only LoRA fits")


def _budget_both_sides(body: Body) -> None:
    plans = [a for a, _ in _calls(body, "plan_gpu_deployment")]
    assert {a["gpu"] for a in plans} == {"A10", "A100-80GB"}
    assert all(a["budget_cny_month"] == 30000 for a in plans)  # "每个月最多花 3 万" on both sides


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    (
        "per-criterion",
        "In Singapore, T4 or A10 for Qwen2.5-7B in 4-bit with 4 users - which costs less per hour and which is faster?",
        _per_criterion,
    ),
    (
        "memory-variants",
        "A100 40GB or 80GB for serving Qwen2.5-32B-Instruct in bf16 to about 6 users?",
        _memory_variants,
    ),
    (
        "own-settings",
        "Option A: Qwen2.5-72B-Instruct AWQ on 2x A100 80GB. Option B: the same model in FP8 on a single H20. "
        "16 concurrent users at 8k context - which option would you take?",
        _own_settings,
    ),
    ("methods", "full fine-tuning vs LoRA of Qwen2.5-7B on one A100 80GB - which of the two actually fits?", _methods),
    ("budget", "每个月最多花 3 万，Qwen2.5-14B 16 个人同时用 4k 上下文，A10 和 A100 哪个合适？", _budget_both_sides),
]
FIRST = "Qwen2.5-7B 推理，10 并发，T4 和 A10 比一下"
FOLLOW = "把 T4 换成 L20 再比一次"


def _swapped(body: Body) -> None:
    plans = [a for a, _ in _calls(body, "plan_gpu_deployment")]
    assert [a["gpu"] for a in plans] == ["L20", "A10"]  # the T4 is replaced, the A10 stays
    assert {(a["model"], a["concurrency"]) for a in plans} == {("Qwen2.5-7B-Instruct", 10)}


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_follow_up_swaps_a_side(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _swapped(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_follow_up_swaps_a_side(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _swapped(follow)
