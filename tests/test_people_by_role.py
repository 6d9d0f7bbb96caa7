"""People named by their role are the users a service runs for ("给 20 个销售用", "for 40 analysts").

Found asking as a new user: "两台 gn7i-c8g1.2xlarge … 给 20 个销售用，撑得住吗" was judged for one sequence.
"""

from __future__ import annotations

import httpx
import pytest
from engine_helpers import ask_api

from assistant.understanding import understand


@pytest.mark.parametrize(
    ("question", "users"),
    [
        ("想上 Qwen2.5-14B 给 20 个销售用，撑得住吗？", 20),
        ("Qwen2.5-14B 给 50 个客服同事用，要几张卡", 50),
        ("供 30 名销售人员使用 Qwen2.5-7B，用什么实例", 30),
        ("Qwen2.5-7B for 20 salespeople, which instance?", 20),
        ("Could we serve Qwen2.5-32B to ~20 staff on that?", 20),  # a team that size are the users
    ],
)
def test_people_by_role_are_concurrent_users(question: str, users: int) -> None:
    assert understand(question).concurrency == users


@pytest.mark.parametrize("question", ["Qwen2.5-7B for 3 GPUs", "LoRA Qwen2.5-7B for 2 epochs"])
def test_counts_of_other_things_are_not_users(question: str) -> None:
    assert understand(question).concurrency is None


def test_api_verdict_on_named_instances_carries_the_users(client: httpx.Client) -> None:
    body = ask_api(client, "老板只批了两台 gn7i-c8g1.2xlarge，想上 Qwen2.5-14B 给 20 个销售用，撑得住吗？")
    [fit] = [c for c in body["tool_calls"] if c["name"] == "evaluate_hardware_fit"]
    assert fit["args"]["concurrency"] == 20 and fit["args"]["instances"] == 2


def test_a_company_head_count_is_a_population_not_users_at_once() -> None:
    s = understand("We're rolling out an assistant to 2,000 employees on Qwen2.5-7B-Instruct. What instance?")
    assert s.rate is not None and s.rate.kind == "user_share" and s.concurrency == 200
