"""Issue-8 categories through the real faces: ``gpu-advisor ask --json`` (a subprocess) and ``POST /v1/ask``.

Each case checks what the domain requires of the answer (the hardware named is what was evaluated, the
first line answers, the units were converted, nothing was planned for an unsizable workload), never a
copy of the engine's output. Multi-turn: the CLI's ``--history`` file and the API's ``session_id``.
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


def _calls(body: Body, name: str) -> list[dict[str, Any]]:
    return [c["args"] for c in body["tool_calls"] if c["name"] == name]


def _first_line(body: Body) -> str:
    return first_line(body["text"])


def _hardware_named(body: Body) -> None:
    assert any(a.get("gpu") == "L20" and a.get("gpus") == 4 for a in _calls(body, "evaluate_hardware_fit"))
    assert "4 张 L20" in _first_line(body)


def _verdict_legacy(body: Body) -> None:
    assert _first_line(body).startswith("**Yes, but") and "A10" in body["text"]


def _lengths(body: Body) -> None:
    units = {a["unit"] for a in _calls(body, "text_length_tokens")}
    assert units == {"zh_characters"}
    [plan] = _calls(body, "plan_gpu_deployment")
    assert 450 <= plan["context"] <= 900 and plan["concurrency"] == 30


def _training_volume(body: Body) -> None:
    [plan] = _calls(body, "plan_gpu_deployment")
    assert plan["task"] == "lora" and plan["train_tokens"] == 40_000 * 2_000 * 2


def _pretraining(body: Body) -> None:
    [run] = _calls(body, "training_run")
    assert run["task"] == "full" and run["gpus"] == 64 and run["tokens"] == 300e9
    assert "小时" in _first_line(body)


def _number_words(body: Body) -> None:
    assert _calls(body, "plan_gpu_deployment")[0]["concurrency"] == 12


def _invalid(body: Body) -> None:
    assert body["kind"] == "error" and not body["tool_calls"] and "1e308" in body["text"]


def _capacity(body: Body) -> None:
    [cap] = [c for c in body["tool_calls"] if c["name"] == "concurrent_users"]
    assert cap["args"]["context"] == 32768 and str(cap["result"]["sequences"]) in _first_line(body)


def _comparison(body: Body) -> None:
    assert [a["gpu"] for a in _calls(body, "plan_gpu_deployment")] == ["A10", "L20"]


def _out_of_reach(body: Body) -> None:
    assert body["kind"] == "out_of_scope" and not _calls(body, "plan_gpu_deployment")


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("hardware", "我们现在有 4 张 L20，想部署 Qwen2.5-72B AWQ，8k 上下文，10 并发，够不够？", _hardware_named),
    ("verdict", "Is the V100 a good choice for serving Qwen2.5-7B?", _verdict_legacy),
    ("lengths", "Qwen2.5-7B 客服，每次问题约 800 个汉字，回答 200 字左右，高峰 30 人同时在线，选什么？", _lengths),
    (
        "training-volume",
        "LoRA fine-tune Llama-3.1-8B on 40k dialogues averaging 2k tokens, two passes",
        _training_volume,
    ),  # noqa: E501
    ("pretraining", "从头预训练一个 Qwen2.5-7B，300B tokens，64 张 H800，要多久？", _pretraining),
    ("number-words", "Serve Qwen2.5-14B for twelve concurrent users with 8k context", _number_words),
    ("invalid", "Qwen2.5-7B inference for 1e308 users", _invalid),
    ("capacity", "How many concurrent 32k users does Qwen2.5-32B hold on 4 x L20?", _capacity),
    ("comparison", "gn7i 和 gn8is 哪个更适合部署 Qwen2.5-14B，16 并发？", _comparison),
    ("out-of-reach", "How much GPU memory to fine-tune Stable Diffusion XL with LoRA?", _out_of_reach),
]
FIRST = "我们有 4 张 L20，部署 Qwen2.5-32B，8k 上下文，10 并发，够吗？"
FOLLOW = "那 20 并发呢？"


def _follow_up_keeps_the_hardware(body: Body) -> None:
    fit = _calls(body, "evaluate_hardware_fit")
    assert fit and fit[0]["gpu"] == "L20" and fit[0]["gpus"] == 4 and fit[0]["concurrency"] == 20


# ---------------------------------------------------------------------------------------------- CLI


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_follow_up_keeps_the_named_hardware(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _follow_up_keeps_the_hardware(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


# ---------------------------------------------------------------------------------------------- API


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_follow_up_keeps_the_named_hardware(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _follow_up_keeps_the_hardware(follow)
