"""Comparisons and English wording of issue 8 (area i8cmp4) through ``ask --json`` and ``POST /v1/ask``.

Every check reads the tools' own results in the answer JSON: the cards the user owns evaluated as stated
against the cheapest rental, two precisions on one card, "is X worth it over Y" answered no when the
other GPU holds the workload for less per hour and per token, each model at the precision of its own
sentence, "4090-class" as a class rather than the GPU to plan on, and "q4" read as 4-bit in a follow-up
that keeps the earlier workload.
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


def _owned_fits(body: Body) -> None:
    (args, fit), *_ = _calls(body, "evaluate_hardware_fit")
    assert (args["gpu"], args["gpus"], args["quant"], args["concurrency"]) == ("RTX-4090", 2, "awq-int4", 10)
    assert fit["fits"]
    rented = [p for a, p in _calls(body, "plan_gpu_deployment") if a.get("gpu") == "A10"]  # gn7i is the A10
    assert rented and rented[0]["options"]
    option = rented[0]["options"][0]
    line = first_line(body["text"])
    assert line.startswith("**Keep your own 2 x RTX-4090")
    assert f"{render.fig(fit['per_gpu_needed_gib'])} of {render.fig(fit['per_gpu_usable_gib'])} GiB" in line
    assert f"¥{render.fig(option['price_cny_per_hour'])}/h" in line and option["instance_type"] in line


def _owned_short(body: Body) -> None:
    (args, fit), *_ = _calls(body, "evaluate_hardware_fit")
    assert (args["gpu"], args["gpus"], args["task"]) == ("RTX-4090", 4, "lora")
    assert not fit["fits"]
    fix = next(c for c in fit["changes"] if c["fits"])  # the smallest change the tool found that fits
    line = first_line(body["text"])
    assert "不够" in line and f"{render.fig(fix['per_gpu_gib'])} GiB" in line and "QLoRA" in line
    rented = [p for a, p in _calls(body, "plan_gpu_deployment") if a.get("gpu") == "A100-80GB"]
    assert rented and rented[0]["options"][0]["instance_type"] in body["text"]


def _precisions(body: Body) -> None:
    fits = {a["precision"]: r for a, r in _calls(body, "evaluate_hardware_fit")}
    assert set(fits) == {"int8", "int4"}
    assert {(a["gpu"], a["gpus"]) for a, _ in _calls(body, "evaluate_hardware_fit")} == {("L20", 1)}
    assert fits["int4"]["fits"] and not fits["int8"]["fits"]
    line = first_line(body["text"])
    assert "INT4" in line and ("INT8" not in line or line.index("INT4") < line.index("INT8"))  # the winner first
    assert f"{render.fig(fits['int4']['per_gpu_needed_gib'])} GiB" in line


def _worth_it_no(body: Body) -> None:
    plans = {a["gpu"]: p["options"][0] for a, p in _calls(body, "plan_gpu_deployment") if a.get("gpu")}
    a10, a100 = plans["A10"], plans["A100-80GB"]
    assert a100["price_cny_per_hour"] > a10["price_cny_per_hour"]
    assert a100["cost_cny_per_million_tokens"] >= a10["cost_cny_per_million_tokens"]
    line = first_line(body["text"])
    assert line.startswith("**No")
    for figure in (a10["price_cny_per_hour"], a100["price_cny_per_hour"], a10["cost_cny_per_million_tokens"]):
        assert render.fig(figure) in line


def _per_sentence_models(body: Body) -> None:
    fits = {a["model"]: a for a, _ in _calls(body, "evaluate_hardware_fit")}
    assert (fits["Qwen2.5-7B-Instruct"]["precision"], fits["Qwen2.5-7B-Instruct"]["quant"]) == ("bf16", "none")
    assert fits["Qwen2.5-14B-Instruct"]["quant"] == "awq-int4"
    assert first_line(body["text"]).startswith("**Qwen2.5-14B")  # 4-bit 14B leaves more room than bf16 7B


def _class_not_gpu(body: Body) -> None:
    (args, plan), *_ = _calls(body, "plan_gpu_deployment")
    assert "gpu" not in args and args["precision"] == "int4" and args["concurrency"] == 2
    assert plan["options"]  # an offered GPU of that class, not "no RTX-4090 instance type"


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    (
        "owned-fits",
        "We already own 2x RTX 4090 in the office. For Qwen2.5-14B AWQ serving about 10 users, should we rent a "
        "gn7i on Alibaba Cloud or just keep using our own cards?",
        _owned_fits,
    ),
    (
        "owned-short",
        "实验室自己有 4 张 4090，想 LoRA 微调 Qwen2.5-32B，自己的卡够不够？还是得去阿里云租 A100？",
        _owned_short,
    ),
    ("precisions", "一张 L20，Qwen2.5-32B 用 int8 还是 int4 好？8 个并发", _precisions),
    ("worth-it", "Is an A100 80GB actually worth it over an A10 for Qwen2.5-14B AWQ? 8 users, 4k ctx.", _worth_it_no),
    (
        "per-sentence",
        "Option 1: Qwen2.5-7B in bf16 on one A10. Option 2: Qwen2.5-14B AWQ on one A10. 8 users at 4k each - "
        "which leaves more memory headroom?",
        _per_sentence_models,
    ),
    (
        "class",
        "something 4090-class for qwen2.5-7b q4, a couple of users - cheapest thing on alibaba cloud?",
        _class_not_gpu,
    ),
]
FIRST = "plan qwen2.5-14b for 16 users, 8k ctx"
FOLLOW = "and if we go q4 instead?"


PICKED_FIRST = "qwen2.5-32b awq for 16 users at 8k ctx"
PICKED_FOLLOW = "what about on H20 instead - better or worse than that?"


def _against_the_earlier_pick(body: Body) -> None:
    plans = _calls(body, "plan_gpu_deployment")
    earlier = plans[0][1]["options"][0]["gpu_model"]  # the earlier workload planned again, on any GPU
    assert "gpu" not in plans[0][0] and earlier != "H20"
    sides = {a["gpu"]: p["options"][0] for a, p in plans[1:] if a.get("gpu")}
    assert set(sides) == {earlier, "H20"}
    assert {(a["quant"], a["concurrency"], a["context"]) for a, _ in plans} == {("awq-int4", 16, 8192)}
    fast = max(sides, key=lambda g: sides[g]["decode_tokens_per_s"])
    assert fast in first_line(body["text"]) and render.fig(sides[fast]["decode_tokens_per_s"]) in body["text"]


def _q4_follow_up(body: Body) -> None:
    (args, plan), *_ = _calls(body, "plan_gpu_deployment")
    assert (args["model"], args["concurrency"], args["context"]) == ("Qwen2.5-14B-Instruct", 16, 8192)  # kept
    assert args["precision"] == "int4" and plan["options"]  # the one thing changed


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_follow_up_q4(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _q4_follow_up(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


def test_cli_follow_up_against_earlier_pick(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, PICKED_FIRST)
    _against_the_earlier_pick(ask_cli_follow_up(cli_env, tmp_path, PICKED_FIRST, first["text"], PICKED_FOLLOW))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_follow_up_q4(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _q4_follow_up(follow)


def test_api_follow_up_against_earlier_pick(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, PICKED_FIRST, PICKED_FOLLOW)
    _against_the_earlier_pick(follow)
