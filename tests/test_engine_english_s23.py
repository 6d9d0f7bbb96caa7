"""Verdicts, comparisons and plans in loose English (issue 8, session 23, area i8en7): the first line answers.

Every expected figure is read from the answer's own tool results, not written here.
"""

from __future__ import annotations

from typing import Any

from engine_helpers import ask, first_line

from assistant.answer import Answer


def _plans(answer: Answer) -> dict[str, dict[str, Any]]:
    return {c.args["gpu"]: c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment"}


def test_one_card_offered_as_enough_that_needs_two_is_a_no() -> None:
    answer = ask("Do I need an A100 or will an L20 do for Qwen2.5-32B-Instruct in bf16 with 4k context?")
    plans = _plans(answer)
    l20_gpus = plans["L20"]["options"][0]["total_gpus"]
    a100_gpus = plans["A100-80GB"]["options"][0]["total_gpus"]
    assert l20_gpus > 1 and a100_gpus == 1  # the catalog's cards: 44 GiB L20s against an 80 GB A100
    line = first_line(answer.text)
    assert line.startswith("**No, one L20 is not enough:**")
    assert f"{l20_gpus} of them" in line and "1 × A100" in line


def test_zh_one_card_offered_as_enough_that_needs_two_is_a_no() -> None:
    line = first_line(ask("要上 A100 还是一张 L20 就够了？跑 Qwen2.5-32B-Instruct BF16").text)
    assert line.startswith("**不够，一张 L20 放不下：**")


def test_plural_cards_offered_as_enough_stay_a_yes() -> None:
    answer = ask("Do I need an A100 or will L20s do for Qwen2.5-32B-Instruct in bf16?")
    assert first_line(answer.text).startswith("**Yes, the L20 is enough:**")


def test_can_i_run_it_or_do_i_need_bigger_is_answered_about_the_named_card() -> None:
    answer = ask("Can I run Qwen3-30B-A3B on one A10 or do I need something bigger?")
    fit = next(c.result for c in answer.tool_calls if c.name == "evaluate_hardware_fit")
    assert fit["fits"] is False  # 30.5B in BF16 against one 24 GB card
    line = first_line(answer.text)
    assert line.startswith("**No.**") and "A10" in line  # was "Yes, and it is not even enough."


def test_how_many_of_a_named_gpu_leads_with_the_count() -> None:
    answer = ask("How many A10s would it take to host Qwen2.5-72B-Instruct in 4-bit for like 15 users?")
    top = next(c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment")["options"][0]
    line = first_line(answer.text)
    assert line.startswith(f"**You need {top['instances']} × `{top['instance_type']}`**")
    assert f"{top['total_gpus']} × A10 in all" in line  # not "One A10 is not enough"


def test_zh_how_many_of_a_named_gpu_leads_with_the_count() -> None:
    answer = ask("Qwen2.5-72B AWQ 15 个并发，需要几张 A10？")
    top = next(c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment")["options"][0]
    assert first_line(answer.text).startswith(f"**需要 {top['instances']} 台 `{top['instance_type']}`**")


def test_good_enough_or_splurge_answers_about_the_side_asked_first() -> None:
    answer = ask("is an A10 good enough for Llama-3-8B-Instruct or should I splurge on an A100?")
    assert _plans(answer)["A10"]["options"][0]["total_gpus"] == 1  # 15 GiB of weights on a 24 GB card
    assert first_line(answer.text).startswith("**Yes, the A10 is enough:**")


def test_enough_but_the_other_side_is_cheaper_says_so() -> None:
    answer = ask("Is a T4 good enough for Qwen2.5-3B-Instruct or should we get an A10?")
    hourly = {gpu: plan["options"][0]["price_cny_per_hour"] for gpu, plan in _plans(answer).items()}
    line = first_line(answer.text)
    assert line.startswith("**Yes, the T4 is enough:**")
    assert hourly["A10"] < hourly["T4"] and f"But the A10 is cheaper, at ¥{hourly['A10']}/h" in line


def test_most_cost_effective_way_is_no_yes_no_question() -> None:
    answer = ask("What's the most cost-effective way to serve Qwen2.5-32B-Instruct to a dev team of 25?")
    assert not first_line(answer.text).startswith("**Yes")  # asks which, not whether
    assert "`ecs." in first_line(answer.text)


def test_what_can_i_run_on_a_card_searches_models() -> None:
    answer = ask("What can I run on a single A10?")
    assert answer.kind != "clarification"
    assert any(c.name == "largest_models_that_fit" for c in answer.tool_calls)


def test_what_can_i_run_a_model_on_is_no_yes_no_question() -> None:
    line = first_line(ask("What can I run Qwen2.5-7B-Instruct on?").text)
    assert line.startswith("**Recommended:**")  # was "**Yes:** 1 x ..."


def test_is_that_overkill_after_a_plan_answers_about_the_plan() -> None:
    answer = ask("is that overkill?", "serve Qwen2.5-14B-Instruct for 10 users, which instance?")
    assert answer.kind == "recommendation"  # was out of scope
    plan = next(c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    top = plan["options"][0]
    priced = [o["price_cny_per_hour"] for o in plan["options"] if o["price_cny_per_hour"] is not None]
    assert top["price_cny_per_hour"] == min(priced)  # the planner's pick is already the cheapest that fits
    line = first_line(answer.text)
    assert line.startswith("**No, it is not overkill:**") and top["instance_type"] in line


def test_overkill_follow_up_on_named_hardware_weighs_it() -> None:
    answer = ask("wouldn't that be overkill?", "serve Qwen2.5-7B-Instruct for 5 users on an A100")
    assert first_line(answer.text).startswith("**Yes, it is overkill.**")


def test_not_even_enough_names_what_runs_it_instead() -> None:
    answer = ask("Is a V100 still OK for Qwen2.5-7B-Instruct in 2026 or is it a waste of money?")
    fit = next(c.result for c in answer.tool_calls if c.name == "evaluate_hardware_fit")
    assert fit["fits"] is False  # 14.2 GiB of FP16 weights plus K/V against a 16 GB card
    best = next(c.result for c in answer.tool_calls
                if c.name == "plan_gpu_deployment" and "gpu" not in c.args)["options"][0]  # fmt: skip
    line = first_line(answer.text)
    assert line.startswith("**No, it is not overkill; it is not even enough.**")
    assert f"`{best['instance_type']}`" in line and f"¥{best['price_cny_per_hour']}/h" in line


def test_any_good_for_llms_is_a_serving_verdict_in_the_cards_own_precision() -> None:
    answer = ask("Is the T4 any good for running LLMs?")
    assert any(c.name == "largest_models_that_fit" for c in answer.tool_calls)  # was a quoted passage
    line = first_line(answer.text)
    assert line.startswith("**Yes for serving.** The T4 has 16 GB")
    assert "in FP16" in line and "BF16" not in line  # the T4 has no BF16


def test_zh_still_ok_for_llms_is_a_serving_verdict() -> None:
    answer = ask("T4 跑大模型还行吗？")
    assert answer.kind != "clarification"
    assert first_line(answer.text).startswith("**适合推理。** T4")


def test_a_context_window_with_no_training_word_is_a_serving_question() -> None:
    answer = ask("which gpu for Gemma-3-27B-it with 16k context")
    assert answer.kind == "recommendation"  # was "serve or fine-tune?"
    plan = next(c for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    assert plan.args["task"] == "inference" and plan.args["context"] == 16384


def test_worth_paying_for_the_80g_judges_the_80g() -> None:
    answer = ask("A100 40G vs A100 80G for Qwen2.5-32B-Instruct AWQ, 20 users — worth paying for the 80G?")
    hourly = {gpu: plan["options"][0]["price_cny_per_hour"] for gpu, plan in _plans(answer).items()}
    assert hourly["A100-80GB"] < hourly["A100-40GB"]  # the 40 GB card needs more of them for 20 users
    assert first_line(answer.text).startswith("**Yes, worth it:** the A100-80GB option")  # was "No" about the 40G


def test_a_three_way_split_names_both_sides_of_each_figure() -> None:
    answer = ask("Compare T4, A10 and L20 for Mistral-7B-Instruct-v0.3")
    line = first_line(answer.text)
    assert line.startswith("**A10 for cost, L20 for speed:**")
    assert "(A10 vs T4)" in line  # the L20 has no price: the cost figure's other side is the T4, said so


def test_cheaper_option_after_a_plan_leads_with_the_cheaper_option() -> None:
    answer = ask("cheaper option?", "qwen2.5 32b for 20 users, what do I need?")
    plans = [c for c in answer.tool_calls if c.name == "plan_gpu_deployment"]
    four = next(c.result for c in plans if c.args.get("precision") == "int4")["options"][0]
    line = first_line(answer.text)
    assert line.startswith("**Cheaper still:**") and four["instance_type"] in line


def test_zh_cheaper_after_a_plan_is_no_yes_no() -> None:
    line = first_line(ask("有便宜点的吗？", "Qwen2.5-32B 20 人用需要什么？").text)
    assert line.startswith("**更省钱的做法：**")  # was "可以。"


def test_plural_cards_get_the_plan_first_not_the_one_card_line() -> None:
    answer = ask("ok and on A10s only?", "qwen2.5 32b for 20 users, what do I need?")
    top = next(c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment")["options"][0]
    line = first_line(answer.text)
    assert top["total_gpus"] > 1 and line.startswith("**Recommended:**") and top["instance_type"] in line


def test_would_it_save_money_on_an_unpriced_card_is_not_a_plain_yes() -> None:
    answer = ask("Would going with L20s instead of A100s save us money for Qwen2.5-72B-Instruct int4?")
    assert _plans(answer)["L20"]["options"][0]["price_cny_per_hour"] is None  # no L20 list price
    assert first_line(answer.text).startswith("**Not clearly:** the L20")  # was "**Yes:** ... runs it"


def test_a_model_too_big_for_the_cards_is_a_yes_when_it_does_not_fit() -> None:
    answer = ask("Is Qwen2.5-72B-Instruct too big for 4 A10s?")
    fit = next(c.result for c in answer.tool_calls if c.name == "evaluate_hardware_fit")
    assert fit["fits"] is False  # 135 GiB of BF16 weights against 4 x 24 GB
    assert first_line(answer.text).startswith("**Yes, it does not fit.** 4 x A10")  # was "No, it is not overkill"


def test_a_model_not_too_big_is_a_no_and_hardware_too_big_stays_overkill() -> None:
    assert first_line(ask("Is Qwen2.5-7B-Instruct too big for one A10?").text).startswith("**No, it fits.**")
    assert first_line(ask("Is the A100 80GB too big for Qwen2.5-7B-Instruct?").text).startswith(
        "**Yes, it is overkill.**"
    )


def test_is_one_card_cheaper_than_another_weighs_both_prices() -> None:
    answer = ask("Is the A10 cheaper than the T4?")
    assert first_line(answer.text).startswith("**Yes.** **A10 is cheaper:**")  # was the A10's cheapest region
    zh = ask("A10 比 T4 便宜吗？")
    assert first_line(zh.text).startswith("**是的。** **A10 更便宜：**")


def test_more_expensive_is_answered_on_price_not_on_tflops() -> None:
    line = first_line(ask("Is the H20 more expensive than the A100?").text)
    assert line.startswith("**Only A100 has a list price:**")  # was "No. ... dense BF16 TFLOPS 312 vs 148"


def test_a_family_asked_about_fp8_is_answered_from_its_gpu() -> None:
    answer = ask("Can gn7i do FP8?")
    spec = next(c.result for c in answer.tool_calls if c.name == "gpu_specs")
    assert spec["supports_fp8"] is False  # the A10 (Ampere)
    assert first_line(answer.text) == "**No.** The gn7i (A10) has no native FP8 support."  # was a quoted passage
    assert len(answer.text) < 1500


def test_indian_english_nos_counts_the_cards() -> None:
    answer = ask("Kindly tell me whether 2 nos. of A10 GPU will suffice for Qwen2.5-7B-Instruct inference, 10 users.")
    fit = next(c for c in answer.tool_calls if c.name == "evaluate_hardware_fit")
    assert fit.args["gpu"] == "A10" and fit.args["gpus"] == 2  # was one A10
    line = first_line(answer.text)
    assert "2 x A10" in line and "for the 2 × A10 option" in line


def test_is_one_card_better_than_another_is_answered_per_job() -> None:
    answer = ask("Is the L20 better than the A10?")
    specs = {c.result["name"]: c.result for c in answer.tool_calls if c.name == "gpu_specs"}
    assert specs["L20"]["memory_bandwidth_gb_s"] > specs["A10"]["memory_bandwidth_gb_s"]
    assert specs["L20"]["bf16_dense_tflops"] < specs["A10"]["bf16_dense_tflops"]
    line = first_line(answer.text)
    assert line.startswith("**Yes on serving, but not on training.** **Which to pick:**")  # was "No." on TFLOPS
    assert first_line(ask("Is gn8is better than gn7i?").text).startswith("**Yes on serving, but not on training.**")


def test_overkill_vs_another_type_is_a_yes_when_the_other_holds_it() -> None:
    answer = ask("Is gn7i-c16g1.4xlarge overkill vs gn7i-c8g1.2xlarge for Qwen2.5-7B-Instruct?")
    fits = [c.result["fits"] for c in answer.tool_calls if c.name == "evaluate_hardware_fit"]
    assert fits == [True, True]  # the same A10 in both types
    assert first_line(answer.text).startswith("**Yes.** **ecs.gn7i-c8g1.2xlarge is the pick on cost:**")


def test_too_many_cards_to_split_over_is_a_yes_to_too_many() -> None:
    line = first_line(ask("Is 8 A100s too many for Qwen2.5-7B-Instruct?").text)
    assert line.startswith("**Yes, more than it can use.**") and "28 attention heads" in line  # was "**No.**"
    assert first_line(ask("Is 3 L20s enough for Qwen2.5-72B-Instruct AWQ?").text).startswith("**No.**")
