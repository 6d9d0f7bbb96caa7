"""Rates, lengths and follow-up changes as users write them, read into the workload slots (no engine)."""

from __future__ import annotations

import pytest

from assistant.answer import Message
from assistant.conversation import read_conversation
from assistant.understanding import understand


@pytest.mark.parametrize(
    ("question", "concurrency"),
    [
        ("Twelve teams of 5 people will use Qwen2.5-14B at the same time", 60),
        ("学校有 6 个班，每班 45 个学生，同时用 Qwen2.5-7B", 270),
        ("500 employees use Qwen2.5-14B, about 10% active at any moment", 50),
        ("serving 1,000 users of Qwen2.5-7B with 5% concurrency", 50),
        ("Serve Qwen2.5-7B to 1,000 concurrent users", 1000),  # "000 users" is no zero
        ("注册用户1.5万，同时在线峰值约三百人，Qwen3-8B 推理", 300),
        ("Qwen2.5-7B for roughly a hundred folks chatting at the same time", 100),
        ("Qwen2.5-32B with 64-way concurrency", 64),
        ("Serve Llama-3.1-8B to summarize 20-page PDFs, 5 at a time", 5),
    ],
)
def test_concurrency_as_users_state_it(question: str, concurrency: int) -> None:
    slots = understand(question)
    assert slots.concurrency == concurrency and not slots.invalid


@pytest.mark.parametrize(
    ("question", "qps"),
    [
        ("Qwen2.5-7B 客服机器人，峰值 QPS 大概 10", 10.0),
        ("Qwen2.5-7B, 1200 requests per minute at peak", 20.0),
        ("handle 10 queries per second with Qwen2.5-7B", 10.0),
        ("每天 100 万次调用 Qwen2.5-7B，高峰是平均的 3 倍", round(1e6 / 86_400 * 3, 1)),
        ("We get about 2 million requests a day to our Qwen2.5-7B endpoint", round(2e6 / 86_400 * 3, 1)),
    ],
)
def test_qps_as_users_state_it(question: str, qps: float) -> None:
    assert understand(question).qps == qps


@pytest.mark.parametrize(
    ("question", "cap"),
    [
        ("Qwen2.5-72B BF16, 50 concurrent, we can only afford 2 machines", 2),
        ("Qwen2.5-72B，50 并发，机器不能超过 2 台", 2),
        ("Qwen2.5-72B，50 并发，最多用两台", 2),
        ("Qwen2.5-72B limited to 3 instances, 40 users", 3),
    ],
)
def test_a_cap_on_instances(question: str, cap: int) -> None:
    assert understand(question).max_instances == cap


def test_billing_and_part_time_hours() -> None:
    slots = understand("Qwen2.5-7B, 30 users, only 10 hours a day on weekdays, pay as you go")
    assert slots.billing == "pay-as-you-go" and slots.usage_hours is not None
    assert (slots.usage_hours.per_day, slots.usage_hours.days_per_week) == (10.0, 5.0)
    assert slots.usage_hours.per_month == round(10 * 730 / 24 * 5 / 7, 1)
    assert understand("Qwen2.5-14B，10 并发，包年包月").billing == "subscription"


def test_a_budget_per_month_in_chinese_words() -> None:
    slots = understand("预算一个月 8000 块，Qwen2.5-7B，10 个用户")
    assert (slots.budget_cny_month, slots.concurrency) == (8000.0, 10)


def test_lengths_in_chinese_numerals_and_pages() -> None:
    slots = understand("Qwen2.5-7B，提示词约 2000 个汉字，回答大约一千字，并发 10")
    assert (slots.prompt_tokens, slots.gen_tokens) == (1200, 600)
    pages = understand("每次输入一份 30 页的英文报告，生成 800 字的摘要，Llama-3.1-8B")
    assert pages.prompt_tokens == 30 * 665 and pages.gen_tokens == 480


