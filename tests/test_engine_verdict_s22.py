"""Verdicts of session 22: value and cheapest questions, deadlines met, a GPU's fitness for a job, either-or.

Each answer is checked against the engine's own tool results (the figures that decide the yes or no), through
the real engine with the hashing embedder.
"""

from __future__ import annotations

import pytest
from engine_helpers import ask, first_line, ungrounded

from assistant.question_form import read_form


def _plans(answer):  # noqa: ANN001, ANN202 - the tool results as the engine returned them
    return [c for c in answer.tool_calls if c.name == "plan_gpu_deployment" and isinstance(c.result, dict)]


@pytest.mark.parametrize(
    ("question", "head"),
    [
        ("Is gn6v still worth it in 2026 for serving Qwen2.5-7B-Instruct to a small team?", "**No, not worth it.**"),
        ("用 gn7e（A100 80G）给 10 个同事跑 Qwen2.5-7B，划算吗？", "**不划算。**"),
        ("Is a T4 the cheapest way to run Qwen2.5-3B by the hour?", "**No, it is not the cheapest.**"),
    ],
)
def test_a_value_question_is_no_when_a_cheaper_option_holds_the_load(question: str, head: str) -> None:
    answer = ask(question)
    line = first_line(answer.text)
    assert line.startswith(head)
    # the cheaper option is on the same line, and the planner priced it below the hardware asked about
    best = next(p.result["options"][0] for p in _plans(answer) if not p.args.get("gpu"))
    assert f"`{best['instance_type']}`" in line
    asked = [o["price_cny_per_hour"] for p in _plans(answer) if p.args.get("gpu") for o in p.result["options"]]
    assert best["price_cny_per_hour"] < min(p for p in asked if p)
    assert not ungrounded(answer, question)


def test_a_deadline_met_leads_with_the_hours_of_the_run() -> None:
    question = "Can we finish a full fine-tune of Qwen2.5-7B on 500M tokens within one day on 8x A100 80GB?"
    answer = ask(question)
    [run] = [c.result for c in answer.tool_calls if c.name == "training_run"]
    assert run["hours"] < 24
    line = first_line(answer.text)
    assert line.startswith("**Yes, in time:**") and f"{run['hours']:.2f}" in line and "one day" in line
    assert not ungrounded(answer, question)


def test_hours_written_beside_overnight_are_the_deadline() -> None:
    assert read_form("Could I finish it overnight (12 hours) on one A10?").deadline_hours == 12
    assert read_form("Could I finish it overnight on one A10?").deadline_hours == 24


@pytest.mark.parametrize(
    ("question", "head", "verdict_of"),
    [
        ("Is the L20 any good for training?", "**Yes for fine-tuning, but not for large-scale training.**", "L20"),
        ("L20 适合做训练吗？", "**适合微调，但不适合大规模训练。**", "L20"),
        ("Is the H20 a sensible pick for pretraining, compute-wise?", "**No, not for pretraining.**", "H20"),
        ("Is the A100 good for training?", "**Yes.**", "A100-80GB"),
        ("Is the T4 good for fine-tuning?", "**Not a good training card.**", "T4"),
    ],
)
def test_a_gpu_is_judged_for_training_by_its_compute_without_asking_for_a_model(
    question: str, head: str, verdict_of: str
) -> None:
    answer = ask(question)
    assert answer.kind == "guidance"
    line = first_line(answer.text)
    assert line.startswith(head)
    specs = {c.result["name"]: c.result for c in answer.tool_calls if c.name == "gpu_specs" and c.result}
    tflops = specs[verdict_of]["bf16_dense_tflops"] if specs[verdict_of]["supports_bf16"] else None
    if tflops:  # the deciding figure: its dense BF16 compute, against the strongest trainer's when it is weak
        assert f"{tflops:g}" in line
        weaker = [g for g in specs.values() if g["name"] != verdict_of]
        assert all(f"{g['bf16_dense_tflops']:g}" in line for g in weaker if g["bf16_dense_tflops"] >= 2 * tflops)
    assert not ungrounded(answer, question)


