"""Plans, follow-ups, guidance and cost through the real faces (issue 8, i8plan4).

``gpu-advisor ask --json`` and ``POST /v1/ask``; multi-turn through the CLI's ``--history`` file and the API's
``session_id``, over three turns. Each check states the domain's requirement, read from the tool results the
answer carries, never a fixed answer text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_helpers import ask_api, ask_cli

from assistant.render import fig

pytestmark = pytest.mark.slow

Body = dict[str, Any]


def _first(body: Body) -> str:
    return next(line for line in body["text"].splitlines() if line.strip())


def _calls(body: Body, name: str) -> list[dict[str, Any]]:
    calls = [c for c in body["tool_calls"] if c["name"] == name]
    assert calls, f"{name} not called: {[c['name'] for c in body['tool_calls']]}"
    return calls


def _head_count(body: Body) -> None:
    # 3,000 people are not 3,000 sequences at once: a share is assumed, said, and planned for.
    concurrency = _calls(body, "plan_gpu_deployment")[0]["args"]["concurrency"]
    assert 30 <= concurrency <= 600
    assert "假设" in body["text"] and f"{concurrency}" in body["text"]


def _unpriced_top(body: Body) -> None:
    # The recommended L20 type has no price: said once, then the nearest known price with region and date.
    near = _calls(body, "nearest_known_price")[0]["result"]
    assert near["quote"]["as_of"] in body["text"] and near["quote"]["region"] in body["text"]
    assert near["quote"]["instance_type"] in body["text"]


def _part_time_budget(body: Body) -> None:
    # 2 h on weekdays: the budget bounds what those hours cost, and the verdict quotes that figure.
    plan = _calls(body, "plan_gpu_deployment")[0]["result"]
    top = plan["options"][0]
    assert top["usage_cny_per_month"] <= 3000 < top["price_cny_per_month"]
    verdict = next(line for line in body["text"].splitlines() if "budget" in line)
    assert f"¥{round(top['usage_cny_per_month'])}/month" in verdict


def _commitment_guidance(body: Body) -> None:
    assert body["kind"] == "guidance"
    assert not [c for c in body["tool_calls"] if c["name"] in ("gpu_specs", "cheapest_region_for_gpu")]
    assert re.search(r"\[\d\]", _first(body)) and {c["doc"] for c in body["citations"]} == {"cost-optimization"}


def _mixed(body: Body) -> None:
    # "how does TP work, and how many A10s": the plan answers first, the concept (cited) right after it.
    plan = _calls(body, "plan_gpu_deployment")[0]["result"]
    assert plan["options"][0]["gpu_model"] == "A10"
    paragraphs = [p for p in body["text"].split("\n\n") if p.strip()]
    assert any(re.search(r"[Tt]ensor parallelism.*\[\d\]", p) for p in paragraphs[:3])
    assert {"inference-serving", "distributed-training"} & {c["doc"] for c in body["citations"]}


def _regions_zh(body: Body) -> None:
    # Two regions asked in Chinese: each named as the user did, with its id, and costed.
    regions = {c["args"]["region"] for c in _calls(body, "plan_gpu_deployment")}
    assert regions == {"cn-beijing", "ap-southeast-1"}
    assert "北京（cn-beijing）" in body["text"] and "新加坡（ap-southeast-1）" in body["text"]


def _price_gap(body: Body) -> None:
    # "the monthly cost difference": a month on each billing mode and the gap, all from the price tool.
    quote = _calls(body, "price_of_instance")[0]["result"]
    assert fig(quote["subscription_saving_monthly"]) in _first(body)
    assert fig(quote["payg_monthly"]) in _first(body)


def _law_firm(body: Body) -> None:
    # 200 lawyers at the assumed share, and "一万五" a month as ¥15,000: both honoured by the plan.
    args = _calls(body, "plan_gpu_deployment")[0]["args"]
    assert (args["concurrency"], args["budget_cny_month"], args["region"]) == (20, 15_000, "cn-beijing")
    assert "假设" in body["text"]


def _chunks(body: Body) -> None:
    # The retrieved chunks are part of every prompt: 5 x 512 tokens plus the question, then the answer.
    args = _calls(body, "plan_gpu_deployment")[0]["args"]
    assert args["context"] == 5 * 512 + 133 + 333 and args["gen_tokens"] == 333


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("head-count", "全公司 3000 人要用内部知识库问答，模型用 Qwen2.5-14B，要几台机器？", _head_count),
    ("unpriced-top", "公司 2000 员工，高峰大概 5% 的人同时在用，Qwen2.5-14B，要几张 L20？", _unpriced_top),
    (
        "part-time-budget",
        "can only spend 3k RMB a month; Qwen2.5-7B-Instruct for ~5 users, only 2 hours a day on weekdays",
        _part_time_budget,
    ),
    ("commitment", "moving from A10 to L20 next year - savings plan or reserved instances?", _commitment_guidance),
    ("mixed", "How does tensor parallelism work, and how many A10s for Qwen2.5-32B-Instruct at 8k, 10 users?", _mixed),
    ("regions-zh", "Qwen2.5-7B 20 并发，放北京和放新加坡，每月各要多少钱？", _regions_zh),
    ("law-firm-budget", "我们律所有 200 个律师，想用 Qwen2.5-14B，预算每月一万五，北京，推荐什么配置？", _law_firm),
    ("rag-chunks", "RAG: 5 chunks of 512 tokens + a 100-word question, answers ~250 words; Qwen2.5-14B", _chunks),
    ("price-gap", "monthly cost difference between pay-as-you-go and subscription for an A10 in Shanghai?", _price_gap),
]

# Three turns: the cost, the load changed, then only the period. The rest of the workload stays.
TURNS = [
    "Qwen2.5-7B-Instruct 10 并发 4k 上下文 上海，一个月多少钱？",
    "改成 20 并发呢",
    "那一天呢",
]


def _third_turn(body: Body) -> None:
    call = _calls(body, "plan_gpu_deployment")[0]
    args, top = call["args"], call["result"]["options"][0]
    assert (args["concurrency"], args["context"], args["region"]) == (20, 4096, "cn-shanghai")
    day = top["totals"]["payg_cny_per_day"]
    assert "天" in _first(body) and f"{round(day):,}" in _first(body)


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_cli_three_turns_keep_the_workload(cli_env: dict[str, str], tmp_path: Path) -> None:
    history: list[dict[str, str]] = []
    for turn in TURNS[:-1]:
        answer = ask_cli(cli_env, turn, _history_file(tmp_path, history))
        history += [{"role": "user", "content": turn}, {"role": "assistant", "content": answer["text"]}]
    _third_turn(ask_cli(cli_env, TURNS[-1], _history_file(tmp_path, history)))


def test_api_three_turns_keep_the_workload(client: httpx.Client) -> None:
    session = None
    for turn in TURNS:
        body = ask_api(client, turn, session)
        session = body["session_id"]
    _third_turn(body)


def _history_file(tmp_path: Path, turns: list[dict[str, str]]) -> Path | None:
    if not turns:
        return None
    path = tmp_path / "history.json"
    path.write_text(json.dumps(turns, ensure_ascii=False), encoding="utf-8")
    return path
