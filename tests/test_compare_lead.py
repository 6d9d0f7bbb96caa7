"""The winner-first line of a comparison and how its sides are read (issue 8, i8cmp3).

``lead_line`` is a pure function of typed side outcomes, so its decisions are checked on outcomes built here
from catalog prices (cn-beijing pay-as-you-go: gn7i-c8g1.2xlarge ¥9.53/h, gn6i-c4g1.xlarge ¥11.63/h,
gn7e-c16g1.4xlarge ¥34.74/h); the readers (memory variants, per-side settings, methods, a replaced side)
are checked on questions.
"""

from __future__ import annotations

import pytest

from assistant.gpu_variants import with_memory_variants
from assistant.intents.compare_followup import sides_added
from assistant.intents.compare_lead import SideOutcome, asked_criteria, lead_line
from assistant.intents.compare_sides import gpu_settings, methods_named
from assistant.understanding import understand

A10 = SideOutcome(label="A10", gpus=1, hourly=9.53, tokens_per_s=201.1, headroom_pct=14.9, users=12)
T4 = SideOutcome(label="T4", gpus=1, hourly=11.63, tokens_per_s=132.0, headroom_pct=39.2, users=20)
A100 = SideOutcome(label="A100-80GB", gpus=1, hourly=34.74, tokens_per_s=578.7, headroom_pct=76.2, users=200)


def test_sides_that_differ_per_criterion_are_named_per_criterion() -> None:
    line = lead_line([A10, A100], "A10 or A100 for Qwen2.5-7B?", "en")
    assert line is not None and line.startswith("**A10 for cost, A100-80GB for speed:**")
    assert "¥9.53/h vs ¥34.74/h" in line and "578.7 vs 201.1 tokens/s" in line


def test_one_side_winning_both_is_named_once() -> None:
    line = lead_line([A10, T4], "T4 还是 A10？", "zh")
    assert line is not None and line.startswith("**选 A10，成本和速度都占优：**")


def test_the_asked_criterion_decides_alone() -> None:
    line = lead_line([A10, A100], "which one is faster?", "en")
    assert line is not None and line.startswith("**A100-80GB is the pick on speed:**")
    users = lead_line([A10, A100], "哪个能撑更多用户？", "zh")
    assert users is not None and users.startswith("**按并发选 A100-80GB：**")


def test_without_two_prices_fewer_gpus_stand_in_for_cost() -> None:
    h20 = SideOutcome(label="H20", gpus=2, tokens_per_s=796.5)
    l20 = SideOutcome(label="L20", gpus=4, tokens_per_s=431.3)
    line = lead_line([l20, h20], "h20 or l20?", "en")
    assert line is not None and line.startswith("**H20 wins on GPU count and speed:**")


def test_per_card_ranks_by_gpu_but_shows_the_tools_totals() -> None:
    two_a10 = SideOutcome(label="gn7i", gpus=2, users=20)
    one_l20 = SideOutcome(label="gn8is", gpus=1, users=25)
    line = lead_line([two_a10, one_l20], "which gets more conversations per card?", "en")
    assert line is not None and line.startswith("**gn8is is the pick on users:**") and "20 on 2" in line


def test_a_side_that_does_not_fit_never_wins() -> None:
    t4 = T4.model_copy(update={"fits": False})
    assert lead_line([A10, t4], "A10 or T4?", "en") is None  # "only A10 fits" is the caller's line


@pytest.mark.parametrize(
    ("question", "criteria"),
    [
        ("which is cheaper per token and which is faster?", ["cost", "speed"]),
        ("哪个更快、要多少天", ["speed"]),
        ("which leaves more headroom", ["room"]),
        ("A10 or L20?", []),
    ],
)
def test_criteria_are_read_in_the_order_written(question: str, criteria: list[str]) -> None:
    assert asked_criteria(question) == criteria


@pytest.mark.parametrize(
    ("question", "mentions", "variants"),
    [
        ("A100 40GB or 80GB for Qwen2.5-32B?", ["A100-40GB"], ["A100-40GB", "A100-80GB"]),
        ("V100 有 16G 和 32G 两种，选哪个？", ["V100"], ["V100-16GB", "V100-32GB"]),
        ("the 40 gig or the 80 gig a100?", ["A100"], ["A100-40GB", "A100-80GB"]),
        ("A100 80G 跑 32B 要 40G 吗", ["A100-80GB"], ["A100-80GB"]),  # a memory figure, not a second variant
        ("H20 96G or 141G", ["H20"], ["H20"]),  # the catalog has no 141 GB H20
    ],
)
def test_memory_variants_of_one_gpu_become_sides(question: str, mentions: list[str], variants: list[str]) -> None:
    assert with_memory_variants(question, mentions) == variants


