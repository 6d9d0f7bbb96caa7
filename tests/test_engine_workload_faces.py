"""Workload area of issue 8 through the real faces: ``gpu-advisor ask --json`` and ``POST /v1/ask``.

Rates in groups, capacity on named instances, an unknown price with the nearest known one, training
volume on the GPUs named, part-time cost; multi-turn through the CLI's ``--history`` file and the API's
``session_id``. The checks state the domain's requirement, not a copy of the engine's text.
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


def _args(body: Body, name: str) -> dict[str, Any]:
    calls = [c["args"] for c in body["tool_calls"] if c["name"] == name]
    assert calls, f"{name} not called: {[c['name'] for c in body['tool_calls']]}"
    return calls[0]  # type: ignore[no-any-return]


def _teams(body: Body) -> None:
    assert _args(body, "plan_gpu_deployment")["concurrency"] == 60


def _capacity(body: Body) -> None:
    cap = _args(body, "concurrent_users")
    assert (cap["instance_type"], cap["instances"]) == ("ecs.gn8is.2xlarge", 2)


def _unknown_price(body: Body) -> None:
    near = [c["result"] for c in body["tool_calls"] if c["name"] == "nearest_known_price"]
    assert near and near[0] and near[0]["quote"]["as_of"] in body["text"]


def _training(body: Body) -> None:
    run = _args(body, "training_run")
    assert run["tokens"] == 100_000 * 1_500 * 3 and run["gpus"] == 8


def _part_time(body: Body) -> None:
    assert 240 <= _args(body, "plan_gpu_deployment")["hours_per_month"] <= 245  # 8 h x 730/24 days


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("teams", "Twelve teams of 5 people use our Qwen2.5-14B bot at the same time, 8k context", _teams),
    ("capacity", "How many concurrent 32k-token users can Qwen2.5-14B serve on two gn8is.2xlarge?", _capacity),
    ("unknown-price", "ecs.gn8is-2x.8xlarge 在杭州按量一小时多少钱？", _unknown_price),
    ("training", "Full fine-tune Qwen2.5-7B on 100k samples of 1,500 tokens each, 3 epochs, on 8 A100 80GB", _training),
    ("part-time", "Qwen2.5-14B，每天只在白天用 8 小时，20 并发，按量付费每月多少钱？", _part_time),
]
FIRST = "How many 32k users can Qwen2.5-14B hold on 4 x A10?"
FOLLOW = "and with 8k prompts instead?"


def _follow_up_keeps_the_capacity_question(body: Body) -> None:
    cap = _args(body, "concurrent_users")
    assert (cap["gpu"], cap["gpus"], cap["context"]) == ("A10", 4, 8192)


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_follow_up_keeps_the_capacity_question(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _follow_up_keeps_the_capacity_question(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_follow_up_keeps_the_capacity_question(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _follow_up_keeps_the_capacity_question(follow)
