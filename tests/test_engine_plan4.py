"""Reading head-counts, follow-up periods and billing advice (issue 8, i8plan4), on the real engine in-process.

The faces (CLI and HTTP API) are exercised in ``test_engine_plan4_faces.py``; these pin the readings that
decide them, each against the domain's rule rather than an answer text.
"""

from __future__ import annotations

import pytest
from engine_helpers import ask, call_args, first_line

from assistant.billing_words import follow_up_period
from assistant.rate_words import DEFAULT_ONLINE_SHARE
from assistant.render import fig
from assistant.understanding import understand


@pytest.mark.parametrize(
    ("question", "people"),
    [
        ("全公司 3000 人要用内部知识库问答，Qwen2.5-14B，要几台机器？", 3000),
        ("We're rolling out an assistant to 2,000 employees on Qwen2.5-7B-Instruct. What instance?", 2000),
        ("a company of 1,500 people wants Llama-3.1-8B-Instruct for internal Q&A", 1500),
        ("we're a 500-person company, Qwen2.5-7B-Instruct for everyone, which instance?", 500),
    ],
)
def test_a_head_count_is_a_population_at_a_stated_share(question: str, people: int) -> None:
    s = understand(question)
    assert s.rate is not None and not s.rate.stated
    assert s.concurrency == round(people * DEFAULT_ONLINE_SHARE)


@pytest.mark.parametrize(
    ("question", "concurrency"),
    [
        ("给 20 个员工用，Qwen2.5-7B，用什么实例", 20),  # the people it is for, not a population
        ("全公司 3000 人，高峰 40 人同时用，Qwen2.5-14B", 40),  # a stated peak wins
        ("公司 2000 员工，高峰大概 5% 的人同时在用，Qwen2.5-14B", 100),  # a stated share wins
    ],
)
def test_stated_concurrency_or_share_wins_over_the_assumed_share(question: str, concurrency: int) -> None:
    assert understand(question).concurrency == concurrency


def test_the_assumed_share_is_said_in_the_answer() -> None:
    answer = ask("We're rolling out an internal assistant to 2,000 employees on Qwen2.5-7B-Instruct. What instance?")
    assert call_args(answer, "plan_gpu_deployment")["concurrency"] == 200
    assert "assuming 10%" in answer.text


@pytest.mark.parametrize(
    ("text", "period"),
    [("what about per day?", "day"), ("那一天呢", "day"), ("and for a whole year?", "year"), ("包年呢", "year")],
)
def test_a_follow_up_may_name_only_the_period(text: str, period: str) -> None:
    assert follow_up_period(text) == period


@pytest.mark.parametrize("text", ["那每天只跑 10 小时呢", "每天 5 万次请求呢", "what about 4 GPUs?"])
def test_usage_hours_and_rates_are_not_a_cost_period(text: str) -> None:
    assert follow_up_period(text) is None


def test_a_period_follow_up_answers_that_period_for_the_same_workload() -> None:
    first = "Qwen2.5-7B-Instruct for 10 concurrent users at 4k context in Shanghai, what does it cost per month?"
    answer = ask("what about per day?", first)
    args = call_args(answer, "plan_gpu_deployment")
    assert (args["concurrency"], args["context"], args["region"]) == (10, 4096, "cn-shanghai")
    assert "/day" in first_line(answer.text)


def test_a_year_on_subscription_asked_as_a_follow_up_leads_with_the_year() -> None:
    first = "Qwen2.5-7B-Instruct for 10 concurrent users at 4k context in Shanghai, what does it cost per month?"
    answer = ask("and per year if we go with a subscription?", first)
    plan = answer.tool_calls[0].result
    subscribed = [o for o in plan["options"] if o.get("subscription_cny_per_month")]
    top = min(subscribed, key=lambda o: o["subscription_cny_per_month"])
    assert f"{round(top['subscription_cny_per_month'] * 12):,}" in first_line(answer.text)


def test_commitment_advice_is_guidance_not_a_price_or_gpu_comparison() -> None:
    answer = ask("we may move from A10 to L20 next year - savings plan or reserved instances, which makes more sense?")
    assert answer.kind == "guidance" and {c.doc for c in answer.citations} == {"cost-optimization"}


