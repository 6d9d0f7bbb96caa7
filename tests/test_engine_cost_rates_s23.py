"""Cost and rates in users' words (session 23, i8cost7): rental weekends, per-user asks and costs, spoken sums.

Through the real offline engine and tools. Expected figures come from the tools' own results or from the
question's arithmetic, never from an answer's text.
"""

from __future__ import annotations

import pytest
from engine_helpers import ask, call_args, first_line, ungrounded

from assistant import render
from assistant.bad_names import unknown_region
from assistant.rental_words import find_rental_hours
from assistant.understanding import understand
from assistant.workload_numbers import spoken_chinese_amounts
from tools.plan import Plan


def _plan(answer) -> Plan:  # type: ignore[no-untyped-def]
    results = [c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment" and c.result]
    assert results, "no plan"
    return Plan.model_validate(results[0])


@pytest.mark.parametrize(
    ("text", "hours"),
    [
        ("hourly or monthly billing for a weekend test of qwen 32b?", 48.0),
        ("周末两天想测一下 Qwen2.5-32B，按量付费大概要花多少钱？", 48.0),
        ("and how much would just one weekend cost?", 48.0),
        ("we want to try qwen2.5-14b over the long weekend", 72.0),
        ("Qwen2.5-7B 在上海按量跑一个星期要多少钱？", 168.0),
        ("we only use it on weekends, qwen 7b, monthly cost?", None),  # days of the week it runs
        ("每个周末跑 Qwen2.5-7B 一个月多少钱", None),
    ],
)
def test_a_weekend_is_a_rental_of_two_days(text: str, hours: float | None) -> None:
    assert find_rental_hours(text) == hours


def test_hourly_or_monthly_for_a_weekend_leads_with_the_weekend_on_pay_as_you_go() -> None:
    q = "hourly or monthly billing for a weekend test serving qwen 32b?"
    a = ask(q)
    args = call_args(a, "plan_gpu_deployment")
    assert args["rental_hours"] == 48.0
    top = _plan(a).options[0]
    assert top.totals is not None and top.totals.payg_cny_for_rental is not None
    line = first_line(a.text)
    assert "Pay-as-you-go" in line and "48 hours" in line
    assert f"¥{render.fig(top.totals.payg_cny_for_rental)} " in line
    assert not ungrounded(a, q)


def test_a_weekend_follow_up_prices_the_earlier_workload_for_48_hours() -> None:
    first = "Qwen2.5-7B for 20 concurrent users in Hangzhou, what do I need?"
    a = ask("and how much would just one weekend cost?", first)
    args = call_args(a, "plan_gpu_deployment")
    assert args["rental_hours"] == 48.0 and args["region"] == "cn-hangzhou"
    assert "48" in first_line(a.text) and "¥" in first_line(a.text)


@pytest.mark.parametrize(
    ("question", "qps"),
    [
        # 5,000 x 20 = 100,000 a day; x3 at the peak over 86,400 s = 3.47
        ("5k DAU, each user sends ~20 messages a day, Qwen2.5-7B. how many A10s do we need?", 3.5),
        ("Our app has 3,000 daily active users and each sends around 20 messages a day. Qwen2.5-7B?", 2.1),
        # 10,000 x 15 = 150,000 a day x3 / 86,400 = 5.2
        ("日活 1 万，每人每天大概问 15 个问题，Qwen2.5-7B 要几张卡", 5.2),
        # 1,000 x 10 = 10,000 a day x3 / 86,400 = 0.35
        ("Qwen2.5-7B, 1,000 users a day, each chats 10 times, what's the monthly bill?", 0.35),
        # 200 x 10 = 2,000 a day x3 / 86,400 = 0.069
        ("200 employees, every employee asks about 10 questions per day, Qwen2.5-7B, what instance?", 0.07),
    ],
)
def test_users_times_their_daily_asks_is_the_qps(question: str, qps: float) -> None:
    a = ask(question)
    args = call_args(a, "plan_gpu_deployment")
    assert args["qps"] == pytest.approx(qps, abs=0.01)
    assert "concurrency" not in args  # the asks make the load, not everyone online at once
    assert a.kind != "error" and not ungrounded(a, question)


def test_cost_per_user_is_the_month_over_the_people_served() -> None:
    q = "What's the monthly cost per user if 200 employees use a Qwen2.5-14B assistant, ~20 online at peak?"
    a = ask(q)
    assert call_args(a, "plan_gpu_deployment")["users"] == 200
    top = next(o for o in _plan(a).options if o.totals and o.totals.cny_per_user_month is not None)
    assert top.totals is not None and top.price_cny_per_month is not None
    assert top.totals.cny_per_user_month == pytest.approx(top.price_cny_per_month / 200, abs=0.01)
    line = first_line(a.text)
    assert "per user" in line and f"¥{render.fig(top.totals.cny_per_user_month)} " in line
    assert not ungrounded(a, q)


def test_cost_per_user_in_chinese_counts_registered_users_not_those_online() -> None:
    q = "我们有 500 个注册用户，高峰大概 25 人同时在线，Qwen2.5-7B，摊到每个用户每月多少钱？"
    a = ask(q)
    args = call_args(a, "plan_gpu_deployment")
    assert args["users"] == 500 and args["concurrency"] == 25
    assert first_line(a.text).startswith("**每个用户每月约 ¥")
    assert not ungrounded(a, q)


@pytest.mark.parametrize(
    ("text", "spelled"),
    [
        ("预算一万五一个月", "预算1.5万一个月"),
        ("两万五一年", "2.5万一年"),
        ("一万五六千", "一万五六千"),
        ("预算五千一个月", "预算五千一个月"),  # 5,000 a month, not 5,100
        ("一万一", "1.1万"),
    ],
)
def test_a_spoken_sum_before_a_period_keeps_its_tail(text: str, spelled: str) -> None:
    assert spoken_chinese_amounts(text) == spelled


def test_budget_of_yi_wan_wu_a_month_is_15000() -> None:
    assert understand("预算一万五一个月，Qwen2.5-14B，20 个并发，杭州，够不够？").budget_cny_month == 15000


@pytest.mark.parametrize("text", ["A10 在哪个地域租最便宜？", "选其他区域呢", "在同一地域部署"])
def test_a_question_word_before_region_is_no_unknown_region(text: str) -> None:
    assert unknown_region(text) is None


def test_an_unknown_place_before_region_is_still_refused() -> None:
    assert unknown_region("部署在西安地域") == "西安"


def test_nine_to_six_on_weekdays_is_nine_hours_five_days() -> None:
    hours = understand("our qwen 7b helpdesk bot only needs to be up 9 to 6 on weekdays. monthly cost?").usage_hours
    assert hours is not None and hours.per_day == 9.0 and hours.days_per_week == 5.0
    assert understand("3 to 5 users, qwen 7b").usage_hours is None  # a range of people, not of hours


@pytest.mark.parametrize(
    ("question", "qps"),
    [
        # 50,000,000 / 4,096 (the default request) = 12,207 requests a day; x3 / 86,400 = 0.42
        ("每天大概 5000 万 token 的调用量（输入为主），Qwen2.5-7B，一个月要花多少钱？", 0.42),
        ("We push about 50M tokens a day through Qwen2.5-7B, what does that cost a month?", 0.42),
        # 2e9 / 4,096 / 30 days = 16,276 a day; x3 / 86,400 = 0.57
        ("2 billion tokens per month of inference on Qwen2.5-7B, cost?", 0.57),
    ],
)
def test_tokens_served_a_day_are_requests_at_the_default_length(question: str, qps: float) -> None:
    a = ask(question)
    args = call_args(a, "plan_gpu_deployment")
    assert args["task"] == "inference" and args["qps"] == pytest.approx(qps, abs=0.01)
    assert "train_tokens" not in args
    assert "¥" in first_line(a.text) and not ungrounded(a, question)


def test_training_tokens_are_still_a_training_volume() -> None:
    s = understand("Continued pretraining of Qwen2.5-7B on 10B tokens, how long on 8 A100?")
    assert s.train_tokens == 1e10 and s.qps is None


def test_an_offline_batch_with_a_deadline_in_chinese_is_a_qps() -> None:
    # 100,000 items in 12 h = 2.31 requests a second
    s = understand("离线跑 10 万条数据，每条输入 1500 token 输出 100，Qwen2.5-14B，要求 12 小时内跑完，要几张卡？")
    assert s.qps == pytest.approx(2.31) and s.task == "inference" and s.context == 1600


def test_a_training_set_with_a_deadline_is_no_qps() -> None:
    s = understand("5 万条数据 3 天内跑完 LoRA 微调 Qwen2.5-7B")
    assert s.task == "lora" and s.qps is None and s.rate is None


def test_hours_a_month_are_usage_not_a_rental_and_the_answer_says_no_invented_day() -> None:
    q = "一个月就用 100 个小时左右，Qwen2.5-32B，按量大概多少钱"
    s = understand(q)
    assert s.rental_hours is None and s.usage_hours is not None and s.usage_hours.per_month == 100
    a = ask(q)
    assert call_args(a, "plan_gpu_deployment")["hours_per_month"] == 100
    assert "每月约 100 小时" in first_line(a.text) and not ungrounded(a, q)


def test_a_million_items_written_with_m_and_two_adjectives_make_a_batch_job() -> None:
    # 1,200,000 descriptions in 72 h = 4.63 requests a second
    s = understand("Translate 1.2M product descriptions (~300 tokens in, 300 out) with Qwen2.5-7B within 3 days")
    assert s.qps == pytest.approx(4.63) and s.task == "inference"


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("We'll have a dozen analysts hammering a Qwen2.5-32B RAG bot during office hours. Monthly bill?", 12),
        ("15 lawyers using Qwen2.5-14B, cost?", 15),
    ],
)
def test_a_team_using_the_bot_is_its_concurrency(text: str, n: int) -> None:
    assert understand(text).concurrency == n


