"""Billing choices, "worth it" verdicts and comparison follow-ups through ``ask --json`` and ``POST /v1/ask``.

The checks read the domain: spot suits training that checkpoints and not a live endpoint (cost guidance),
a GPU no instance type offers is not worth planning for, "a T4" is one card, and a comparison follow-up
runs the earlier workload on each GPU named. Figures in the first line are the tools' own.
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


def _first_line(body: Body) -> str:
    return first_line(body["text"])


def _plans(body: Body) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(c["args"], c["result"]) for c in body["tool_calls"] if c["name"] == "plan_gpu_deployment"]


def _spot_for_training(body: Body) -> None:
    [(args, plan)] = _plans(body)
    assert (args["task"], args["gpu"]) == ("lora", "A10")
    top = plan["options"][0]
    line = _first_line(body)
    assert line.startswith("**Spot") and f"¥{render.fig(top['price_cny_per_hour'])}/h" in line


def _no_spot_for_serving(body: Body) -> None:
    [(args, plan)] = _plans(body)
    assert args["task"] == "inference"
    top = plan["options"][0]
    line = _first_line(body)
    assert line.startswith("**在线服务不建议用抢占式") and f"¥{render.fig(top['price_cny_per_hour'])}/小时" in line
    if top["subscription_cny_per_month"] is not None:  # around the clock, the month's subscription is named
        assert f"¥{render.fig(top['subscription_cny_per_month'], 'zh')}/月" in line


def _hourly_for_part_time(body: Body) -> None:
    [(args, plan)] = _plans(body)
    top = plan["options"][0]
    assert top["usage_cny_per_month"] < top["subscription_cny_per_month"]  # 9 h on weekdays: hourly is cheaper
    line = _first_line(body)
    assert line.startswith("**Pay-as-you-go") and f"¥{render.fig(top['usage_cny_per_month'])}/month" in line


def _not_worth_without_instances(body: Body) -> None:
    plans = {a["gpu"]: p for a, p in _plans(body)}
    # no ECS type offers the H800; "A100" is planned as its catalog default, A100-80GB
    assert not plans["H800"]["options"] and plans["A100-80GB"]["options"]
    assert _first_line(body).startswith("**不建议为此上 H800")


def _worth_switching(body: Body) -> None:
    cheapest = {a["gpu"]: min(o["price_cny_per_hour"] for o in p["options"]) for a, p in _plans(body) if a.get("gpu")}
    assert cheapest["A10"] <= cheapest["T4"]  # the card switched to is the cheaper one: yes
    line = _first_line(body)
    assert line.startswith("**是的") and f"¥{render.fig(cheapest['A10'])}" in line


def _article_counts_one_card(body: Body) -> None:
    fits = [(c["args"], c["result"]) for c in body["tool_calls"] if c["name"] == "evaluate_hardware_fit"]
    assert fits and (fits[0][0]["gpu"], fits[0][0]["gpus"]) == ("T4", 1)
    assert not fits[0][1]["fits"] and _first_line(body).startswith("**No")


def _pick_per_job(body: Body) -> None:
    specs = {c["result"]["name"]: c["result"] for c in body["tool_calls"] if c["name"] == "gpu_specs" and c["result"]}
    roomier = max(specs.values(), key=lambda g: g["memory_gib"])["name"]
    line = _first_line(body)
    assert set(specs) == {"A10", "L20"} and roomier in line and "A10" in line


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("spot-training", "spot or pay-as-you-go for a LoRA fine-tune of Qwen2.5-14B on A10s?", _spot_for_training),
    ("spot-serving", "在线客服 7x24 跑 Qwen2.5-7B，抢占式还是按量？", _no_spot_for_serving),
    ("part-time", "subscription or pay-as-you-go for Qwen2.5-7B serving 9am-6pm on weekdays?", _hourly_for_part_time),
    ("worth", "全参微调 Qwen2.5-32B 值不值得上 H800，还是 A100 够了？", _not_worth_without_instances),
    ("worth-switching", "值得把 T4 换成 A10 吗？跑 Qwen2.5-7B 推理", _worth_switching),
    ("a-t4", "is a T4 enough for Qwen2.5-7B in bf16?", _article_counts_one_card),
    ("pick", "A10 vs L20, which one should I pick?", _pick_per_job),
]
FIRST = "Qwen2.5-32B-Instruct AWQ for 20 concurrent users at 8k context, which instance?"
FOLLOW = "how does L20 stack up against A10 for that?"


def _workload_on_each_gpu(body: Body) -> None:
    plans = _plans(body)
    assert [a["gpu"] for a, _ in plans] == ["L20", "A10"]
    assert {(a["model"], a["concurrency"], a["context"], a["quant"]) for a, _ in plans} == {
        ("Qwen2.5-32B-Instruct", 20, 8192, "awq-int4")
    }
    counts = {a["gpu"]: min(o["total_gpus"] for o in p["options"]) for a, p in plans}
    fewer = min(counts, key=lambda g: counts[g])
    assert counts["L20"] != counts["A10"] and fewer in _first_line(body)


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_gpu_comparison_follow_up(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _workload_on_each_gpu(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_gpu_comparison_follow_up(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _workload_on_each_gpu(follow)