@pytest.mark.parametrize(
    ("question", "monthly"),
    [
        ("我们只有 8 万预算一年，想跑 Qwen2.5-14B 给 30 个人用，够吗", 80_000 / 12),
        ("年预算 12 万，Qwen2.5-7B 20 并发", 10_000),
        ("annual budget of 120k RMB, Qwen2.5-7B-Instruct for 20 users", 10_000),
        ("预算每月 2 万，Qwen2.5-7B", 20_000),  # a month's budget stays a month's
    ],
)
def test_a_yearly_budget_is_a_twelfth_a_month(question: str, monthly: float) -> None:
    assert understand(question).budget_cny_month == pytest.approx(monthly, abs=1)


def test_a_yearly_budget_asks_no_yearly_cost() -> None:
    answer = ask("我们只有 8 万预算一年，想跑 Qwen2.5-14B 给 30 个人用，够吗")
    assert first_line(answer.text).startswith("**不够。**")  # every priced option that fits costs more a month


def test_a_price_gap_is_answered_with_the_tool_figures() -> None:
    answer = ask("上海 A10 包月和按量每月差多少钱？")
    quote = next(c.result for c in answer.tool_calls if c.name == "price_of_instance")
    assert quote["subscription_saving_monthly"] == pytest.approx(quote["payg_monthly"] - quote["subscription_monthly"])
    assert fig(quote["subscription_saving_monthly"]) in first_line(answer.text)


def test_an_unknown_price_is_said_once_in_a_period_follow_up() -> None:
    answer = ask("那一天呢", "Qwen2.5-7B-Instruct 10 并发 4k 上下文 上海，一个月多少钱？", "换成 L20 呢")
    top = call_args(answer, "plan_gpu_deployment")
    assert top["gpu"] == "L20"
    assert answer.text.count("没有已知价格") == 1 and "最接近的已知价格" in answer.text


@pytest.mark.parametrize(
    ("question", "budget"),
    [
        ("Qwen2.5-14B 15 并发，预算每月一万五", 15_000),
        ("Qwen2.5-7B 预算每月三万二", 32_000),
        ("预算 1万5/月，Qwen2.5-7B", 15_000),
    ],
)
def test_colloquial_chinese_amounts(question: str, budget: float) -> None:
    assert understand(question).budget_cny_month == budget


@pytest.mark.parametrize(
    ("question", "people"),
    [
        ("our law firm has 400 lawyers; we want Qwen2.5-14B-Instruct as a drafting assistant", 400),
        ("我们律所有 200 个律师，想用 Qwen2.5-14B 做合同审查", 200),
    ],
)
def test_an_organisation_with_its_staff_is_a_population(question: str, people: int) -> None:
    s = understand(question)
    assert s.rate is not None and s.rate.amount == people and s.concurrency == round(people * DEFAULT_ONLINE_SHARE)


def test_a_serving_setting_next_to_a_gpu_is_guidance() -> None:
    answer = ask("should I bump gpu-memory-utilization to 0.95 on our A10 box, or is that asking for trouble?")
    assert answer.kind == "guidance" and "inference-serving" in {c.doc for c in answer.citations}
    assert "gpu-memory-utilization" in first_line(answer.text)


@pytest.mark.parametrize(
    ("question", "prompt", "gen"),
    [
        # retrieved chunks all go into the prompt: 5 x 512 + 100 words x 1.33
        ("RAG: 5 chunks of 512 tokens plus a 100-word question, answers ~250 words; Qwen2.5-14B-Instruct", 2693, 333),
        ("每个请求输入 8k token，输出 1k，Qwen2.5-72B AWQ，16 并发", 8000, 1000),  # "1k" beside token lengths
        # the text is cut down to 200 words: that is the answer (5,000 x 1.33 in, 200 x 1.33 out)
        ("our docs are about 5,000 words each and we summarise them to 200 words; Qwen2.5-32B-Instruct", 6650, 266),
    ],
)
def test_lengths_as_users_state_them(question: str, prompt: int, gen: int) -> None:
    s = understand(question)
    assert (s.prompt_tokens, s.gen_tokens, s.context) == (prompt, gen, prompt + gen)
