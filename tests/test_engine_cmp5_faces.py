"""Comparisons by the billing the user pays, billing modes weighed, costs at stated hours and English number words
through the real faces (issue 8, area i8cmp5).

``gpu-advisor ask --json`` and ``POST /v1/ask``; multi-turn through the CLI's ``--history`` file and the API's
``session_id``. Figures from the catalogs: gn6i-c4g1.xlarge (T4) ¥11.63/h or ¥3,348/month on subscription,
gn7i-c8g1.2xlarge (A10) ¥9.53/h or ¥4,575.66/month; 730 h of ¥9.53 is about ¥6,957; L20 types have no price.
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


def _plans(body: Body) -> list[dict[str, Any]]:
    return [c["args"] for c in body["tool_calls"] if c["name"] == "plan_gpu_deployment"]


def _monthly_t4(body: Body) -> None:
    # paying by the month: the T4's subscription is the cheaper, though its hour is dearer
    assert {a["gpu"] for a in _plans(body)} >= {"T4", "A10"}
    assert all(a["concurrency"] == 3 for a in _plans(body))  # "me and 2 friends"
    first = _first(body)
    assert first.index("T4") < first.find("A10") if "A10" in first else "T4" in first
    assert "3348" in first and "4576" in first


def _month_gap(body: Body) -> None:
    first = _first(body)
    assert "4575.66" in first and "6958.8" in first  # the subscription and 730 h of pay-as-you-go


def _hours_bill(body: Body) -> None:
    assert "10 h a day on weekdays" in _first(body)
    assert "**Recommended:**" not in body["text"]  # the cost at those hours answers; the top option folds
    assert len(body["text"]) <= 1500


def _half_dozen(body: Body) -> None:
    assert _plans(body)[0]["concurrency"] == 6


def _hourly_rate(body: Body) -> None:
    assert _first(body).startswith("**¥") and "/h" in _first(body).split("**")[1]  # the hour asked, first


def _dollars_a_month(body: Body) -> None:
    assert "/month" in _first(body).split("**")[1]  # answered in CNY, the currency of the price list


def _type_gap(body: Body) -> None:
    gap = next(c for c in body["tool_calls"] if c["name"] == "compare_instance_prices")
    assert gap["result"]["types"][1]["more_than_cheapest_cny"] == 409.38  # 730 h at ¥10.09/h vs ¥9.53/h
    assert _first(body).startswith("**`ecs.gn7i-c16g1.4xlarge` 每月比 `ecs.gn7i-c8g1.2xlarge` 贵约 ¥409.38")


def _cheaper_type_first(body: Body) -> None:
    assert _first(body).startswith("**Cheaper per hour:** `ecs.gn7i-c8g1.2xlarge`")


def _headroom_compared(body: Body) -> None:
    assert {a["gpu"] for a in _plans(body)} == {"L20", "A10"}  # both planned, not one memory estimate
    assert _first(body).startswith("**L20 is the pick on headroom:**") and "GiB" in _first(body)


def _tokens_per_yuan(body: Body) -> None:
    plan = next(c["result"] for c in body["tool_calls"] if c["name"] == "plan_gpu_deployment")
    lowest = min(o["cost_cny_per_million_tokens"] for o in plan["options"] if o["cost_cny_per_million_tokens"])
    assert "per million" in _first(body) and f"¥{lowest}" in _first(body)


def _lab_budget(body: Body) -> None:
    assert any(a["concurrency"] == 40 and a["budget_cny_month"] == 20000 for a in _plans(body))
    assert "16,676" in _first(body)  # gn7e-c16g1.4xlarge's subscription, within the ¥20,000


def _types_users(body: Body) -> None:
    counted = {c["args"]["instance_type"]: c["result"]["sequences"] for c in body["tool_calls"]
               if c["name"] == "concurrent_users"}  # fmt: skip
    assert set(counted) == {"ecs.gn7i-c32g1.32xlarge", "ecs.gn7e-c16g1.4xlarge"}
    best = max(counted, key=lambda k: counted[k])
    assert _first(body).startswith(f"**{best} is the pick on users:**")


def _per_m_one_priced(body: Body) -> None:
    first = _first(body)
    assert "每百万 tokens" in first and "L20" in first and "¥" in first


CASES: list[tuple[str, str, Callable[[Body], None]]] = [
    ("pays-monthly", "T4 or A10 for qwen2.5-1.5b serving me and 2 friends? I'd pay monthly, whichever is cheaper",
     _monthly_t4),
    ("month-gap", "ecs.gn7i-c8g1.2xlarge per month: subscription versus pay-as-you-go running 24/7?", _month_gap),
    ("hours-bill", "Qwen2.5-32B AWQ for 10 users, run 10 hours a day on weekdays. What's the monthly bill?",
     _hours_bill),
    ("half-dozen", "Half a dozen folks want to try Qwen2.5-72B int4 at 8k context. Cheapest setup?", _half_dozen),
    ("hourly-rate", "What's the hourly rate for a box that can run Qwen2.5-32B for a dozen users?", _hourly_rate),
    ("dollars-a-month", "ballpark $ per month for llama 3.1 8b at 100 concurrent users?", _dollars_a_month),
    ("type-gap", "gn7i-c16g1.4xlarge 按量付费一个月多少钱？比 gn7i-c8g1.2xlarge 贵多少？", _type_gap),
    ("cheaper-type", "which is cheaper to rent, ecs.gn6i-c4g1.xlarge or ecs.gn7i-c8g1.2xlarge?", _cheaper_type_first),
    ("headroom", "How much VRAM headroom do I get running Qwen2.5-7B on an L20 vs an A10 with 16 users?",
     _headroom_compared),
    ("tokens-per-yuan", "which GPU gives the most tokens per second per yuan for qwen2.5-7b at 32 users?",
     _tokens_per_yuan),
    ("lab-budget", "实验室预算每月两万，想给 40 个学生提供 Qwen2.5-14B，够吗？", _lab_budget),
    ("types-users", "How many concurrent users can Qwen2.5-32B-Instruct AWQ support on gn7i-c32g1.32xlarge vs "
     "gn7e-c16g1.4xlarge at 8k?", _types_users),
    ("per-m-one-priced", "L20 和 A10 跑 Qwen2.5-7B，50 并发，折合每百万 token 多少钱？", _per_m_one_priced),
]  # fmt: skip
FIRST = "T4 还是 A10 跑 qwen2.5-1.5b，我和另外两个同学用，哪个便宜？"
FOLLOW = "那包月的话呢？"


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_cli_ask_json(cli_env: dict[str, str], case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_cli(cli_env, question))


@pytest.mark.parametrize(("case", "question", "check"), CASES, ids=[c[0] for c in CASES])
def test_api_ask(client: httpx.Client, case: str, question: str, check: Callable[[Body], None]) -> None:
    check(ask_api(client, question))


def _follow_up_pays_monthly(body: Body) -> None:
    assert all(a["billing"] == "subscription" and a["concurrency"] == 3 for a in _plans(body))
    assert _first(body).startswith("**按成本选 T4：**") and "包月" in _first(body)


def _side_replaced(body: Body) -> None:
    assert {a["gpu"] for a in _plans(body)} == {"A10", "A100-80GB"}  # the L20 side swapped, the A10 kept
    assert all(a["concurrency"] == 10 for a in _plans(body))


def _per_m_of_that(body: Body) -> None:
    assert _plans(body) and all(a["gpu"] == "A10" and a["concurrency"] == 8 for a in _plans(body))
    assert "per million" in _first(body)


def _capacity_of_that(body: Body) -> None:
    assert _plans(body)[0]["context"] == 16384
    assert _first(body).startswith("**Concurrent sequences per option at 16,384 tokens")


def _the_monthly(body: Body) -> None:
    assert all(a["billing"] == "subscription" and a["concurrency"] == 16 for a in _plans(body))
    assert _first(body).startswith("**About ¥25,552/month**")


FOLLOW_UPS: list[tuple[str, str, str, Callable[[Body], None]]] = [
    (
        "the-monthly",
        "Qwen2.5-32B AWQ for 16 users on A10s",
        "and if we bought a subscription instead, what's the monthly?",
        _the_monthly,
    ),
    ("pays-monthly", FIRST, FOLLOW, _follow_up_pays_monthly),
    ("instead-of", "A10 vs L20 for Qwen2.5-14B, 10 users", "what about A100 instead of L20?", _side_replaced),
    ("that-per-m", "Qwen2.5-7B on A10, 8 users", "what would that be per million tokens?", _per_m_of_that),
    ("it-holds", "Plan Qwen2.5-14B for 10 users", "and how many could it hold at 16k?", _capacity_of_that),
]


@pytest.mark.parametrize(("case", "first", "follow", "check"), FOLLOW_UPS, ids=[c[0] for c in FOLLOW_UPS])
def test_cli_follow_up(
    cli_env: dict[str, str], tmp_path: Path, case: str, first: str, follow: str, check: Callable[[Body], None]
) -> None:
    answer = ask_cli(cli_env, first)
    check(ask_cli_follow_up(cli_env, tmp_path, first, answer["text"], follow))


@pytest.mark.parametrize(("case", "first", "follow", "check"), FOLLOW_UPS, ids=[c[0] for c in FOLLOW_UPS])
def test_api_follow_up(client: httpx.Client, case: str, first: str, follow: str, check: Callable[[Body], None]) -> None:
    _, answer = ask_api_follow_up(client, first, follow)
    check(answer)
