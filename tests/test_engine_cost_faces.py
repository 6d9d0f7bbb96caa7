"""Cost periods, capacity in everyday words and training follow-ups through the real faces (issue 8, i8cost2).

``gpu-advisor ask --json`` and ``POST /v1/ask``; multi-turn through the CLI's ``--history`` file and the API's
``session_id``. The checks state the domain's requirement (the figure asked answers first, from the tools).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_helpers import ask_api, ask_api_follow_up, ask_cli, ask_cli_follow_up

pytestmark = pytest.mark.slow

Body = dict[str, Any]


def _first(body: Body) -> str:
    return next(line for line in body["text"].splitlines() if line.strip())


def _call(body: Body, name: str) -> dict[str, Any]:
    calls = [c for c in body["tool_calls"] if c["name"] == name]
    assert calls, f"{name} not called: {[c['name'] for c in body['tool_calls']]}"
    return calls[0]  # type: ignore[no-any-return]


def _yearly(body: Body) -> None:
    plan = _call(body, "plan_gpu_deployment")["result"]
    years = [o["totals"]["payg_cny_per_year"] for o in plan["options"] if o.get("totals")]
    assert "year" in _first(body) and any(f"{round(y):,}" in _first(body) for y in years if y)


def _per_thousand(body: Body) -> None:
    assert _call(body, "plan_gpu_deployment")["args"]["qps"] == 5
    assert "每千次请求" in _first(body)


def _capacity(body: Body) -> None:
    cap = _call(body, "concurrent_users")
    assert (cap["args"]["gpu"], cap["args"]["gpus"]) == ("A10", 2)
    assert str(cap["result"]["sequences"]) in _first(body)


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("yearly", "ballpark annual bill for running Qwen2.5-7B-Instruct for 15 concurrent users in Beijing?", _yearly),
    ("per-thousand", "峰值每秒 5 个请求，Qwen2.5-7B，算下来每千次调用成本多少？", _per_thousand),
    ("capacity", "两张 A10 跑 Qwen2.5-7B，每个人 16k 上下文，最多几个人能同时聊？", _capacity),
]
FIRST = "LoRA fine-tune Qwen2.5-7B on 30k samples of about 1k tokens, 2 epochs, on 2 A100s — how long?"
FOLLOW = "what if 3 epochs?"


def _follow_up_keeps_how_long(body: Body) -> None:
    run = _call(body, "training_run")["args"]
    assert (run["tokens"], run["gpus"], run["task"]) == (30_000 * 1_000 * 3, 2, "lora")
    assert "hour" in _first(body)


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_follow_up_keeps_how_long(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _follow_up_keeps_how_long(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_follow_up_keeps_how_long(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _follow_up_keeps_how_long(follow)