def test_each_gpu_keeps_the_settings_written_beside_it() -> None:
    question = (
        "Option A: Qwen2.5-72B-Instruct AWQ on 2x A100 80GB. Option B: the same model in FP8 on a single H20. "
        "16 concurrent users at 8k context - which option would you take?"
    )
    got = gpu_settings(question, ["A100-80GB", "H20"])
    assert got["A100-80GB"] == {"precision": "int4", "quant": "awq-int4", "gpus": 2}
    assert got["H20"] == {"precision": "fp8", "quant": "none", "gpus": 1}
    context = gpu_settings("A10 上开 4k 上下文，L20 上开 32k 上下文，都是 8 个并发", ["A10", "L20"])
    assert context == {"A10": {"context": 4096}, "L20": {"context": 32768}}


def test_a_setting_written_once_holds_for_every_gpu() -> None:
    assert gpu_settings("Qwen2.5-7B on A10 or L20 in int4, 8 users", ["A10", "L20"]) == {}


def test_methods_weighed_against_each_other() -> None:
    assert methods_named("full fine-tuning vs LoRA of Qwen2.5-7B on one A100 80GB") == ["full", "lora"]
    assert methods_named("一张 A100 40G 上，LoRA 和 QLoRA 微调 Qwen2.5-32B 哪个能跑起来？") == ["lora", "qlora"]
    assert methods_named("LoRA fine-tune Qwen2.5-7B on an A10") == []


def test_a_follow_up_replaces_the_side_it_swaps() -> None:
    question = "把 T4 换成 L20 再比一次"
    added = sides_added(question, "Qwen2.5-7B 推理，10 并发，T4 和 A10 比一下", understand(question))
    assert added == {"gpu_mentions": ["L20", "A10"]}


def test_a_side_named_against_the_earlier_ones_is_added() -> None:
    question = "and against an H800?"
    earlier = "LoRA fine-tuning Qwen2.5-7B: A10 or A100, which trains faster?"
    added = sides_added(question, earlier, understand(question))
    assert added == {"gpu_mentions": ["A10", "A100", "H800"]}


def test_training_speed_is_the_sides_compute_shown_as_the_spec_sheets_give_it() -> None:
    a100 = SideOutcome(label="8 x A100-80GB", gpus=8, train_tflops=8 * 312.0, headroom_pct=71.7)
    h20 = SideOutcome(label="8 x H20", gpus=8, train_tflops=8 * 148.0, headroom_pct=76.1)
    line = lead_line([h20, a100], "which is better for full-parameter training?", "en")
    assert line is not None and line.startswith("**8 x A100-80GB is the pick on speed:**")
    assert "8 × 312 vs 8 × 148" in line


def test_three_sides_show_the_margin_to_the_runner_up() -> None:
    v100 = SideOutcome(label="V100", gpus=1, hourly=19.74, tokens_per_s=150.0)
    line = lead_line([v100, A10, T4], "which is cheapest?", "en")
    assert line is not None and "¥9.53/h vs ¥11.63/h" in line  # the A10 against the next cheapest, the T4


def test_memory_asked_shows_each_sides_need_against_its_card() -> None:
    l20 = SideOutcome(label="L20", gpus=1, need_gib=20.65, usable_gib=44.0, headroom_pct=53.1)
    a10 = SideOutcome(label="A10", gpus=2, need_gib=18.9, usable_gib=22.2, headroom_pct=14.9)
    line = lead_line([a10, l20], "Qwen2.5-7B 跑在 L20 和 A10 上，显存各占多少？", "zh")
    assert line == "**按余量选 L20：** 每卡需要 20.65 / 44 GiB 对 18.9 / 22.2 GiB，显存余量 53.1% 对 14.9%。"


def test_the_cost_of_a_million_tokens_ranks_by_the_per_token_figure() -> None:
    a10, a100 = A10.model_copy(update={"per_million": 13.06}), A100.model_copy(update={"per_million": 11.9})
    for question in ("what does one million tokens cost on A10 vs A100?", "A10 和 A100，一百万 token 要多少钱？"):
        line = lead_line([a10, a100], question, "en")
        assert line is not None and line.startswith("**A100-80GB is the pick on cost:** ¥11.9 vs ¥13.06")


def test_paying_by_the_month_ranks_cost_by_the_subscription_price() -> None:
    # gn6i-c4g1.xlarge ¥3,348/month on subscription vs gn7i-c8g1.2xlarge ¥4,575.66: dearer by the hour, cheaper
    # by the month (the subscription discounts differ per family)
    a10, t4 = A10.model_copy(update={"subscription_month": 4575.66}), T4.model_copy(update={"subscription_month": 3348})
    asked = (("T4 or A10? I'd pay monthly, whichever is cheaper", "en"), ("T4 还是 A10，包月哪个便宜？", "zh"))
    for question, lang in asked:
        line = lead_line([a10, t4], question, lang)  # type: ignore[arg-type]
        assert line is not None and "T4" in line.split("A10")[0] and "3348" in line and "4575.66" in line
    hourly = lead_line([a10, t4], "T4 or A10, which is cheaper?", "en")
    assert hourly is not None and hourly.startswith("**A10 is the pick on cost:** ¥9.53/h vs ¥11.63/h")