def test_a_gpu_is_judged_for_serving_by_the_largest_model_one_card_holds() -> None:
    question = "H20 适合推理吗？"
    answer = ask(question)
    [search] = [c.result for c in answer.tool_calls if c.name == "largest_models_that_fit"]
    bf16 = next(r["largest"] for r in search["results"] if r["weights"] == "bf16")
    line = first_line(answer.text)
    assert line.startswith("**适合推理。**") and bf16["model"] in line
    assert not ungrounded(answer, question)


def test_a_yes_no_then_or_question_is_answered_about_the_side_asked_first() -> None:
    answer = ask("gn7i 跑 Qwen2.5-7B 划算吗，还是 T4 更省钱？")
    line = first_line(answer.text)
    assert line.startswith("**是的。**") and "gn7i" in line


def test_a_gpu_that_needs_many_cards_names_the_option_on_fewer_for_no_more() -> None:
    question = "我们做企业知识库 RAG，用 Qwen2.5-14B-Instruct，8 个并发 16k 上下文，A10 是好选择吗？"
    answer = ask(question)
    line = first_line(answer.text)
    own = next(p.result["options"][0] for p in _plans(answer) if p.args.get("gpu") == "A10")
    best = next(p.result["options"][0] for p in _plans(answer) if not p.args.get("gpu"))
    assert own["total_gpus"] > best["total_gpus"] and best["price_cny_per_hour"] <= own["price_cny_per_hour"]
    assert f"`{best['instance_type']}`" in line
    assert not ungrounded(answer, question)


@pytest.mark.parametrize(
    ("question", "head", "gpu"),
    [
        ("Is gn6v still worth it?", "**No, not for the money.**", "V100-16GB"),
        ("Is the T4 still worth renting?", "**Yes, if 16 GB per GPU is enough:**", "T4"),
        ("Is the A100 still worth it in 2026?", "**Yes.**", "A100-80GB"),
        ("gn6i 还值得买吗？", "**可以，但要看每卡 16 GB 够不够。**", "T4"),
    ],
)
def test_a_gpu_or_family_is_worth_it_unless_one_with_as_much_memory_costs_less(
    question: str, head: str, gpu: str
) -> None:
    answer = ask(question)
    line = first_line(answer.text)
    assert line.startswith(head)
    [lineup] = [c.result for c in answer.tool_calls if c.name == "gpu_lineup"]
    rows = {r["gpu"]: r for r in lineup["rows"]}
    mine = rows[gpu]
    assert f"{mine['cny_per_gpu_hour']:g}" in line and f"`{mine['cheapest_instance_type']}`" in line
    if head.startswith("**No"):  # the GPU named against it has at least as much memory for less
        other = next(r for name, r in rows.items() if name != gpu and f"the {name} has" in line)
        assert other["memory_gib"] >= mine["memory_gib"] and other["cny_per_gpu_hour"] < mine["cny_per_gpu_hour"]
    assert not ungrounded(answer, question)


def test_an_unpriced_gpu_asked_for_value_says_what_it_holds_and_that_no_price_judges_it() -> None:
    answer = ask("L20 值得买吗？")
    line = first_line(answer.text)
    assert line.startswith("**适合推理。**") and "价格表里没有 L20 的价格" in line


def test_a_monthly_sum_written_after_the_month_is_the_budget_and_a_budget_verdict_assumes_serving() -> None:
    answer = ask("每月一万块够不够跑 Qwen2.5-32B，20 个人用")
    assert first_line(answer.text).startswith("**不够。**") and "10,000" in first_line(answer.text)
    english = ask("is ¥8000 a month enough for Qwen2.5-14B-Instruct?")
    assert english.kind != "clarification" and first_line(english.text).startswith("**Yes")


def test_does_it_make_sense_asks_for_value() -> None:
    answer = ask("Does it make sense to rent an A100 for a 3B model?")
    assert first_line(answer.text).startswith("**No, not worth it.**")


