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
