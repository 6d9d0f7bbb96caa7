"""A rental of a few days, a GPU to beat on price, the GPU line-up, a bare count follow-up, through the faces.

``gpu-advisor ask --json`` and ``POST /v1/ask`` (multi-turn through the CLI's ``--history`` and the API's
``session_id``). Each check reads the figures from the tool results the answer carries, never a fixed text.
"""

from __future__ import annotations

import json
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


def _plans(body: Body) -> list[dict[str, Any]]:
    calls = [c for c in body["tool_calls"] if c["name"] == "plan_gpu_deployment"]
    assert calls, [c["name"] for c in body["tool_calls"]]
    return calls


def _rental(body: Body) -> None:
    # "a 2-day hackathon": 48 pay-as-you-go hours answer first, not a month or a subscription.
    call = _plans(body)[0]
    assert call["args"]["rental_hours"] == 48 and call["args"]["billing"] == "pay-as-you-go"
    totals = [o["totals"]["payg_cny_for_rental"] for o in call["result"]["options"] if o["totals"]]
    cheapest = min(t for t in totals if t is not None)
    assert f"¥{fig(cheapest)}" in _first(body) and "48" in _first(body)
    assert "/month" not in _first(body)


def _rental_zh(body: Body) -> None:
    call = _plans(body)[0]
    assert call["args"]["rental_hours"] == 72
    assert "72 小时" in _first(body) and "月" not in _first(body).split("（")[0]


def _cheaper_no(body: Body) -> None:
    # 14B full fine-tuning: the cheapest plan without A100 costs more an hour than the A100 plan, so "no".
    without, on_a100 = _plans(body)[:2]
    assert without["args"]["exclude_gpus"] == ["A100"] and on_a100["args"]["gpu"] == "A100"
    ours = min(o["price_cny_per_hour"] for o in without["result"]["options"] if o["price_cny_per_hour"])
    theirs = min(o["price_cny_per_hour"] for o in on_a100["result"]["options"] if o["price_cny_per_hour"])
    first = _first(body)
    assert f"¥{fig(ours)}" in first and f"¥{fig(theirs)}" in first
    assert first.startswith("**换别的卡不划算") if ours >= theirs else first.startswith("**可以")


def _cheaper_en(body: Body) -> None:
    without, on_a100 = _plans(body)[:2]
    ours = min(o["price_cny_per_hour"] for o in without["result"]["options"] if o["price_cny_per_hour"])
    theirs = min(o["price_cny_per_hour"] for o in on_a100["result"]["options"] if o["price_cny_per_hour"])
    assert _first(body).startswith("**Yes" if ours < theirs else "**No")
    assert f"¥{fig(ours)}" in _first(body) and f"¥{fig(theirs)}" in _first(body)


def _lineup(body: Body) -> None:
    # "阿里云有哪些 GPU": every GPU of the line-up tool, counted on the first line, each in the table.
    rows = next(c for c in body["tool_calls"] if c["name"] == "gpu_lineup")["result"]["rows"]
    assert f"{len(rows)} 种 GPU" in _first(body)
    table = [line for line in body["text"].splitlines() if line.startswith("| ")][1:]
    assert len(table) == len(rows)
    for row, line in zip(rows, table, strict=True):
        assert row["gpu"].split(" (")[0] in line and ", ".join(row["families"]) in line


def _family_prices(body: Body) -> None:
    # "how much is gn7i": the family's types priced, not a passage about the family.
    priced = [c for c in body["tool_calls"] if c["name"] == "compare_region_prices"]
    assert priced and all(c["args"]["instance_type"].startswith("ecs.gn7i") for c in priced)
    assert "¥" in _first(body)


def _same_gpu_families(body: Body) -> None:
    # gn7e vs ebmgn7e: both A100-80GB, so the machines are compared (bare metal, GPUs per instance), not the card.
    listed = [c["result"]["instances"] for c in body["tool_calls"] if c["name"] == "find_instance_types"]
    gpus = {i["gpu_model"] for types in listed for i in types}
    assert len(listed) == 2 and len(gpus) == 1 and gpus.pop() in _first(body)
    assert not [c for c in body["tool_calls"] if c["name"] == "gpu_specs"]
    bare = [i["instance_type"] for types in listed for i in types if i["bare_metal"]]
    assert bare and all(f"`{t}`" in body["text"] for t in bare)