def test_one_day_enough_is_a_deadline_and_hours_a_day_are_not() -> None:
    assert read_form("8 卡 A100 训 7B 全参，1 亿 token，一天够吗？").deadline_hours == 24
    assert read_form("三天时间够不够").deadline_hours == 72
    assert read_form("每天 8 小时够吗").deadline_hours is None
    assert read_form("Is 4 hours enough to LoRA-tune it on one A10?").deadline_hours == 4
    answer = ask("8 卡 A100 训 Qwen2.5-7B 全参，1 亿 token，一天够吗？")
    [run] = [c.result for c in answer.tool_calls if c.name == "training_run"]
    assert first_line(answer.text).startswith("**可以，来得及：**") and run["hours"] < 24


def test_a_budget_asking_for_anything_searches_models_within_it() -> None:
    answer = ask("I have ¥2000/month. Can I host anything useful?")
    assert any(c.name == "largest_models_within_budget" for c in answer.tool_calls)


def test_unpriced_hardware_is_not_overkill_when_every_option_that_runs_it_has_more_memory() -> None:
    question = "Would 2 H20s be overkill for Qwen2.5-72B at bf16?"
    answer = ask(question)
    line = first_line(answer.text)
    assert line.startswith("**No, it is not overkill:**") and "cheapest" not in line
    [fit] = [c.result for c in answer.tool_calls if c.name == "evaluate_hardware_fit"]
    best = next(p.result["options"][0] for p in _plans(answer) if not p.args.get("gpu"))
    own_gib = fit["hardware"]["gpus"] * fit["hardware"]["usable_gib_per_gpu"]
    assert best["total_gpus"] * best["per_gpu_capacity_gib"] >= own_gib  # the planner's pick is no smaller
    assert not ungrounded(answer, question)


def test_a_switch_asked_as_yes_no_judges_the_gpu_switched_to() -> None:
    answer = ask("We run Llama-3.1-8B on an A100 today; can we downgrade to an A10 without problems for 10 users?")
    line = first_line(answer.text)
    a10 = next(p.result["options"][0] for p in _plans(answer) if p.args.get("gpu") == "A10")
    assert line.startswith("**Yes") and f"{a10['price_cny_per_hour']:g}" in line and "A10 option" in line


def test_a_slower_trainer_is_not_warned_against_for_an_unpriced_faster_one() -> None:
    answer = ask("用 A10 给 Qwen2.5-14B 做 QLoRA 微调可行吗")
    assert first_line(answer.text).startswith("**可以。**") and "Blackwell" not in answer.text.split("\n\n")[0]


def test_a_deadline_without_a_data_volume_says_how_many_tokens_fit_in_it() -> None:
    question = "Can I finish LoRA fine-tuning Qwen2.5-7B in a day on one A10?"
    answer = ask(question)
    runs = [c.result for c in answer.tool_calls if c.name == "training_run"]
    run = runs[-1]
    assert run["hours"] <= 24 and run["gpu"] == "A10"
    line = first_line(answer.text)
    assert line.startswith("**Yes, for up to about") and f"{run['training_tokens']:,.0f}" in line
    assert not ungrounded(answer, question)


def test_a_month_written_after_the_sum_makes_it_a_budget_but_an_hourly_sum_does_not() -> None:
    answer = ask("Is ¥30,000 enough for a month of Qwen2.5-72B-Instruct serving?")
    assert "30,000" in first_line(answer.text)
    assert any(c.args.get("budget_cny_month") == 30000 for c in answer.tool_calls if c.name == "plan_gpu_deployment")


@pytest.mark.parametrize(
    ("question", "head", "gpu"),
    [
        ("Should we bother with H20 for a 7B model or is A10 enough?", "**Yes, the A10 is enough:**", "A10"),
        ("跑 Qwen2.5-14B 要上 A100 还是 L20 就够了？", "**够用，L20 就够了：**", "L20"),
    ],
)
def test_the_side_offered_as_enough_is_answered_yes_with_its_figures(question: str, head: str, gpu: str) -> None:
    answer = ask(question)
    line = first_line(answer.text)
    top = next(p.result["options"][0] for p in _plans(answer) if p.args.get("gpu") == gpu)
    assert line.startswith(head) and f"{top['per_gpu_gib_needed']:g}" in line
    assert not ungrounded(answer, question)


