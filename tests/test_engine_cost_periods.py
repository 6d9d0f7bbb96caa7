"""Cost in the period asked, capacity and rates in everyday words, training volume and lengths (issue 8, i8cost2).

Through the real offline engine and tools. Every expected figure is derived here from the tools' own results
(prices, totals) or from the question's arithmetic, never copied from an answer's text.
"""

from __future__ import annotations

import re

import pytest
from engine_helpers import ask, call_args, conversation, first_line, ungrounded

from assistant.billing_words import cost_period
from assistant.rate_words import asks_capacity
from tools.plan import Plan
from tools.plan_pricing import HOURS_PER_DAY, HOURS_PER_YEAR, MONTHS_PER_YEAR


def _plan(answer) -> Plan:  # type: ignore[no-untyped-def]
    results = [c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment" and c.result]
    assert results, "no plan"
    return Plan.model_validate(results[0])


def _numbers(line: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", line)]


@pytest.mark.parametrize(
    ("question", "period"),
    [
        ("ballpark annual bill for Qwen2.5-7B?", "year"),
        ("一年下来大概多少钱", "year"),
        ("包年呢？", "year"),
        ("包年包月多少钱", None),  # the name of subscription billing, not a year
        ("一天要烧多少钱？", "day"),
        ("what does a day of serving Llama cost us", "day"),
        ("每天只跑 8 小时，一个月多少钱", None),  # hours it runs, not a day's cost
        ("10k requests per day, what instance?", None),  # a rate
        ("算下来每千次调用成本多少？", "requests"),
        ("what does that come to per week?", "week"),
        ("10 hours a day on weekdays, monthly cost?", None),
        ("What does Qwen2.5-72B AWQ for 16 users cost per hour in Shanghai?", "hour"),
        ("we see 36,000 requests an hour, what do we need?", None),  # a rate, not a price
        ("每天开 10 小时一个月多少钱", None),
        ("what's our cost per 1,000 requests?", "requests"),
    ],
)
def test_cost_period_is_read_from_the_question(question: str, period: str | None) -> None:
    assert cost_period(question) == period


def test_plan_options_carry_day_year_and_request_totals() -> None:
    from tools.plan import plan_deployment
    from tools.workload import Workload

    plan = plan_deployment(Workload(model="Qwen2.5-7B-Instruct", task="inference", qps=5, region="cn-shanghai"))
    o = next(o for o in plan.options if o.price_cny_per_hour is not None)
    assert o.totals is not None and o.price_cny_per_hour is not None
    assert o.totals.payg_cny_per_day == pytest.approx(o.price_cny_per_hour * HOURS_PER_DAY, abs=1)
    assert o.totals.payg_cny_per_year == pytest.approx(o.price_cny_per_hour * HOURS_PER_YEAR, abs=1)
    assert o.totals.requests_basis == "stated_qps"  # 5 requests/s = 18 thousand an hour
    assert o.totals.cny_per_1k_requests == pytest.approx(o.price_cny_per_hour / 18, rel=1e-3)
    if o.subscription_cny_per_month is not None:
        assert o.totals.subscription_cny_per_year == pytest.approx(o.subscription_cny_per_month * MONTHS_PER_YEAR)


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("ballpark annual bill for running Qwen2.5-7B-Instruct for 15 concurrent users in Beijing?", ("year",)),
        ("Qwen2.5-14B，20 个并发，杭州按量付费，一天要烧多少钱？", ("天",)),
    ],
)
def test_the_period_asked_answers_first_from_the_plan_totals(question: str, words: tuple[str, ...]) -> None:
    answer = ask(question)
    line = first_line(answer.text)
    assert any(w in line for w in words) and "¥" in line
    plan = _plan(answer)
    totals = {t for o in plan.options if o.totals for t in (o.totals.payg_cny_per_year, o.totals.payg_cny_per_day)}
    assert any(round(t) in {round(n) for n in _numbers(line)} for t in totals if t is not None)
    assert not ungrounded(answer, question)


