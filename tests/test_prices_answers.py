"""Answers state a price's region, billing mode and date, in English and Chinese, with grounded numbers."""

from __future__ import annotations

from engine_helpers import shared_engine, ungrounded


def test_english_price_answer_names_region_billing_mode_and_date() -> None:
    question = "how much does ecs.gn7i-c8g1.2xlarge cost per month in cn-beijing"
    answer = shared_engine().answer(question)
    quote = next(c.result for c in answer.tool_calls if c.name == "price_of_instance")
    assert quote is not None and quote["region"] == "cn-beijing" and quote["monthly_basis"]
    text = " ".join(answer.text.split())
    assert "cn-beijing pay-as-you-go list price, CNY, as of 2024-12-30" in text
    # cn-beijing has no subscription price in the data: the monthly figure says it is 730 h of pay-as-you-go.
    assert "730 h of pay-as-you-go, not a subscription" in text
    assert ungrounded(answer, question) == []


def test_chinese_plan_answer_names_region_billing_mode_and_date() -> None:
    question = "Qwen2.5-7B 推理，8 并发，选什么实例，多少钱？"
    answer = shared_engine().answer(question)
    text = " ".join(answer.text.split())
    assert "按量付费" in text and "截至 2024-12-30" in text
    assert "cn-shanghai 按量付费目录价" in text
    assert ungrounded(answer, question) == []