@pytest.mark.parametrize(
    ("question", "head"),
    [
        ("Would it be a mistake to serve Qwen3-32B on a single H20?", "**No, it is a sound choice.**"),
        ("Would it be a mistake to run Qwen2.5-72B on one L20?", "**Yes, it would be: it does not fit.**"),
        ("Is it a bad idea to use an A100 for Qwen2.5-3B?", "**It works, but it is not the best buy:**"),
        ("Any reason not to use gn7i for Qwen2.5-14B-Instruct in int4?", "**No, it is a sound choice.**"),
    ],
)
def test_a_question_whose_yes_is_a_bad_choice_is_answered_the_right_way_round(question: str, head: str) -> None:
    answer = ask(question)
    assert first_line(answer.text).startswith(head)
    fits = [c.result["fits"] for c in answer.tool_calls if c.name == "evaluate_hardware_fit"]
    assert not fits or fits[0] == ("does not fit" not in head)


def test_should_i_use_asks_for_value_and_an_unpriced_card_is_weighed_by_size_not_price() -> None:
    answer = ask("Should I use an A100 for Qwen2.5-7B with 5 users?")
    assert first_line(answer.text).startswith("**No, not worth it.** It fits, but a cheaper option")
    unpriced = ask("我该不该用 H20 跑 Qwen2.5-7B？")
    line = first_line(unpriced.text)
    assert line.startswith("**不划算。** 放得下，但小得多的卡") and "更便宜的选择" not in line


def test_a_value_follow_up_on_named_hardware_keeps_the_workload() -> None:
    answer = ask("用 A100 划算吗", "我们要跑 Qwen2.5-14B，30 个并发")
    plans = _plans(answer)
    assert plans and all(p.args["model"] == "Qwen2.5-14B-Instruct" for p in plans)
    assert any(p.args.get("gpu", "").startswith("A100") and p.args.get("concurrency") == 30 for p in plans)
    assert first_line(answer.text).startswith("**可以。**")


@pytest.mark.parametrize(
    ("question", "head"),
    [
        ("We only need the GPU 4 hours a day for Qwen2.5-7B. Is a monthly subscription worth it?",
         "**No, not for these hours.**"),
        ("每天只开 6 小时跑 Qwen2.5-7B，包月划算吗？", "**不值得包月。**"),
    ],
)
def test_a_subscription_asked_about_alone_is_weighed_against_the_hours_it_runs(question: str, head: str) -> None:
    answer = ask(question)
    assert answer.kind != "clarification"
    line = first_line(answer.text)
    top = next(p.result["options"][0] for p in _plans(answer))
    assert line.startswith(head) and top["usage_cny_per_month"] < top["subscription_cny_per_month"]
    assert not ungrounded(answer, question)


def test_second_batch_wordings_are_read_as_the_verdicts_they_ask() -> None:
    assert read_form("Would ¥6,000 a month cover Qwen2.5-7B-Instruct for our chat?").form == "yes_no"
    assert read_form("We have 16 H20s for three days — enough to fully fine-tune Qwen2.5-32B?").form == "yes_no"
    assert read_form("Is the V100 still a sensible buy for serving Llama-3.1-8B?").worth
    answer = ask("Can a single gn7e-c16g1.4xlarge keep 60 analysts happy on Qwen2.5-14B-Instruct with 8k context each?")
    [fit] = [c for c in answer.tool_calls if c.name == "evaluate_hardware_fit"]
    assert fit.args["concurrency"] == 60 and fit.result["fits"] is False
    assert first_line(answer.text).startswith("**No.**")