def test_cost_per_thousand_requests_at_the_stated_rate() -> None:
    question = "At 10 requests per second, what's our cost per 1,000 requests self-hosting Qwen2.5-7B?"
    answer = ask(question)
    assert call_args(answer, "plan_gpu_deployment")["qps"] == 10
    line = first_line(answer.text)
    assert "thousand requests" in line
    per_1k = [o.totals.cny_per_1k_requests for o in _plan(answer).options if o.totals and o.totals.cny_per_1k_requests]
    assert any(f"{p:.2f}" in line for p in per_1k)


def test_a_subscription_year_where_none_is_listed_says_so_and_gives_the_nearest() -> None:
    history = ["Llama-3.1-8B，北京，15 并发，按量一个月多少钱"]
    answer = ask("包年呢？", *history)
    assert call_args(answer, "plan_gpu_deployment")["region"] == "cn-beijing"
    quote = next(c.result for c in answer.tool_calls if c.name == "price_of_instance")
    assert quote["region"] == "cn-shanghai" and quote["subscription_as_of"] in answer.text
    assert "没有已知的包年包月价格" in first_line(answer.text)
    assert not ungrounded(answer, "包年呢？", conversation(*history))


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("how many 8k-token chats can a single L20 keep going at once with Qwen2.5-14B?", True),
        ("两张 A10 跑 Qwen2.5-7B，最多几个人能同时聊？", True),
        ("2 卡 H20 跑 72B，32k 上下文，并发上限大概多少", True),
        ("8k 的会话能同时挂多少个？", True),
        ("同时需要多少张卡", False),
        ("A10 跑 Qwen2.5-7B，4k，能支撑的并发是多少", True),
        ("how many cards for 20 users at once?", False),  # a count of GPUs, not of users
        ("需要几张卡才能让 50 个人同时用", False),
    ],
)
def test_capacity_is_asked_in_everyday_words(question: str, asked: bool) -> None:
    assert asks_capacity(question) is asked


def test_capacity_on_named_gpus_leads_with_the_count() -> None:
    answer = ask("how many 8k-token chats can a single L20 keep going at once with Qwen2.5-14B-Instruct in bf16?")
    cap = next(c for c in answer.tool_calls if c.name == "concurrent_users")
    assert (cap.args["gpu"], cap.args["context"]) == ("L20", 8192)
    assert str(cap.result["sequences"]) in first_line(answer.text)


@pytest.mark.parametrize(
    ("question", "args"),
    [
        ("we see about 36,000 requests an hour at peak on our Qwen2.5-7B endpoint. what do we need?", {"qps": 10}),
        ("Llama-3.1-8B for a hundred and twenty concurrent sessions at 4k in Hangzhou", {"concurrency": 120}),
        ("8,000 daily users, at most one in twenty online at the same time. Qwen2.5-14B AWQ", {"concurrency": 400}),
        ("DAU 两万，高峰并发按 5% 算，Qwen2.5-7B，4k 上下文，要多少卡？", {"concurrency": 1000}),
        ("Qwen2.5-7B batch summarisation, 8 parallel jobs, on spot in Hangzhou", {"concurrency": 8, "billing": "spot"}),
        # 1.2 million a month over thirty days of 86,400 s, at four times the average
        ("1.2 million chat requests per month, peaks 4x the average; Qwen2.5-7B", {"qps": 1.85}),
    ],
)
def test_rates_as_users_state_them(question: str, args: dict[str, object]) -> None:
    answer = ask(question)
    got = call_args(answer, "plan_gpu_deployment")
    assert {k: got.get(k) for k in args} == args
    assert not ungrounded(answer, question)


def test_epochs_in_chinese_numerals_multiply_the_training_tokens() -> None:
    answer = ask("8万条样本，每条约1500 token，跑两轮，QLoRA 微调 Qwen2.5-32B，一张 A100 要多久")
    assert call_args(answer, "training_run")["tokens"] == 80_000 * 1_500 * 2


@pytest.mark.parametrize(
    ("question", "tokens"),
    [
        ("LoRA on Qwen2.5-7B, 50,000 examples, average length 1.2k tokens, 3 epochs, how long on one A100?", 1.8e8),
        ("LoRA on Qwen2.5-7B, 20k samples, 1k tokens, 2 epochs, 2 A10s, how long?", 4e7),  # 1k: each sample
    ],
)
def test_samples_times_their_length_times_epochs(question: str, tokens: float) -> None:
    assert call_args(ask(question), "training_run")["tokens"] == tokens


