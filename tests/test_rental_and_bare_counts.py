"""Readers of a rental period, a bare count follow-up and a GPU to beat on price (fast, no engine)."""

from __future__ import annotations

import pytest

from assistant.answer import Message
from assistant.conversation import read_conversation
from assistant.follow_up_words import bare_count
from assistant.hardware_words import find_gpu_to_beat
from assistant.rental_words import find_rental_hours
from assistant.understanding import understand


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("Serve Qwen2.5-7B for a hackathon, 2 days, cheapest option?", 48),
        ("Need Qwen2.5-32B for a 1-week pilot", 168),
        ("a 3-day workshop for 40 students", 72),
        ("for 48 hours only", 48),
        ("我们只需要用 3 天", 72),
        ("租两周", 336),
        ("为期 5 天的活动", 120),
    ],
)
def test_a_rental_period_is_its_hours(text: str, hours: float) -> None:
    assert find_rental_hours(text) == hours


@pytest.mark.parametrize(
    "text",
    [
        "8 hours a day on weekdays",
        "train it within 2 days",
        "3 天内训练完",
        "每天 8 小时",
        "每天只开 8 小时",
        "一天多少钱",
    ],
)
def test_hours_a_day_and_deadlines_are_no_rental(text: str) -> None:
    assert find_rental_hours(text) is None


def test_training_never_reads_a_rental() -> None:
    # "train for 3 days" is how long training takes (a deadline or an estimate), not a serving rental.
    assert understand("LoRA fine-tune Qwen2.5-7B for 3 days on 2 A10s").rental_hours is None
    assert understand("serve Qwen2.5-7B for 3 days").rental_hours == 72


@pytest.mark.parametrize(
    ("text", "count"),
    [("100 人呢？", (100, True)), ("what about 100?", (100, False)), ("那两百个人呢", (200, True)),
     ("how about 1,000 users?", (1000, True)), ("1.5万人呢", (15000, True))],
)  # fmt: skip
def test_a_bare_count(text: str, count: tuple[int, bool]) -> None:
    assert bare_count(text) == count


@pytest.mark.parametrize("text", ["32k 呢", "what about 4 GPUs?", "那 L20 呢", "0 人呢", "100 人同时用 Qwen2.5-7B"])
def test_not_a_bare_count(text: str) -> None:
    assert bare_count(text) is None


def _history(*turns: str) -> list[Message]:
    return [m for t in turns for m in (Message(role="user", content=t), Message(role="assistant", content="..."))]


def test_a_bare_count_changes_the_rate_the_workload_states() -> None:
    users = read_conversation("100 人呢？", _history("50 人同时用 Qwen2.5-14B，推荐什么实例"))
    assert (users.slots.model, users.slots.concurrency) == ("Qwen2.5-14B-Instruct", 100)
    rate = read_conversation("what about 20?", _history("Qwen2.5-7B at 5 QPS, which instance?"))
    assert (rate.slots.qps, rate.slots.concurrency) == (20, None)


def test_a_bare_number_without_a_rate_to_change_is_not_guessed() -> None:
    # "what about 20?" after a question with no users or QPS: 20 of what is not said, so nothing is changed.
    conv = read_conversation("what about 20?", _history("Qwen2.5-7B, which instance?"))
    assert conv.slots.concurrency is None and conv.slots.qps is None


@pytest.mark.parametrize(
    ("text", "gpu"),
    [("Is there anything cheaper than an A100 for serving Qwen2.5-32B?", "A100"),
     ("有没有比 A100 更便宜的卡可以跑 Qwen2.5-14B 全参微调？", "A100"), ("Qwen2.5-7B on an L20 or A10?", None)],
)  # fmt: skip
def test_the_gpu_to_beat(text: str, gpu: str | None) -> None:
    assert find_gpu_to_beat(text) == gpu
    slots = understand(text)
    assert slots.cheaper_than == gpu
    assert (gpu in slots.exclude_gpus) if gpu else True


def test_a_small_team_given_the_service_are_its_users_and_a_big_one_a_population() -> None:
    assert understand("Qwen2.5-14B 给 50 人用，推荐什么实例").concurrency == 50
    big = understand("Qwen2.5-14B 给 3000 人用，推荐什么实例")
    assert big.concurrency is not None and big.concurrency < 3000


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("We have a budget of $2000/month. What's the biggest model we can serve?", "$2000"),
        ("Qwen2.5-7B for 10 users, budget 1500 USD a month", "1500 USD"),
        ("每月预算 3000 美元，跑 Qwen2.5-14B 够吗", "3000 美元"),
    ],
)
def test_money_in_another_currency_is_never_read_as_yuan(text: str, amount: str) -> None:
    # No exchange rate is shipped: the amount is said back and asked for in CNY, never taken as ¥.
    slots = understand(text)
    assert slots.budget_cny_month is None and slots.foreign_money == amount


def test_a_yuan_budget_is_no_foreign_money() -> None:
    slots = understand("Qwen2.5-7B for 10 users, budget ¥1500 a month; ballpark $ per month?")
    assert slots.budget_cny_month == 1500 and slots.foreign_money is None
