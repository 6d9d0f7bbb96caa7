"""Region and billing questions through ``gpu-advisor ask --json`` (the offline engine, a subprocess), zh and en.

Expectations come from the price tools' contract: a price question calls the region/billing price tools, the
first line answers (the cheapest region or the asked price) and every price shows region, billing mode and
as-of date; spot answers carry the interruption caveat; a "那按量呢?" follow-up keeps the earlier subject.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import ask_cli, ask_cli_follow_up, conversation, shared_engine, ungrounded

Body = dict[str, Any]
_REGION = re.compile(r"\b(?:cn|ap|us|eu|me)-[a-z]+(?:-\d+)?\b")
_DATE = re.compile(r"20\d\d-\d\d(?:-\d\d)?")


def _calls(body: Body, name: str) -> list[dict[str, Any]]:
    return [c["args"] for c in body["tool_calls"] if c["name"] == name]


def _first_line_prices(body: Body) -> str:
    first = body["text"].split("\n\n")[0]
    assert "¥" in first and _REGION.search(first) and _DATE.search(first), first
    return first


def test_cheapest_region_for_a_gpu_zh(cli_env: dict[str, str]) -> None:
    body = ask_cli(cli_env, "哪个地域 A10 最便宜？")
    assert body["language"] == "zh"
    assert _calls(body, "cheapest_region_for_gpu")[0]["gpu"] == "A10"
    first = _first_line_prices(body)
    assert "最便宜的地域" in first and "按量付费" in first
    assert any("cn-" in d["markdown"] for d in body["details"])  # the per-region table is folded in


def test_cheapest_region_for_an_instance_type_en(cli_env: dict[str, str]) -> None:
    body = ask_cli(cli_env, "Which region is cheapest for ecs.gn7i-c8g1.2xlarge?")
    assert body["language"] == "en"
    assert _calls(body, "compare_region_prices")[0]["instance_type"] == "ecs.gn7i-c8g1.2xlarge"
    first = _first_line_prices(body)
    assert "cheapest region" in first and "pay-as-you-go" in first


def test_subscription_then_pay_as_you_go_follow_up(cli_env: dict[str, str], tmp_path: Path) -> None:
    question = "gn7i 包月多少钱？"
    first = ask_cli(cli_env, question)
    assert all(c["instance_type"].startswith("ecs.gn7i") for c in _calls(first, "price_of_instance"))
    assert "的包月价" in _first_line_prices(first) and "/月" in first["text"]
    follow = ask_cli_follow_up(cli_env, tmp_path, question, first["text"], "那按量呢?")
    calls = _calls(follow, "price_of_instance")
    assert calls and all(c["instance_type"].startswith("ecs.gn7i") for c in calls)
    assert "的按量付费价" in _first_line_prices(follow) and "/小时" in follow["text"]


def test_subscription_vs_pay_as_you_go_in_a_named_region_en(cli_env: dict[str, str]) -> None:
    body = ask_cli(
        cli_env, "What does an 8-GPU A100 instance cost per month on subscription vs pay-as-you-go in cn-beijing?"
    )
    gpu = _calls(body, "cheapest_region_for_gpu")[0]
    assert gpu["gpu"] == "A100" and gpu["gpu_count"] == 8
    assert _calls(body, "price_of_instance")[0]["region"] == "cn-beijing"
    assert "cn-beijing" in body["text"] and "pay-as-you-go" in body["text"] and "subscription" in body["text"]


def test_spot_question_carries_the_interruption_caveat_zh(cli_env: dict[str, str]) -> None:
    body = ask_cli(cli_env, "抢占式实例便宜多少？")
    assert body["kind"] == "guidance"
    assert "中断" in body["text"]
    assert any(c["doc"] == "cost-optimization" for c in body["citations"])


def test_chinese_region_name_is_read_as_its_id() -> None:
    question = "ecs.gn7i-c8g1.2xlarge 在华东2(上海)按量多少钱？"
    answer = shared_engine().answer(question)
    assert any(c.name == "price_of_instance" and c.args.get("region") == "cn-shanghai" for c in answer.tool_calls)
    assert answer.text.startswith("**`ecs.gn7i-c8g1.2xlarge` 在 cn-shanghai 的按量付费价")
    assert ungrounded(answer, question) == []


@pytest.mark.parametrize(
    ("question", "history"),
    [
        ("哪个地域 A10 最便宜？", ()),
        ("Which region is cheapest for ecs.gn7i-c8g1.2xlarge?", ()),
        ("那按量呢?", ("gn7i 包月多少钱？",)),
        ("Spot price of ecs.gn7i-c8g1.2xlarge in cn-hangzhou?", ()),
    ],
)
def test_every_price_figure_is_grounded(question: str, history: tuple[str, ...]) -> None:
    turns = conversation(*history)
    answer = shared_engine().answer(question, turns)
    assert answer.tool_calls and ungrounded(answer, question, turns) == []


def test_suitability_of_spot_stays_a_guidance_question() -> None:
    answer = shared_engine().answer("抢占式实例适合训练吗")
    assert not any(c.name.startswith(("compare_region", "cheapest_region")) for c in answer.tool_calls)


def test_a_gpu_priced_in_a_named_region_by_console_name() -> None:
    question = "乌兰察布 A10 包月"
    answer = shared_engine().answer(question)
    assert any(c.name == "price_of_instance" and c.args.get("region") == "cn-wulanchabu" for c in answer.tool_calls)
    assert "cn-wulanchabu" in answer.text.split("\n\n")[0]
    assert ungrounded(answer, question) == []


def test_pay_as_you_go_per_month_says_it_is_730_hours_not_a_subscription() -> None:
    question = "How much is an 8-GPU A100 instance per month pay-as-you-go in cn-beijing?"
    answer = shared_engine().answer(question)
    assert "/month" in answer.text and "not a subscription" in answer.text
    assert ungrounded(answer, question) == []


@pytest.mark.parametrize(
    "question", ["按量付费和包月有什么区别", "What is the difference between subscription and spot?"]
)
def test_billing_explanations_are_answered_from_the_guidance(question: str) -> None:
    answer = shared_engine().answer(question)
    assert answer.kind == "guidance" and answer.citations
    assert not any(c.name.startswith(("compare_region", "cheapest_region")) for c in answer.tool_calls)