def test_training_on_named_gpus_is_priced_from_the_plan() -> None:
    question = "40k dialogues averaging 2k tokens, two passes, LoRA on Qwen2.5-14B with 4x A100 80G. how long and cost?"
    answer = ask(question)
    run = next(c for c in answer.tool_calls if c.name == "training_run")
    assert run.args["gpus"] == 4 and run.result["cost_cny"] is not None
    assert "¥" in answer.text and not ungrounded(answer, question)


def test_a_week_of_serving_answers_first_from_the_plan_totals() -> None:
    question = "If we keep Qwen2.5-32B AWQ up for 40 users at 8k context, what does that come to per week?"
    answer = ask(question)
    weeks = [o.totals.payg_cny_per_week for o in _plan(answer).options if o.totals and o.totals.payg_cny_per_week]
    line = first_line(answer.text)
    assert "week" in line and any(round(w) in {round(n) for n in _numbers(line)} for w in weeks)


def test_a_duration_asked_as_a_bare_noun_answers_first() -> None:
    answer = ask("Continued pre-training Qwen2.5-7B on 2 billion tokens of legal text using 16 H800s — days and cost?")
    run = next(c for c in answer.tool_calls if c.name == "training_run")
    assert run.args["tokens"] == 2e9 and run.args["task"] == "full"
    assert "hour" in first_line(answer.text) and "¥" in answer.text


def test_a_follow_up_that_changes_the_epochs_still_asks_how_long() -> None:
    history = ["LoRA fine-tune Qwen2.5-7B on 30k samples of about 1k tokens, 2 epochs, on 2 A100s — how long?"]
    answer = ask("what if 3 epochs?", *history)
    assert call_args(answer, "training_run")["tokens"] == 30_000 * 1_000 * 3
    assert "hour" in first_line(answer.text)


@pytest.mark.parametrize(
    ("question", "prompt", "output"),
    [
        ("users upload 25-page English PDFs, get a one-page summary back. Qwen2.5-32B AWQ, 4 at once", 25 * 665, 665),
        ("合同平均3万字，要出一份1000字左右的摘要，Qwen2.5-14B，5 路并发", 18_000, 600),
        ("英文邮件自动回复，来信每封大约 500 个单词，回复 200 词，Qwen2.5-7B，40 并发", 665, 266),
        ("每次把三页英文材料丢给模型，让它写 100 字中文总结，Qwen2.5-14B，10 并发", 3 * 665, 60),
    ],
)
def test_output_lengths_in_the_users_units(question: str, prompt: int, output: int) -> None:
    args = call_args(ask(question), "plan_gpu_deployment")
    assert (args["context"], args["gen_tokens"]) == (prompt + output, output)


@pytest.mark.parametrize(
    ("history", "question", "asked"),
    [
        ("how much per month for Qwen2.5-14B with 10 users?", "and with 30 users?", "/month"),
        ("Qwen2.5-14B 30 并发一年多少钱", "换成 int4 呢", "/年"),
        ("what's the annual cost of Qwen2.5-7B for 20 users", "and in Singapore?", "/year"),
    ],
)
def test_a_follow_up_keeps_asking_the_cost(history: str, question: str, asked: str) -> None:
    answer = ask(question, history)
    line = first_line(answer.text)
    assert asked in line and "¥" in line
    assert not ungrounded(answer, question, conversation(history))


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("跑一个 14B 的模型一个月要多少钱", ("/月",)),  # a size alone: a representative model, not a clarification
        ("Qwen2.5-72B AWQ 的 token 成本大概多少，20 并发", ("百万",)),  # the cost of tokens leads
    ],
)
def test_cost_questions_in_other_words_lead_with_the_figure(question: str, words: tuple[str, ...]) -> None:
    answer = ask(question)
    assert answer.kind == "recommendation"
    line = first_line(answer.text)
    assert "¥" in line and all(w in line for w in words)


def test_the_rent_of_named_unpriced_hardware_gives_the_nearest_known_price() -> None:
    answer = ask("我们 4 张 L20 跑 Qwen2.5-32B，一个月租金多少")
    near = next(c.result for c in answer.tool_calls if c.name == "nearest_known_price")
    assert near and near["quote"]["as_of"] in answer.text
