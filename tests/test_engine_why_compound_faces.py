"""Why-questions, compound questions, budget and deadline verdicts, named out-of-reach models (issue 8, i8verd4),
through ``gpu-advisor ask --json`` and ``/v1/ask``.

Each check reads the typed outcome in the answer's own tool calls (fit, K/V capacity, plan, 6·N·D run) and
requires the first line to state it: the reason and its figure for a why-question, every asked part for a
compound one, "yes with INT4" when 4-bit weights bring a workload within budget, a GPU count that meets a
training deadline. Multi-turn through the CLI's history file and the API's session.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_helpers import ask_api, ask_api_follow_up, ask_cli, ask_cli_follow_up

from assistant import render
from assistant.form_leads import lead_verdict

pytestmark = pytest.mark.slow

Body = dict[str, Any]


def _results(body: Body, tool: str) -> list[dict[str, Any]]:
    found = [c for c in body["tool_calls"] if c["name"] == tool and isinstance(c["result"], dict)]
    assert found, f"{tool} not called: {[c['name'] for c in body['tool_calls']]}"
    return found


def _first(body: Body) -> str:
    return next(line for line in body["text"].splitlines() if line.strip())


def _why_kv(body: Body) -> None:
    """It fits one 32k sequence, so the reason is how few such sequences the K/V budget holds."""
    cap = _results(body, "concurrent_users")[-1]["result"]
    assert _results(body, "evaluate_hardware_fit")[0]["result"]["fits"]
    assert _first(body).startswith("**Because") and f"about {render.fig(cap['sequences'])} fit" in _first(body)
    assert "--max-num-seqs" in body["text"]


def _why_short(body: Body) -> None:
    """It does not fit: the reason is the per-GPU need against what the card has."""
    fit = _results(body, "evaluate_hardware_fit")[0]["result"]
    assert not fit["fits"] and _first(body).startswith("**原因")
    assert render.fig(fit["per_gpu_needed_gib"]) in _first(body) and render.fig(fit["shortfall_gib"]) in _first(body)


def _compound(body: Body) -> None:
    """'Can one L20 serve it, and how many users?': the yes and the count on the first line."""
    cap = _results(body, "concurrent_users")[-1]["result"]
    assert lead_verdict(body["text"]) == "yes" and f"About {cap['sequences']} concurrent" in _first(body)


def _budget_int4(body: Body) -> None:
    """BF16 is over ¥30,000 a month; INT4 fits within it: the first line says yes, with INT4."""
    cheap = [c for c in _results(body, "plan_gpu_deployment") if c["args"].get("precision") == "int4"]
    priced = [o["price_cny_per_month"] for o in cheap[0]["result"]["options"] if o["price_cny_per_month"]]
    assert min(priced) <= 30_000 and lead_verdict(body["text"]) == "yes" and "INT4" in _first(body)


def _deadline(body: Body) -> None:
    """No H800 on Alibaba Cloud: the first line says so with a rentable GPU count that meets two weeks."""
    alt = [c["result"] for c in _results(body, "training_run") if c["args"]["gpu"] != "H800"]
    assert alt and alt[0]["hours"] <= 14 * 24
    assert "H800" in _first(body) and f"{alt[0]['gpus']} x {alt[0]['gpu']}" in _first(body)


def _named_model(body: Body) -> None:
    """CLIP is in no registry: named as out of reach, never asked 'which model?' nor planned as an LLM."""
    assert body["kind"] == "out_of_scope" and "CLIP" in _first(body)
    assert not [c for c in body["tool_calls"] if c["name"] == "plan_gpu_deployment"]


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("why-kv", "my vllm keeps OOMing once I set max-model-len to 32768, Qwen2.5-7B on one A10. why?", _why_kv),
    ("why-short", "为什么 Qwen2.5-14B 在一张 T4 上一加载就爆显存？", _why_short),
    ("compound", "Can one L20 serve Qwen2.5-32B AWQ, and how many users at 8k context could it hold?", _compound),
    ("budget-int4", "预算每月 3 万，Llama-3.1-70B 给 10 个人用，有戏吗", _budget_int4),
    ("deadline", "Is 64x H800 enough to continue pretraining Qwen2.5-72B on 50B tokens within two weeks?", _deadline),
    ("named-model", "我们有 70 万张商品图片要用 CLIP 做向量化，一张 T4 大概要跑多久？", _named_model),
]
FIRST = "Plan Qwen2.5-14B-Instruct inference for 10 users at 8k context"
FOLLOW = "why won't a single A10 do?"


def _follow_why(body: Body) -> None:
    """The follow-up keeps the model, users and context, and explains why one A10 is not enough."""
    fit = _results(body, "evaluate_hardware_fit")[0]
    assert fit["args"]["model"] == "Qwen2.5-14B-Instruct" and fit["args"].get("context") == 8192
    assert not fit["result"]["fits"] and _first(body).startswith(("**Because", "**No, because"))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


def test_cli_why_follow_up(cli_env: dict[str, str], tmp_path: Path) -> None:
    first = ask_cli(cli_env, FIRST)
    _follow_why(ask_cli_follow_up(cli_env, tmp_path, FIRST, first["text"], FOLLOW))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_api_why_follow_up(client: httpx.Client) -> None:
    _, follow = ask_api_follow_up(client, FIRST, FOLLOW)
    _follow_why(follow)
