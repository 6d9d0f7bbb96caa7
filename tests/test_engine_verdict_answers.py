"""Verdict and comparison answers of the offline engine (in process), checked against its own tool results."""

from __future__ import annotations

from engine_helpers import conversation, first_line, shared_engine, ungrounded

from assistant.answer import Answer


def _ask(question: str) -> Answer:
    return shared_engine().answer(question)


def _first_line(answer: Answer) -> str:
    return first_line(answer.text)


def test_a_card_named_by_its_size_is_judged_against_the_estimate() -> None:
    question = "Is 16GB VRAM enough for Qwen2.5-7B?"
    answer = _ask(question)
    [est] = [c.result for c in answer.tool_calls if c.name == "estimate_gpu_memory"]
    assert isinstance(est, dict)
    assert est["per_gpu_total_gib"] > 16  # more than the whole card, so certainly more than its usable part
    assert _first_line(answer).startswith("**No") and "16 GB" in _first_line(answer)
    assert not ungrounded(answer, question)


def test_a_card_is_judged_by_what_it_leaves_usable_not_its_nominal_size() -> None:
    answer = _ask("does Qwen2.5-72B AWQ fit in 48GB?")
    [est] = [c.result for c in answer.tool_calls if c.name == "estimate_gpu_memory"]
    assert isinstance(est, dict) and 40 < est["per_gpu_total_gib"] < 48  # under 48 nominal, over what serving may use
    assert _first_line(answer).startswith("**No")  # Qwen measured 48.86 GB for a 72B Int4 model


def test_the_card_named_last_is_the_one_judged() -> None:
    answer = _ask("7B 模型要 14G 显存，那 16G 的卡就够了吧？")
    assert "16 GB" in _first_line(answer) and "14 GB" not in _first_line(answer)


def test_a_gpu_written_with_its_memory_is_one_card() -> None:
    answer = _ask("A10 24G 能跑 70B 量化吗")
    fits = [c for c in answer.tool_calls if c.name == "evaluate_hardware_fit"]
    assert fits and (fits[0].args["gpu"], fits[0].args["gpus"]) == ("A10", 1)
    assert fits[0].result["fits"] is False and _first_line(answer).startswith("**放不下")


def test_instance_types_without_a_workload_name_the_cheaper_one_first() -> None:
    answer = _ask("ecs.gn7i-c8g1.2xlarge or ecs.gn7i-c16g1.4xlarge?")
    prices = {c.args["instance_type"]: c.result["hourly"] for c in answer.tool_calls if c.name == "price_of_instance"}
    assert len(prices) == 2
    assert min(prices, key=lambda k: prices[k]) in _first_line(answer)


def test_a_which_is_faster_question_names_the_gpu_with_the_higher_figure() -> None:
    answer = _ask("H800 训练比 A100 快多少")
    specs = {c.result["name"]: c.result for c in answer.tool_calls if c.name == "gpu_specs" and c.result}
    fastest = max(specs.values(), key=lambda g: g["bf16_dense_tflops"] or 0)
    assert _first_line(answer).startswith(f"**{fastest['name']}")


def test_a_stated_memory_figure_is_answered_against_the_weights_and_the_total() -> None:
    question = "Qwen2.5-7B needs only 8GB in fp16, right?"
    answer = _ask(question)
    [est] = [c.result for c in answer.tool_calls if c.name == "estimate_gpu_memory"]
    assert isinstance(est, dict) and est["per_gpu"]["weights_gib"] * 2**30 > 8e9  # 7.6B x 2 bytes > 8 GB
    assert _first_line(answer).startswith("**No") and not ungrounded(answer, question)


def test_a_follow_up_to_a_comparison_keeps_both_sides_and_changes_one_thing() -> None:
    first = "Qwen2.5-72B AWQ: 4x L20 or 2x H20, which is better for 16 users?"
    answer = shared_engine().answer("and for 64 users?", conversation(first))
    fits = [c.args for c in answer.tool_calls if c.name == "evaluate_hardware_fit"]
    assert [(a["gpu"], a["gpus"]) for a in fits] == [("L20", 4), ("H20", 2)]
    assert {a["concurrency"] for a in fits} == {64} and {a["quant"] for a in fits} == {"awq-int4"}


def test_a_price_question_says_first_which_side_has_no_list_price() -> None:
    answer = _ask("Which is cheaper to run Qwen2.5-32B AWQ: gn7i or gn8is?")
    plans = {c.args["gpu"]: c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment"}
    priced = [g for g, p in plans.items() if any(o["price_cny_per_hour"] for o in p["options"])]
    unpriced = [g for g in plans if g not in priced]
    assert len(priced) == 1 and unpriced  # the catalog lists A10 prices, not L20 ones
    assert priced[0] in _first_line(answer) and all(g in _first_line(answer) for g in unpriced)


def test_a_size_in_an_article_claim_is_answered_with_a_model_of_that_size() -> None:
    answer = _ask("文章说 13B 以下的模型 A10 单卡可以训练，对吗？")
    fits = {c.args["task"]: c.result for c in answer.tool_calls if c.name == "evaluate_hardware_fit"}
    assert set(fits) == {"full", "lora", "qlora"} and {
        c.args["gpus"] for c in answer.tool_calls if c.name == "evaluate_hardware_fit"
    } == {1}
    assert not fits["full"]["fits"] and _first_line(answer).startswith("**全参微调")
    assert "同规模的代表模型" in answer.text


def test_a_made_up_instance_type_in_a_verdict_is_still_called_out() -> None:
    answer = _ask("文章说 Qwen-7B 训练用 ecs.ebmgn7i.24xlarge (A100 80G) 1~4 卡，合适吗？")
    assert "`ecs.ebmgn7i.24xlarge` 这个规格不存在" in answer.text


def test_instance_types_are_compared_with_their_own_counts_and_listed_prices() -> None:
    question = "What's better value for Qwen2.5-72B AWQ serving: one gn7e-c16g1.4xlarge or two gn7i-c32g1.16xlarge?"
    answer = _ask(question)
    fits = {
        c.args["instance_type"]: c.args["instances"] for c in answer.tool_calls if c.name == "evaluate_hardware_fit"
    }
    assert fits == {"ecs.gn7e-c16g1.4xlarge": 1, "ecs.gn7i-c32g1.16xlarge": 2}
    hourly = {c.args["instance_type"]: c.result["hourly"] for c in answer.tool_calls if c.name == "price_of_instance"}
    cheaper = min(fits, key=lambda t: hourly[t] * fits[t])
    assert cheaper in _first_line(answer) and not ungrounded(answer, question)


def test_fine_tuning_on_a_gpu_without_a_method_plans_each_method_on_that_gpu() -> None:
    answer = _ask("A10 适合微调 Qwen2.5-72B 吗？")
    plans = {c.args["task"]: c.result for c in answer.tool_calls if c.name == "plan_gpu_deployment"}
    assert set(plans) == {"full", "lora", "qlora"}
    assert all(c.args["gpu"] == "A10" for c in answer.tool_calls if c.name == "plan_gpu_deployment")
    fewest = min(p["options"][0]["total_gpus"] for p in plans.values() if p["options"])
    assert fewest > 1 and _first_line(answer).startswith("**可以，但一张不够") and str(fewest) in _first_line(answer)