def test_a_head_count_of_thousands_using_it_is_no_concurrency() -> None:
    assert understand("we have 2,000 engineers using copilots, Qwen2.5-7B").concurrency != 2000


@pytest.mark.parametrize(
    ("first", "follow", "period_word"),
    [
        ("Qwen2.5-7B for 20 users", "what about per year?", "/year"),
        ("Qwen2.5-14B 并发 20", "那一年呢", "/年"),
    ],
)
def test_a_period_alone_after_a_plan_asks_its_cost_in_that_period(first: str, follow: str, period_word: str) -> None:
    a = ask(follow, first)
    assert a.kind == "recommendation"
    top = _plan(a).options
    assert top and period_word in first_line(a.text) and "¥" in first_line(a.text)


@pytest.mark.parametrize("follow", ["那一个周末呢", "租一个周末呢"])
def test_a_weekend_alone_after_a_plan_is_48_hours_of_it(follow: str) -> None:
    a = ask(follow, "Qwen2.5-14B 并发 20")
    args = call_args(a, "plan_gpu_deployment")
    assert args["rental_hours"] == 48.0 and args["concurrency"] == 20
    assert first_line(a.text).startswith("**用 48 小时约 ¥")


@pytest.mark.parametrize(
    ("question", "qps"),
    [
        # 3,000,000 / 512 (the default output of a request) = 5,859 requests a day; x3 / 86,400 = 0.2
        ("we burn about 3M output tokens a day on GPT-4o; what would self-hosting Qwen2.5-72B cost per month?", 0.2),
        # 2,000,000 / 512 = 3,906 a day; x3 / 86,400 = 0.14 ("输出 200 万" is no 200-token output length)
        ("每天输出 200 万 token，Qwen2.5-14B 要几张卡", 0.14),
    ],
)
def test_output_tokens_a_day_are_requests_of_the_output_length(question: str, qps: float) -> None:
    s = understand(question)
    assert s.qps == pytest.approx(qps, abs=0.01) and s.gen_tokens is None
    a = ask(question)
    assert not ungrounded(a, question)


