"""What new users said in the session-22 mixed pass, honoured by the offline engine (real engine, hashing index)."""

from __future__ import annotations

import pytest

from assistant.understanding import understand
from tests.engine_helpers import ask, first_line


@pytest.mark.parametrize(
    ("text", "users"),
    [
        ("想在阿里云上部署 GLM-4-9B 做内部知识库问答，50 人用，推荐配置", 50),
        ("Qwen2.5-7B，三十人使用，什么实例", 30),
    ],
)
def test_a_team_sized_clause_is_its_users(text: str, users: int) -> None:
    assert understand(text).concurrency == users


@pytest.mark.parametrize(
    ("text", "daily"),
    [
        ("Qwen2.5-7B 每天 3000 人用，什么实例", 3000),
        ("Our app has 3,000 users a day on Qwen2.5-7B, which instance?", 3000),
        ("一天有 2万 用户访问，Qwen2.5-14B 怎么配", 20000),
    ],
)
def test_users_per_day_are_daily_users(text: str, daily: float) -> None:
    slots = understand(text)
    assert slots.daily_users is not None and slots.daily_users.users == daily


def test_daily_users_are_served_without_asking_serve_or_train() -> None:
    answer = ask("Qwen2.5-7B 每天 3000 人用，什么实例")
    assert answer.kind == "recommendation"
    assert any(c.name == "plan_gpu_deployment" for c in answer.tool_calls)


@pytest.mark.parametrize(
    "question",
    [
        "Qwen2.5-7B with a 50 million token context window, how much VRAM?",
        "Qwen2.5-7B with a 1M token context, how much VRAM?",
    ],
)
def test_a_context_beyond_the_models_window_is_refused_with_it(question: str) -> None:
    answer = ask(question)
    assert answer.kind == "error"
    assert "32,768" in first_line(answer.text)
    assert "Traceback" not in answer.text and "Input should be" not in answer.text


def test_a_context_within_the_window_is_estimated_as_serving() -> None:
    answer = ask("Qwen2.5-7B with 32k context, how much VRAM?")
    assert answer.kind == "estimate"
    call = next(c for c in answer.tool_calls if c.name == "estimate_gpu_memory")
    assert call.args["task"] == "inference" and call.args["prompt_tokens"] + call.args["gen_tokens"] == 32768


def test_a_year_asked_gives_pay_as_you_go_and_the_subscription_year() -> None:
    answer = ask("Qwen2.5-72B 私有化部署，20 个并发，按年算大概要多少钱")
    lead = first_line(answer.text)
    assert "/年" in lead and "包月连续一年" in lead


def test_an_unpriced_gpu_count_names_its_types_and_a_price_to_go_by() -> None:
    answer = ask("How much is an 8x L20 box per hour?")
    assert "ecs.gn8is-8x.32xlarge" in answer.text
    near = next(c for c in answer.tool_calls if c.name == "nearest_known_price")
    assert near.args["instance_type"] == "ecs.gn8is-8x.32xlarge"
    assert "Nearest known price" in answer.text


def test_a_budget_too_small_for_a_month_buys_hours_of_the_cheapest_type() -> None:
    from tools.model_search import largest_models_within_budget

    found = largest_models_within_budget(budget_cny_month=2000, family="Qwen")
    assert found.search is None and found.part_time is not None
    part = found.part_time
    assert part.quote.hourly is not None and part.hours_per_month == int(2000 / part.quote.hourly)
    answer = ask("I have about 2000 yuan a month. What's the biggest Qwen model I can host for myself?")
    lead = first_line(answer.text)
    assert part.quote.instance_type in lead and "Qwen" in lead and "hours a month" in lead


def test_named_hardware_that_holds_the_model_but_not_the_stated_rate_is_a_no() -> None:
    answer = ask("Our RAG bot gets maybe 2 req/s at peak with 6k-token prompts. Qwen2.5-14B. Enough with one L20?")
    rate = next(c for c in answer.tool_calls if c.name == "requests_per_second")
    assert rate.result["requests_per_s"] < 2
    lead = first_line(answer.text)
    assert lead.startswith("**No") and "2 requests/s" in lead and "ecs.gn8is" in lead


def test_named_hardware_that_keeps_up_says_so_after_the_fit() -> None:
    answer = ask("一张 A10 够不够 Qwen2.5-7B，每秒 0.5 个请求，输入 1000 token")
    rate = next(c for c in answer.tool_calls if c.name == "requests_per_second")
    assert rate.result["requests_per_s"] >= 0.5
    assert "跟得上" in answer.text and not first_line(answer.text).startswith("**不够")


def test_a_few_person_startup_is_its_users() -> None:
    text = "we're a 3-person startup, want to self-host a coding assistant (qwen2.5-coder-32b) for the team"
    assert understand(text).concurrency == 3