def _fleet(body: Body) -> None:
    # Three models hosted together: each planned (72B with its AWQ, 7B in BF16, bge-m3 by the media planner)
    # and the fleet's total hour leads; no retrieval paragraph repeats the embedder.
    plans = _plans(body)
    assert [c["args"].get("quant") for c in plans] == ["awq-int4", None]
    assert [c["name"] for c in body["tool_calls"]].count("plan_media_deployment") == 1
    total = next(c for c in body["tool_calls"] if c["name"] == "fleet_cost")["result"]
    assert len(total["parts"]) == 3 and f"¥{fig(total['cny_per_hour'])}/h" in _first(body)
    assert body["text"].count("BGE-M3") == 1


def _dollars(body: Body) -> None:
    # "$2000/month": no exchange rate is shipped, so the amount is said back and asked for in CNY; no tool runs
    # on a budget read as ¥2,000.
    assert body["kind"] == "clarification" and not body["tool_calls"]
    assert "$2000" in _first(body) or "$2000" in body["text"]


def _cheapest_int4(body: Body) -> None:
    # "cheapest way" with no precision stated: the 4-bit plan's cheaper hour is named beside the BF16 one.
    bf16, int4 = _plans(body)[:2]
    assert int4["args"]["precision"] == "int4" and "precision" not in bf16["args"]
    low = min(o["price_cny_per_hour"] for o in int4["result"]["options"] if o["price_cny_per_hour"])
    paragraph = next(p for p in body["text"].split("\n\n") if "4-bit" in p)
    assert f"¥{fig(low)}/h" in paragraph


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("rental", "Serve Qwen2.5-7B-Instruct for a hackathon, 2 days, cheapest option?", _rental),
    ("rental-zh", "我们只需要用 3 天，Qwen2.5-14B 推理，多少钱？", _rental_zh),
    ("cheaper-zh", "有没有比 A100 更便宜的卡可以跑 Qwen2.5-14B 全参微调？", _cheaper_no),
    ("cheaper-en", "Is there anything cheaper than an A100 for serving Qwen2.5-32B to 10 users?", _cheaper_en),
    ("lineup-zh", "阿里云有哪些 GPU", _lineup),
    ("family-prices", "how much is gn7i", _family_prices),
    ("same-gpu-families", "What's the difference between gn7e and ebmgn7e?", _same_gpu_families),
    ("cheapest-int4", "hey, what's the cheapest way to get llama 3 70b running for my team of 15?", _cheapest_int4),
    ("dollars", "We have a budget of $2000/month. What's the biggest model we can serve?", _dollars),
    ("fleet", "We need to host 3 models: Qwen2.5-72B-AWQ, Qwen2.5-7B and bge-m3. What cluster do we need?", _fleet),
]

# Three turns: a workload, a bare count ("100 人呢？" used to be read as off-topic), then the GPU changed.
TURNS = ["50 人同时用 Qwen2.5-14B，推荐什么实例", "100 人呢？", "那换成 L20 呢"]


def _counted(body: Body, turn: int) -> None:
    args = _plans(body)[0]["args"]
    assert args["model"] == "Qwen2.5-14B-Instruct" and args["concurrency"] == (50 if turn == 0 else 100)
    if turn == 2:
        assert args["gpu"] == "L20"


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def test_cli_bare_count_follow_up(cli_env: dict[str, str], tmp_path: Path) -> None:
    history: list[dict[str, str]] = []
    for turn, question in enumerate(TURNS):
        path = tmp_path / "history.json"
        path.write_text(json.dumps(history, ensure_ascii=False), encoding="utf-8")
        body = ask_cli(cli_env, question, path if history else None)
        _counted(body, turn)
        history += [{"role": "user", "content": question}, {"role": "assistant", "content": body["text"]}]


def test_api_bare_count_follow_up(client: httpx.Client) -> None:
    session = None
    for turn, question in enumerate(TURNS):
        body = ask_api(client, question, session)
        session = body["session_id"]
        _counted(body, turn)