@pytest.mark.parametrize(
    "question",
    [
        "Qwen2.5-7B 每千 token 多少钱",
        "how much would 1 million requests cost on qwen2.5-7b?",
        "每个请求多少钱？Qwen2.5-7B，QPS 2",
    ],
)
def test_a_unit_cost_question_is_answered_with_that_unit_first(question: str) -> None:
    line = first_line(ask(question).text)
    assert "¥" in line and any(w in line for w in ("百万", "千次", "thousand requests"))


def test_a_gpus_month_is_its_cheapest_types_month_in_its_cheapest_region() -> None:
    q = "A100 一个月多少钱"
    a = ask(q)
    quotes = [c.result for c in a.tool_calls if c.name == "price_of_instance" and c.result]
    assert quotes, "no quote of the cheapest type"
    month = quotes[0]["monthly"]
    assert f"¥{render.fig(month)}/月" in first_line(a.text) and quotes[0]["region"] in first_line(a.text)
    assert not ungrounded(a, q)


def test_an_unknown_spot_price_is_said_once_with_the_pay_as_you_go_one_of_that_region() -> None:
    q = "how much for a spot A10 in hangzhou?"
    a = ask(q)
    assert a.text.count("spot price") == 1
    quotes = [c.result for c in a.tool_calls if c.name == "price_of_instance" and c.result]
    assert quotes and quotes[0]["region"] == "cn-hangzhou"
    assert f"¥{render.fig(quotes[0]['hourly'])}/h" in a.text and not ungrounded(a, q)


