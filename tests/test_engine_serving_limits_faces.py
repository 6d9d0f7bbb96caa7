"""Speed targets, longest context per user, requests per second and users at a speed, through the real faces.

``gpu-advisor ask --json`` and ``POST /v1/ask``; a multi-turn case through the CLI's ``--history`` file and the
API's ``session_id``. Each check states the domain's requirement, read from the tool results the answer
carries (the first line quotes the deciding figure), never a fixed answer text.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_helpers import ask_api, ask_cli, ask_cli_follow_up

from assistant.render import fig

pytestmark = pytest.mark.slow

Body = dict[str, Any]


def _first(body: Body) -> str:
    return next(line for line in body["text"].splitlines() if line.strip())


def _call(body: Body, name: str) -> dict[str, Any]:
    calls = [c for c in body["tool_calls"] if c["name"] == name]
    assert calls, f"{name} not called: {[c['name'] for c in body['tool_calls']]}"
    return calls[0]


def _per_user_target(body: Body) -> None:
    # 24 tok/s each for 16 users: every option reaches it, the first line names the top one and its figure.
    plan = _call(body, "plan_gpu_deployment")
    assert plan["args"]["min_tokens_per_s_per_stream"] == 24 and plan["args"]["concurrency"] == 16
    top = plan["result"]["options"][0]
    assert top["decode_tokens_per_s_per_stream"] >= 24
    assert top["instance_type"] in _first(body) and fig(top["decode_tokens_per_s_per_stream"]) in _first(body)


def _ttft_target(body: Body) -> None:
    plan = _call(body, "plan_gpu_deployment")
    assert plan["args"]["max_ttft_s"] == 1.5
    top = plan["result"]["options"][0]
    assert top["time_to_first_token_s"] <= 1.5 and fig(top["time_to_first_token_s"]) in _first(body)


def _total_target(body: Body) -> None:
    plan = _call(body, "plan_gpu_deployment")
    top = plan["result"]["options"][0]
    assert plan["args"]["min_tokens_per_s_total"] == 600 and top["decode_tokens_per_s"] >= 600
    assert "合计" in _first(body)


def _longest_context(body: Body) -> None:
    budget = _call(body, "longest_context_per_user")
    assert budget["args"]["users"] == 12 and budget["args"]["gpus"] == 2
    assert 0 < budget["result"]["context"] <= budget["result"]["model_max_context"]
    assert fig(budget["result"]["context"]) in _first(body)


def _rate(body: Body) -> None:
    rate = _call(body, "requests_per_second")
    assert rate["args"]["instance_type"] == "ecs.gn8is.2xlarge"
    assert (rate["args"]["prompt_tokens"], rate["args"]["gen_tokens"]) == (1500, 300)
    assert rate["result"]["requests_per_s"] > 0 and fig(rate["result"]["requests_per_s"]) in _first(body)


def _users_at_speed(body: Body) -> None:
    # Users kept at 30 tok/s on one A100 are fewer than memory alone would hold only if speed binds; either way
    # the count leads and every one of them gets the speed asked.
    plans = [c for c in body["tool_calls"] if c["name"] == "plan_gpu_deployment"]
    held = plans[0]["result"]["options"][0]
    assert plans[0]["args"]["min_tokens_per_s_per_stream"] == 30
    assert fig(held["max_concurrent_sequences"]) in _first(body)
    assert plans[-1]["result"]["options"][0]["decode_tokens_per_s_per_stream"] >= 30


def _job(body: Body) -> None:
    # 40,000 items at the box's full-load rate: the hours are the items over the rate.
    rate = _call(body, "requests_per_second")
    assert rate["args"]["requests"] == 40_000 and rate["args"]["instance_type"] == "ecs.gn8is.2xlarge"
    hours = rate["result"]["job_hours"]
    assert hours == round(40_000 / rate["result"]["requests_per_s"] / 3600, 2) or abs(hours * 3600 * rate["result"][
        "requests_per_s"] - 40_000) < 40_000 * 0.02  # fmt: skip
    assert fig(hours) in _first(body)


def _full_load(body: Body) -> None:
    rate = _call(body, "requests_per_second")
    assert rate["result"]["concurrent_sequences"] > 1 and fig(rate["result"]["decode_tokens_per_s"]) in _first(body)


def _latency(body: Body) -> None:
    # One whole answer: the first token, then the output at the per-stream speed of the named card.
    top = next(o for o in _call(body, "plan_gpu_deployment")["result"]["options"] if o["gpu_model"] == "A10")
    assert top["request_latency_s"] > top["time_to_first_token_s"] > 0
    assert fig(top["request_latency_s"]) in _first(body)


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("job-zh", "用 ecs.gn8is.2xlarge 跑 Qwen2.5-7B 处理 4 万条评论，每条输入 300 token、输出 60 token，要多久？", _job),
    ("full-load-en", "What's the max throughput of one gn7i-c8g1.2xlarge serving Llama-3.1-8B-Instruct?", _full_load),
    (
        "latency-en",
        "On one A10, how long does Qwen2.5-7B-Instruct take to finish a 400-token reply to a 1k prompt?",
        _latency,
    ),
    (
        "per-user-en",
        "Qwen2.5-14B-Instruct for 16 people at once, 24 tok/s for each of them. Instance?",
        _per_user_target,
    ),
    (
        "ttft-en",
        "Qwen2.5-32B-Instruct with 4k-token prompts; time to first token must be under 1.5 s. What to rent?",
        _ttft_target,
    ),
    ("total-zh", "Qwen2.5-7B 离线批处理，总吞吐至少 600 token/s，选哪个实例最省钱？", _total_target),
    (
        "context-zh",
        "两张 L20 上跑 Qwen2.5-14B-Instruct，同时 12 个人用，每个人的上下文最长可以多少？",
        _longest_context,
    ),
    (
        "rate-en",
        "Max QPS for Qwen2.5-7B-Instruct on ecs.gn8is.2xlarge with 1500-token prompts and 300-token replies?",
        _rate,
    ),
    (
        "users-speed-zh",
        "一台 ecs.gn7e-c16g1.4xlarge 跑 Qwen2.5-14B，每人要 30 token/s，能撑多少人同时用？",
        _users_at_speed,
    ),
]


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


FIRST = "Qwen2.5-14B-Instruct inference for 16 concurrent users, which instance?"
FOLLOW = "and if each of them needs 24 tokens per second?"


def test_cli_follow_up_adds_a_speed_target_and_keeps_the_users(cli_env: dict[str, str], tmp_path: Path) -> None:
    _per_user_target(ask_cli_follow_up(cli_env, tmp_path, FIRST, "(answer)", FOLLOW))


def test_api_follow_up_adds_a_speed_target_and_keeps_the_users(client: httpx.Client) -> None:
    before = ask_api(client, FIRST)
    assert "min_tokens_per_s_per_stream" not in _call(before, "plan_gpu_deployment")["args"]
    _per_user_target(ask_api(client, FOLLOW, before["session_id"]))


CONTEXT_TURNS = ("2 x L20, Qwen2.5-14B-Instruct, 12 users at once: how long can each context be?", "and 30 users?")


def test_api_longest_context_follow_up_keeps_the_question(client: httpx.Client) -> None:
    before = ask_api(client, CONTEXT_TURNS[0])
    after = ask_api(client, CONTEXT_TURNS[1], before["session_id"])
    first, second = _call(before, "longest_context_per_user"), _call(after, "longest_context_per_user")
    assert second["args"]["users"] == 30 and second["result"]["context"] < first["result"]["context"]
    assert fig(second["result"]["context"]) in _first(after)