@pytest.mark.parametrize(
    ("first", "follow", "field", "value"),
    [
        ("Serve Qwen2.5-14B to 20 users with 8k context", "what if we double the users?", "concurrency", 40),
        ("Serve Qwen2.5-14B to 20 users with 8k context", "what if traffic triples?", "concurrency", 60),
        ("Qwen2.5-14B 20 并发 8k 上下文", "上下文减半呢", "context", 4096),
        ("Qwen2.5-14B，峰值 QPS 5，上海", "流量翻倍的话呢？", "qps", 10.0),
        ("LoRA Qwen2.5-7B on 100M tokens with 4 A100", "and 3 epochs?", "train_tokens", 3e8),
    ],
)
def test_follow_up_scales_one_figure(first: str, follow: str, field: str, value: float) -> None:
    history = [Message(role="user", content=first), Message(role="assistant", content="(answer)")]
    assert getattr(read_conversation(follow, history).slots, field) == value


def test_a_model_name_before_a_full_stop() -> None:
    assert understand("We're launching a chatbot on Qwen2.5-7B. Expect 200 concurrent chats.").model == (
        "Qwen2.5-7B-Instruct"
    )


def test_samples_of_n_tokens_and_context_per_query() -> None:
    assert (
        understand("QLoRA Llama-3.1-8B on 20k examples of ~1k tokens for 3 epochs").train_tokens == 20_000 * 1_000 * 3
    )
    rag = understand("Our RAG app sends ~6k tokens of context per query and gets 300-token answers, Qwen2.5-7B")
    assert (rag.prompt_tokens, rag.gen_tokens) == (6_000, 300)
    assert understand("Qwen2.5-7B with 32k tokens of context, 10 users").context == 32_768


def test_colloquial_chinese_counts_and_budgets() -> None:
    assert understand("用千问 7B 做客服，预计同时有 100 来个人在聊").concurrency == 100
    assert understand("老板只给了每月一万的预算，想跑 Qwen2.5-14B，并发 20 左右").budget_cny_month == 10_000
    history = [
        Message(role="user", content="Qwen2.5-72B AWQ，30 并发，8k，只能用 L20"),
        Message(role="assistant", content="-"),
    ]
    assert read_conversation("并发改成 60", history).slots.concurrency == 60


@pytest.mark.parametrize(
    ("question", "per_day", "days"),
    [
        ("Qwen2.5-7B for 20 users, weekdays 9am-6pm only", 9.0, 5.0),
        ("Qwen2.5-7B，20 并发，每天早上9点到晚上6点用", 9.0, 7.0),
        ("Qwen2.5-7B，20 并发，工作日早9晚6", 9.0, 5.0),
        ("Qwen2.5-7B for 20 users, 8:00-20:00 every day", 12.0, 7.0),
        ("Qwen2.5-7B 20 users, we only need it on weekends, 10 hours a day", 10.0, 2.0),
    ],
)
def test_usage_hours_from_clock_times(question: str, per_day: float, days: float) -> None:
    hours = understand(question).usage_hours
    assert hours is not None and (hours.per_day, hours.days_per_week, hours.stated) == (per_day, days, True)


def test_office_hours_alone_are_an_assumption() -> None:
    hours = understand("Qwen2.5-7B for 20 users during office hours, monthly cost?").usage_hours
    assert hours is not None and (hours.per_day, hours.days_per_week, hours.stated) == (9.0, 5.0, False)


def test_common_misspellings_and_peak_qps() -> None:
    slots = understand("monthly cost to host llama 3.1 8b for ~25 concurent users, 8k contxt")
    assert (slots.concurrency, slots.context) == (25, 8192)
    assert understand("Qwen2.5-14B 推理，QPS 峰值 30，北京").qps == 30
    assert understand("finetune qwen2.5-7b (full) on 1B tokens").task == "full"


def test_a_role_word_right_after_a_length_names_it() -> None:
    slots = understand("Qwen2.5-14B, 20 users, 2k-token prompts and 500-token answers")
    assert (slots.prompt_tokens, slots.gen_tokens) == (2_000, 500)