@pytest.mark.parametrize(
    ("text", "qps", "users"),
    [
        ("about 2 requests a second on average but 10 at peak, qwen2.5-14b, size it", 10.0, None),
        ("平均 QPS 2，峰值 10，Qwen2.5-7B", 10.0, None),
        ("QPS 5, peak 30 users online, qwen 7b", 5.0, 30),  # the peak of people is a concurrency, not a QPS
    ],
)
def test_the_peak_rate_is_planned_for_not_the_average(text: str, qps: float, users: int | None) -> None:
    s = understand(text)
    assert s.qps == qps and s.concurrency == users


@pytest.mark.parametrize(
    ("question", "field", "word"),
    [
        ("一张 A100 跑 Qwen2.5-14B，一天最多能处理多少请求？", "requests_per_day", "每天"),
        ("What's our throughput in requests per hour on 2 x L20 with Qwen2.5-32B AWQ?", "requests_per_hour", "an hour"),
    ],
)
def test_a_request_rate_asked_per_hour_or_day_is_answered_in_that_period(question: str, field: str, word: str) -> None:
    a = ask(question)
    rates = [c.result for c in a.tool_calls if c.name == "requests_per_second" and c.result]
    assert rates, "requests_per_second not called"
    line = first_line(a.text)
    assert render.fig(rates[0][field]) in line and word in line and not ungrounded(a, question)


def test_per_user_as_a_follow_up_uses_the_people_of_the_earlier_turn() -> None:
    a = ask("how much per user?", "Qwen2.5-7B for 200 employees")
    assert call_args(a, "plan_gpu_deployment")["users"] == 200
    assert "per user a month" in first_line(a.text)


@pytest.mark.parametrize(
    ("text", "budget"),
    [("Can we do Qwen2.5-14B for 20 users for under 10k a month?", 10000.0), ("under 100 hours a month", None)],
)
def test_a_ceiling_on_a_months_cost_is_a_budget(text: str, budget: float | None) -> None:
    assert understand(text).budget_cny_month == budget


def test_weekday_daytime_is_office_hours_and_half_a_month_is_a_rental() -> None:
    office = understand("只在工作日白天用, Qwen2.5-7B 多少钱").usage_hours
    assert office is not None and office.per_day == 9.0 and office.days_per_week == 5.0
    assert understand("Qwen2.5-7B 跑半个月多少钱").rental_hours == 365.0  # half of a 730 h month


@pytest.mark.parametrize(
    ("question", "hours"),
    [
        ("how much would 3 days of a 8xA100 box cost?", 72.0),
        ("8 卡 A100 一天多少钱", 24.0),
        ("how much is gn7e-c16g1.16xlarge per day?", 24.0),
    ],
)
def test_hardware_priced_for_a_while_leads_with_those_hours(question: str, hours: float) -> None:
    a = ask(question)
    quotes = [c for c in a.tool_calls if c.name == "price_of_instance" and c.args.get("hours") == hours]
    assert quotes and quotes[0].result, "no quote for the hours asked"
    total = quotes[0].result["payg_for_hours"]
    assert total == pytest.approx(quotes[0].result["hourly"] * hours, abs=0.01)
    assert f"¥{render.fig(total)}" in first_line(a.text) and not ungrounded(a, question)


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("What's the cheapest way to run llama 3 70b for a couple of users?", "**The cheapest way is 4-bit"),
        ("Qwen2.5-72B 最便宜的部署方案是什么？", "**最省钱的做法是用 4 位"),
    ],
)
def test_the_cheapest_way_asked_is_the_first_line(question: str, lead: str) -> None:
    a = ask(question)
    assert first_line(a.text).startswith(lead) and not ungrounded(a, question)


def test_hours_outside_what_a_quote_covers_are_a_typed_input_error() -> None:
    from assistant.toolbox_catalog import price_of_instance
    from tools.errors import ToolInputError

    with pytest.raises(ToolInputError) as caught:
        price_of_instance("ecs.gn7i-c8g1.2xlarge", None, -3)
    assert caught.value.notes and "计价时长" in caught.value.notes[0].render("zh")