def test_a_training_time_under_a_day_shows_days_rounded() -> None:
    answer = ask("How long would it take to LoRA qwen2.5-14b on 1M tokens with a single A100?")
    assert "0.0082 days" in answer.text and "0.00821" not in answer.text


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        ("Train a 1.5B model from scratch on 30 billion tokens, budget ¥100k, feasible?", "**Yes, ¥100,000 covers"),
        ("预训练 Qwen2.5-7B，1T token，预算 50 万，够不够", "**不够。**"),
    ],
)
def test_a_training_budget_is_for_the_run_and_answers_first(question: str, opening: str) -> None:
    slots = understand(question)
    assert slots.job_budget_cny and slots.budget_cny_month is None
    answer = ask(question)
    assert first_line(answer.text).startswith(opening)
    plan = next(c for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    assert "budget_cny_month" not in plan.args  # a monthly filter would drop runs the budget covers


def test_a_monthly_training_budget_stays_monthly() -> None:
    slots = understand("LoRA Qwen2.5-7B on 10M tokens, budget 5000 a month")
    assert slots.budget_cny_month == 5000 and slots.job_budget_cny is None


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Fine-tune Llama-3.1-8B with LoRA on 250k chat turns, roughly 800 tokens each, for 2 epochs", 4e8),
        ("DPO on Qwen2.5-7B with 20k preference pairs, 1k tokens each", 2e7),
    ],
)
def test_more_sample_nouns_count_a_training_set(text: str, tokens: float) -> None:
    assert understand(text).train_tokens == tokens


def test_items_a_day_are_a_rate_not_a_training_set() -> None:
    assert understand("we get 5k questions a day, Qwen2.5-7B").samples is None


def test_preference_tuning_is_training_without_a_method() -> None:
    slots = understand("DPO on Qwen2.5-7B with 20k preference pairs, what GPUs?")
    assert slots.task is None and slots.task_hint == "finetune"


@pytest.mark.parametrize(
    ("question", "gpu"),
    [
        ("继续预训练 Qwen2.5-32B，语料 20B token，用 H800 大概要多少卡多少天", "H800"),
        ("Serve Llama-3.1-70B on H100s for 50 users, how many?", "H100"),
    ],
)
def test_a_gpu_no_type_carries_is_said_first_then_planned_on_what_is_offered(question: str, gpu: str) -> None:
    answer = ask(question)
    assert gpu in first_line(answer.text)
    wider = [c for c in answer.tool_calls if c.name == "plan_gpu_deployment" and "gpu" not in c.args]
    assert wider and wider[0].result["options"]
    assert wider[0].result["options"][0]["instance_type"] in answer.text


@pytest.mark.parametrize(
    ("text", "qps", "per"),
    [
        ("We process 2 million customer emails a month through Qwen2.5-7B, ~400 tokens in, 10 out", 2.31, "month"),
        ("Expect 50k API calls per day on Qwen2.5-32B, average 1500 input tokens. Sizing?", 1.7, "day"),
    ],
)
def test_items_sent_to_the_model_per_period_are_requests(text: str, qps: float, per: str) -> None:
    slots = understand(text)
    assert slots.qps == qps and slots.rate is not None and slots.rate.per == per and slots.task == "inference"


def test_a_pair_of_bare_in_out_lengths_is_read() -> None:
    slots = understand("how much would it cost per 1000 requests on qwen2.5-14b, 2k in 500 out?")
    assert (slots.prompt_tokens, slots.gen_tokens) == (2000, 500)
    assert understand("we have 2k users in Beijing, qwen2.5-7b").prompt_tokens is None


