"""Comparisons of issue 8 through ``ask --json`` and ``POST /v1/ask``: every side, one workload, a winner per criterion.

The checks read the domain and the tools' own results: two A10 against one L20 (the L20 set has no list
price, so that is said once, and first when the question asks which is cheaper), two instance types where
one decodes faster and the other is cheaper per token, each model at the precision written beside it, a
budget that neither family is confirmed within, a family compared with a GPU, and a follow-up that adds a
third GPU to the comparison with the earlier workload kept.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_helpers import ask_api, ask_api_follow_up, ask_cli, ask_cli_follow_up, first_line

from assistant import render

pytestmark = pytest.mark.slow

Body = dict[str, Any]


def _calls(body: Body, name: str) -> list[tuple[dict[str, Any], Any]]:
    return [(c["args"], c["result"]) for c in body["tool_calls"] if c["name"] == name]


def _gpu_sets(body: Body) -> None:
    fits = {(a["gpu"], a["gpus"]): r for a, r in _calls(body, "evaluate_hardware_fit")}
    assert set(fits) == {("A10", 2), ("L20", 1)}
    assert {a["concurrency"] for a, _ in _calls(body, "evaluate_hardware_fit")} == {8}  # one workload, both sides
    side_plans = [(a, r) for a, r in _calls(body, "plan_gpu_deployment") if a.get("instance_type")]
    assert side_plans and all(a["concurrency"] == 8 and a["max_instances"] == 1 for a, _ in side_plans)
    for args, plan in side_plans:  # each fitting side's speed comes from the plan on exactly its type
        speed = plan["options"][0]["decode_tokens_per_s"]
        assert f"{render.fig(speed)} tokens/s" in body["text"], args["instance_type"]
    assert "No list price for 1 x L20" in body["text"]  # gn8is is not in the price list: said once
    assert body["text"].count("No list price") == 1


def _types_per_criterion(body: Body) -> None:
    options = {a["instance_type"]: p["options"][0] for a, p in _calls(body, "plan_gpu_deployment")}
    assert set(options) == {"ecs.gn6v-c8g1.2xlarge", "ecs.gn7i-c8g1.2xlarge"}
    fastest = max(options, key=lambda t: options[t]["decode_tokens_per_s"])
    cheapest = min(options, key=lambda t: options[t]["cost_cny_per_million_tokens"])
    lines = body["text"].splitlines()
    speed_line = next(line for line in lines if line.startswith("**Fastest decode:**"))
    token_line = next(line for line in lines if line.startswith("**Cheapest per million tokens:**"))
    assert fastest in speed_line and cheapest in token_line
    assert fastest != cheapest  # the V100's bandwidth decodes faster; the A10 costs less per token


def _model_precisions(body: Body) -> None:
    fits = {a["model"]: a for a, _ in _calls(body, "evaluate_hardware_fit")}
    assert fits["Qwen2.5-32B-Instruct"]["quant"] == "awq-int4"
    assert (fits["Qwen2.5-14B-Instruct"]["precision"], fits["Qwen2.5-14B-Instruct"]["quant"]) == ("bf16", "none")
    assert {a["gpu"] for a in fits.values()} == {"L20"}


def _budget_neither(body: Body) -> None:
    plans = _calls(body, "plan_gpu_deployment")
    unbounded = [p for a, p in plans if a["gpu"] == "A10" and a.get("budget_cny_month") is None]
    assert unbounded, "the A10 side is planned again without the budget to say what it would cost"
    cheapest = min(o["price_cny_per_month"] for o in unbounded[0]["options"] if o["price_cny_per_month"])
    assert cheapest > 20000  # 16 users need four A10s: over ¥20,000 a month
    line = first_line(body["text"])
    assert "¥20,000" in line and "gn7i" in line


def _family_and_gpu(body: Body) -> None:
    plans = [a for a, _ in _calls(body, "plan_gpu_deployment")]
    assert [a["gpu"] for a in plans] == ["A10", "L20"]  # gn7i is the A10: both sides, one workload
    assert {(a["model"], a["concurrency"]) for a in plans} == {("Qwen2.5-14B-Instruct", 10)}


def _one_price_first(body: Body) -> None:
    quotes = [r["hourly"] for a, r in _calls(body, "price_of_instance") if r and r.get("hourly")]
    line = first_line(body["text"])
    assert line.startswith("**只有 2 张 A10 有目录价") and f"¥{render.fig(min(quotes))}" in line
    assert "1 张 L20" in line  # the L20 set's types have no list price: said first, not skipped


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("family-and-gpu", "gn7i vs L20 for Qwen2.5-14B, 10 users?", _family_and_gpu),
    ("one-price-first", "两张 A10 和一张 L20 跑 Qwen2.5-14B 哪个便宜？", _one_price_first),
    ("gpu-sets", "two A10 vs one L20 for Qwen2.5-14B-Instruct, 8 concurrent, 4k context?", _gpu_sets),
    (
        "types",
        "ecs.gn6v-c8g1.2xlarge vs ecs.gn7i-c8g1.2xlarge for Qwen2.5-3B with 4 users - which decodes faster?",
        _types_per_criterion,
    ),
    ("precisions", "一张 L20 上，Qwen2.5-32B AWQ 和 Qwen2.5-14B BF16 哪个能扛更多并发？8k 上下文", _model_precisions),
    ("budget", "Budget is 20k RMB a month max. Qwen2.5-14B, 16 users, gn7i vs gn8is - which fits it?", _budget_neither),
]
FIRST = "Qwen2.5-14B-Instruct, 10 users, 8k context: A10 or L20?"
FOLLOW = "add A100 to the comparison"


def _three_sides(body: Body) -> None:
    plans = [a for a, _ in _calls(body, "plan_gpu_deployment")]
    assert [a["gpu"] for a in plans] == ["A10", "L20", "A100-80GB"]  # the added side last
    assert {(a["model"], a["concurrency"], a["context"]) for a in plans} == {("Qwen2.5-14B-Instruct", 10, 8192)}
    assert "A100" in first_line(body["text"]) or "A10" in first_line(body["text"])


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_follow_up_adds_a_side(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _three_sides(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_follow_up_adds_a_side(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _three_sides(follow)
