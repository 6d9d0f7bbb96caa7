"""The first line answers the question's form (issue 8, i8form): a yes/no question is answered yes or no first.

The reading of the form is checked on its own (a table of phrasings); the engine's leads are checked against the
typed outcomes recorded in the answer's own tool calls (the model's context limit, the 6·N·D hours, the price,
the planned decode speed), never against a copy of the engine's text.
"""

from __future__ import annotations

import pytest
from engine_helpers import conversation, first_line, shared_engine, ungrounded

from assistant.answer import Answer
from assistant.form_leads import lead_verdict
from assistant.question_form import read_form


def _ask(question: str, *history: str) -> Answer:
    return shared_engine().answer(question, conversation(*history) if history else [])


def _result(answer: Answer, tool: str) -> dict:  # type: ignore[type-arg]
    found = [c.result for c in answer.tool_calls if c.name == tool and isinstance(c.result, dict)]
    assert found, f"{tool} not called: {[c.name for c in answer.tool_calls]}"
    return found[-1]


@pytest.mark.parametrize(
    ("question", "form"),
    [
        ("50 个人同时用 Qwen2.5-32B-AWQ，一张 L20 扛得住不", "yes_no"),
        ("想在 gn6v 上 LoRA 一个 7B，靠谱不", "yes_no"),
        ("3 张 L20 跑 72B int4，稳不稳", "yes_no"),
        ("两天之内训完，来得及吗", "yes_no"),
        ("Any chance Qwen2.5-72B squeezes onto one A100?", "yes_no"),
        ("our intern says one 4090 is plenty. true?", "yes_no"),
        ("I'm thinking of 32B on one A100 for 20 users. viable?", "yes_no"),
        ("H20 vs A100 for 72B, which gives more headroom?", "which"),
        ("一台 gn7e-c16g1.4xlarge 在北京按量一个月多少钱", "how_much"),
        ("how long would a LoRA of 7B on 100M tokens take on one A100?", "how_long"),
        ("一张 A10 跑 7B，最多能同时接多少人", "how_many"),
        ("Qwen3-32B 推理，30 并发，该租哪个实例", "what_to_rent"),
        ("Continued pretraining of an 8B on 20B tokens, how many days and what will it cost?", "how_long"),
    ],
)
def test_the_form_is_read_from_the_words_that_make_a_question(question: str, form: str) -> None:
    assert read_form(question).form == form


def test_deadline_amount_and_speed_are_read_in_both_languages() -> None:
    assert read_form("Can I finish it within 24 hours on 2x L20?").deadline_hours == 24
    assert read_form("两天之内要训完，来得及吗").deadline_hours == 48
    assert read_form("一台 gn7i 包月 3000 块能拿下吗").amount_cny == 3000
    assert read_form("Is a budget of 20k RMB a month enough?").amount_cny == 20_000
    speed = read_form("Will one A10 give at least 30 tokens/s per user?")
    assert speed.speed_tokens_s == 30 and not speed.speed_total
    assert read_form("一张 L20 能到每秒 50 个 token 吗").speed_tokens_s == 50


def test_a_context_beyond_the_models_limit_is_a_no_whatever_the_gpu() -> None:
    answer = _ask("Llama-3-8B 想喂 32k 的长文档，单卡 A100 撑得住吗")
    card = _result(answer, "model_card")
    assert card["max_context"] < 32_000  # the model reads fewer tokens than asked
    assert lead_verdict(answer.text) == "no" and str(card["max_context"]) in first_line(answer.text)


def test_a_run_longer_than_the_deadline_is_a_no_even_when_it_fits() -> None:
    question = "Can I finish a LoRA run on Qwen2.5-14B over 500M tokens within 24 hours on 2x L20?"
    answer = _ask(question)
    assert _result(answer, "evaluate_hardware_fit")["fits"] is True
    named, *faster = [c.result for c in answer.tool_calls if c.name == "training_run" and isinstance(c.result, dict)]
    assert named["gpus"] == 2 and named["hours"] > 24
    assert faster and faster[-1]["hours"] <= 24 and f"{faster[-1]['gpus']} x L20" in answer.text  # a set in time
    assert first_line(answer.text).startswith("**No") and not ungrounded(answer, question)


def test_a_price_above_the_amount_asked_about_is_a_no() -> None:
    answer = _ask("一台 gn7i-c8g1.2xlarge 包月 3000 块能拿下吗")
    quote = _result(answer, "price_of_instance")
    assert (quote["subscription_monthly"] or quote["monthly"]) > 3000
    assert lead_verdict(answer.text) == "no"


def test_money_for_named_hardware_needs_no_model() -> None:
    answer = _ask("Is 500 RMB a month enough for a T4 instance?")
    assert answer.kind != "clarification"
    quote = _result(answer, "price_of_instance")
    assert (quote["subscription_monthly"] or quote["monthly"]) > 500 and first_line(answer.text).startswith("**No")


def test_stock_in_a_region_is_answered_from_the_price_list() -> None:
    answer = _ask("杭州能买到 H20 的机器吗")
    found = _result(answer, "cheapest_region_for_gpu")
    listed = {r["region"] for o in found["options"] for r in o["regions"]}
    assert "cn-hangzhou" not in listed and lead_verdict(answer.text) == "no"


def test_a_speed_target_is_judged_by_the_planned_decode_speed() -> None:
    answer = _ask("一张 L20 跑 Qwen2.5-14B 能到每秒 50 个 token 吗")
    plans = [c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment" and c.result]
    one_l20 = [o for p in plans for o in p["options"] if o["total_gpus"] == 1 and o["gpu_model"] == "L20"]
    speeds = [o["decode_tokens_per_s_per_stream"] for o in one_l20]
    # The target is a constraint of the plan: one L20 too slow is turned away with the speed it reaches.
    reasons = [r["reason"] for p in plans for r in p["rejected"]]
    slow = [reason["values"] for reason in reasons if reason["code"] == "reject.speed_per_stream"]
    speeds += [v["reached"] for v in slow if v["gpus"] == 1 and v["target"] == 50]
    assert speeds and max(speeds) < 50
    assert lead_verdict(answer.text) == "no"


def test_worth_it_is_no_when_a_cheaper_option_holds_the_load() -> None:
    answer = _ask("is it worth going H800 for serving a 7B model to 5 users?")
    assert _result(answer, "evaluate_hardware_fit")["fits"] is True
    assert lead_verdict(answer.text) == "no"


def test_hardware_stated_before_the_model_is_the_hardware_judged() -> None:
    answer = _ask("跑 Qwen2.5-72B BF16 够吗", "我们现在有 4 张 L20")
    fit = _result(answer, "evaluate_hardware_fit")
    assert (fit["hardware"]["gpu"], fit["hardware"]["gpus"]) == ("L20", 4)
    assert lead_verdict(answer.text) == ("yes" if fit["fits"] else "no")


def test_a_bare_follow_up_keeps_the_yes_no_form() -> None:
    answer = _ask("and with 40 users?", "Can one L20 serve Qwen2.5-32B-Instruct AWQ for 8 users at 8k context?")
    fit = _result(answer, "evaluate_hardware_fit")
    assert fit["fits"] is False and lead_verdict(answer.text) == "no"


def test_a_gpu_count_that_cannot_split_the_heads_is_a_no() -> None:
    answer = _ask("3 张 L20 跑 Qwen2.5-72B int4，32k 上下文，16 个并发，稳不稳")
    heads = _result(answer, "model_card")["num_attention_heads"]
    assert heads % 3 != 0 and first_line(answer.text).startswith("**不行")