def test_tai_kuazhang_asks_whether_the_named_hardware_is_overkill() -> None:
    answer = ask("Qwen2.5-14B-Instruct 给 5 个人用，上 gn8v-4x（4 张 H20）会不会太夸张？")
    line = first_line(answer.text)
    assert line.startswith("**是的，大材小用。**") and "`ecs.gn8v-4x.8xlarge`" in line


def test_a_family_sold_in_one_size_is_judged_as_that_box() -> None:
    answer = ask("ebmgn7e 够不够全参微调 Qwen2.5-14B")
    [fit] = [c for c in answer.tool_calls if c.name == "evaluate_hardware_fit"]
    assert fit.args["instance_type"] == "ecs.ebmgn7e.32xlarge" and fit.result["hardware"]["gpus"] == 8
    assert "ebmgn7e" in first_line(answer.text)


def test_a_verdict_behind_a_speed_line_is_moved_up_not_said_twice() -> None:
    answer = ask("Is the H20 good for Qwen2.5-72B inference, and how fast would it be?")
    paragraphs = answer.text.split("\n\n")
    assert paragraphs[0].startswith("**Yes, but not on one card.**")
    assert sum(p.startswith("**Yes, but not on one card.**") for p in paragraphs) == 1
    assert any("tokens/s" in p for p in paragraphs[1:3])


def test_a_verdict_on_a_misremembered_model_leads_with_the_verdict_and_corrects_the_name_after() -> None:
    # "llama 8b" now names the newest Llama of that size (Llama-3.1-8B); no Llama has 9B
    answer = ask("can llama 9b run on an A10?")
    paragraphs = answer.text.split("\n\n")
    assert paragraphs[0].startswith("**Yes") and paragraphs[1].startswith("**There is no llama 9b model**")


def test_a_lone_gpu_is_one_card() -> None:
    answer = ask("Qwen2.5-14B on a lone T4 - realistic or not?")
    [fit] = [c for c in answer.tool_calls if c.name == "evaluate_hardware_fit"]
    assert (fit.args["gpu"], fit.args["gpus"]) == ("T4", 1) and fit.result["fits"] is False
    assert first_line(answer.text).startswith("**No")


def test_enough_or_need_more_is_answered_on_the_named_one() -> None:
    answer = ask("Is one A100 80GB enough for Qwen2.5-14B-Instruct at 32k for 10 users, or do we need two?")
    [fit] = [c.result for c in answer.tool_calls if c.name == "evaluate_hardware_fit"]
    assert fit["fits"] is False and fit["hardware"]["gpus"] == 1
    assert first_line(answer.text).startswith("**No.**")


@pytest.mark.parametrize(
    ("question", "head"),
    [
        ("Does it make sense to buy a gn7e subscription for occasional fine-tuning runs?", "**No:**"),
        ("偶尔跑一下微调，gn7i 包月划算吗？", "**不值得：**"),
    ],
)
def test_a_subscription_for_occasional_use_is_no_with_both_prices(question: str, head: str) -> None:
    answer = ask(question)
    line = first_line(answer.text)
    quotes = [c.result for c in answer.tool_calls if c.name == "price_of_instance" and c.result]
    quote = next(q for q in quotes if f"`{q['instance_type']}`" in line and q["subscription_monthly"])
    assert line.startswith(head) and f"{quote['hourly']:.2f}" in line
    assert not ungrounded(answer, question)


@pytest.mark.parametrize(
    ("question", "head", "named"),
    [
        ("H800 训练值得吗", "**适合训练，但阿里云租不到。**", "H800"),
        ("gn8is 适合做 LoRA 微调吗", "**适合微调，但不适合大规模训练。**", "gn8is"),
        ("Is gn7e good for serving?", "**Yes for serving.**", "gn7e"),
        ("Is the T4 still any good in 2026?", "**Yes, if 16 GB per GPU is enough:**", "T4"),
    ],
)
def test_a_gpu_or_family_alone_gets_its_fitness_or_value_verdict(question: str, head: str, named: str) -> None:
    answer = ask(question)
    line = first_line(answer.text)
    assert answer.kind == "guidance" and line.startswith(head) and named in line
    assert not ungrounded(answer, question)