def test_a_batch_job_with_a_deadline_is_planned_at_the_rate_it_needs() -> None:
    question = "Batch job: summarize 1 million documents of 3k tokens each with Qwen2.5-7B within 48 hours. GPUs?"
    slots = understand(question)
    assert slots.task == "inference" and slots.train_tokens is None and slots.prompt_tokens == 3000
    assert slots.qps == round(1e6 / (48 * 3600), 2)
    answer = ask(question)
    plan = next(c for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    assert plan.args["qps"] == slots.qps and plan.args["context"] == 3000 + plan.args["gen_tokens"]


def test_training_with_a_deadline_stays_training() -> None:
    slots = understand("LoRA on 50k samples of 1k tokens within 2 days, qwen2.5-7b")
    assert slots.task == "lora" and slots.train_tokens == 5e7 and slots.qps is None


@pytest.mark.parametrize("follow_up", ["and with 4?", "what about 4 of them?"])
def test_a_bare_count_after_a_training_time_on_named_gpus_is_the_gpu_count(follow_up: str) -> None:
    answer = ask(follow_up, "LoRA Qwen2.5-7B on 20M tokens", "how long on 2 A100s?")
    run = next(c for c in answer.tool_calls if c.name == "training_run")
    assert run.args["gpus"] == 4 and run.args["tokens"] == 2e7
    assert first_line(answer.text).startswith("**Training time:**")


@pytest.mark.parametrize(
    "question",
    ["I want a chatbot like ChatGPT for my company of 200 people. What do I need?",
     "想做一个类似 ChatGPT 的内部助手，用 Qwen2.5-14B，30 人用"],
)
def test_a_product_like_a_closed_model_is_not_a_closed_model_to_deploy(question: str) -> None:
    assert understand(question).reach is None
    assert ask(question).kind in ("clarification", "recommendation")


def test_a_closed_model_itself_is_still_refused() -> None:
    assert ask("Can I self-host ChatGPT?").kind == "out_of_scope"


@pytest.mark.parametrize(
    ("follow_up", "gpu"),
    [("can we use A10s only?", "A10"), ("how does the T4 compare?", "T4"), ("只用 A10 行不行", "A10")],
)
def test_hardware_named_after_a_workload_is_that_workload_on_it(follow_up: str, gpu: str) -> None:
    answer = ask(follow_up, "Qwen2.5-14B-Instruct for 20 users, which instance?")
    plans = [c for c in answer.tool_calls if c.name == "plan_gpu_deployment"]
    assert any(c.args.get("gpu") == gpu and c.args.get("concurrency") == 20 for c in plans)


def test_audio_hours_a_month_are_spread_over_the_month() -> None:
    answer = ask("We need Whisper large-v3 to transcribe 1000 hours of audio a month. Which instance?")
    plan = next(c for c in answer.tool_calls if c.name == "plan_media_deployment")
    assert plan.args["within_hours"] == 720 and plan.args["audio_hours"] == 1000


@pytest.mark.parametrize(("text", "region"), [("East China 1", "cn-hangzhou"), ("China North 2", "cn-beijing")])
def test_the_numbered_region_names_in_english_are_read(text: str, region: str) -> None:
    assert understand(f"Qwen2.5-7B in {text}, 10 users").region == region


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        ("would it be crazy to run Qwen2.5-72B on one A10?", "**Yes"),
        ("would it be crazy to use an A100 for qwen2.5-7b?", "**It works, but"),
    ],
)
def test_dumb_or_crazy_asks_whether_it_is_a_bad_choice(question: str, opening: str) -> None:
    assert first_line(ask(question).text).startswith(opening)


def test_an_unpriced_recommendation_still_leads_with_the_count_then_the_nearest_price() -> None:
    answer = ask("DeepSeek-V3 in FP8 — how many H20s and what does it cost?")
    lead = first_line(answer.text)
    assert lead.startswith(("**Recommended:**", "**You need 1 ×")) and "H20" in lead
    assert "Nearest known price" in answer.text and answer.text.count("no known price") == 0


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        ("We run Qwen2.5-32B on 4 A10s today. Would moving to 1 A100 save money?", "**Yes on cost"),
        ("我们现在用 4 张 A10 跑 Qwen2.5-32B，换成 1 张 A100 能省钱吗", "**是的。**"),
    ],
)
def test_a_switch_asks_about_the_side_switched_to(question: str, opening: str) -> None:
    answer = ask(question)
    assert first_line(answer.text).startswith(opening) and "A100" in first_line(answer.text)


@pytest.mark.parametrize("question", ["How much memory does a 1 trillion parameter model need in FP8?",
                                      "一个 1 万亿参数的模型 FP8 推理要多少显存"])
def test_a_trillion_parameter_size_is_read_and_spread_over_gpus(question: str) -> None:
    assert understand(question).size_b == 1000
    answer = ask(question)
    est = next(c for c in answer.tool_calls if c.name == "estimate_gpu_memory")
    plan = next(c for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    assert est.args["model"] == "Kimi-K2-Instruct" and plan.result["options"]
    assert plan.result["options"][0]["instance_type"] in answer.text


def test_a_trillion_training_tokens_are_no_model_size() -> None:
    slots = understand("pretrain on 1T tokens")
    assert slots.size_b is None and slots.train_tokens == 1e12


@pytest.mark.parametrize(
    ("question", "opening"),
    [
        ("Is Hong Kong more expensive than Shanghai for an A10 box?", "**Yes.**"),
        ("Is an A10 box cheaper in Singapore than in Hangzhou?", "**No.**"),
        ("A10 在香港比上海贵吗", "**是的。**"),
    ],
)
def test_a_yes_no_between_two_regions_is_answered_yes_or_no(question: str, opening: str) -> None:
    answer = ask(question)
    assert first_line(answer.text).startswith(opening)
    assert sum(c.name == "price_of_instance" for c in answer.tool_calls) >= 2
