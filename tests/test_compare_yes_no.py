"""Yes/no-shaped comparisons and the guidance's coverage of a question, as pure functions (issue 8)."""

from __future__ import annotations

import pytest

from assistant.guidance_coverage import uncovered_terms
from assistant.intents.compare_yes_no import asks_whether_better, subject_of, yes_no_lead
from assistant.question_form import read_form
from knowledge.models import Passage


@pytest.mark.parametrize(
    ("question", "labels", "subject"),
    [
        ("Is 2x A10 faster than one A100-80GB for 14B?", ["2 x A10", "1 x A100-80GB"], "2 x A10"),
        ("is H20 better than A100 80GB for Llama-3.1-70B?", ["A100-80GB", "H20"], "H20"),
        ("Compared with an A100, is the L20 cheaper for 7B?", ["A100-80GB", "L20"], "L20"),
        ("Qwen2.5-7B 给 5 个人用，A10 是不是比 T4 便宜？", ["T4", "A10"], "A10"),
        ("比起两张 A10，一张 L20 跑 14B 更快吗？", ["2 张 A10", "1 张 L20"], "1 张 L20"),
        (
            "Would Qwen2.5-14B be faster than Qwen2.5-32B on one L20?",
            ["Qwen2.5-32B-Instruct", "Qwen2.5-14B-Instruct"],
            "Qwen2.5-14B-Instruct",
        ),
        (
            "is ecs.gn7i-c8g1.2xlarge cheaper than ecs.gn6i-c4g1.xlarge?",
            ["`ecs.gn6i-c4g1.xlarge`", "`ecs.gn7i-c8g1.2xlarge`"],
            "`ecs.gn7i-c8g1.2xlarge`",
        ),
    ],
)
def test_the_subject_is_the_side_not_after_than(question: str, labels: list[str], subject: str) -> None:
    assert subject_of(labels, question) == subject


def test_only_yes_no_comparatives_get_a_yes_or_no() -> None:
    assert asks_whether_better("Is the L20 faster than the A10 for 14B?")
    assert asks_whether_better("H20 比 L20 好吗？")
    assert not asks_whether_better("Which is faster for 14B, the L20 or the A10?")  # asks which, not whether
    assert not asks_whether_better("Is the L20 or the A10 better for 14B?")  # a choice between two
    assert not asks_whether_better("比较一下 A10 和 L20 跑 14B")
    assert not asks_whether_better("A10 性价比高吗？")  # 性价比 is value for money, not a comparative


def test_the_answer_follows_the_winner_and_the_comparative_s_direction() -> None:
    line, labels = "**A10 is the pick on cost:** ¥9.53/h vs ¥11.63/h.", ["A10", "T4"]
    winners = [("cost", "A10")]
    assert yes_no_lead(line, winners, labels, "Is the A10 cheaper than the T4?", "en").startswith("**Yes.**")
    assert yes_no_lead(line, winners, labels, "Is the A10 pricier than the T4?", "en").startswith("**No.**")
    assert yes_no_lead(line, winners, labels, "Is the T4 cheaper than the A10?", "en").startswith("**No.**")
    assert yes_no_lead(line, winners, labels, "A10 会比 T4 贵吗？", "zh").startswith("**不是。**")
    split = yes_no_lead(line, [("cost", "A10"), ("speed", "T4")], labels, "Is the A10 better than the T4?", "en")
    assert split.startswith("**Yes on cost, but not on speed.**")
    assert yes_no_lead(line, winners, labels, "Which is cheaper, A10 or T4?", "en") == line  # not a yes/no


def _passage(section: str, text: str) -> Passage:
    return Passage(text=text, doc="d", doc_title="D", section=section, anchor="a", lang="en", sources=[],
                   last_verified="2026-01-01", score=1.0, chunk_id="en/d#a")  # fmt: skip


def test_a_question_the_guidance_never_speaks_of_is_uncovered() -> None:
    found = [_passage("Instance families", "Alibaba GPU instance families and the GPU inside each.")]
    shares = {"reset": 0.0, "root": 0.0, "password": 0.0, "gpu": 0.9, "instance": 0.3}
    assert uncovered_terms(shares, found) == ["reset", "root", "password"]
    # A specific word the passage does use: it is on the subject, whatever else is unknown.
    spot = {"spot": 0.03, "warning": 0.0, "reclaimed": 0.0, "instances": 0.1}
    assert uncovered_terms(spot, [_passage("Preemptible (spot) instances", "A spot instance is reclaimed.")]) == []
    assert uncovered_terms({"gpu": 0.9, "memory": 0.4}, found) == []  # every word known: nothing uncovered
    assert uncovered_terms({"开发票": 0.0, "开发": 0.0, "发票": 0.0, "实例": 0.3}, found) == ["开发票"]
    # A GPU named is what the question is about: its section covers "tell me about the H20".
    h20 = [_passage("H20: big memory and bandwidth", "The H20 has 96 GB of HBM3.")]
    assert uncovered_terms({"tell": 0.0, "h20": 0.1}, h20) == []
    assert uncovered_terms({"tell": 0.0, "h20": 0.4}, h20, named=["H20"]) == []  # named, however common


def test_a_yes_that_means_failure_is_read_as_such() -> None:
    assert read_form("2x A100 - will it OOM at 32k context?").failure
    assert read_form("会不会爆显存？").failure
    assert read_form("Is a T4 too small for Qwen2.5-7B?").failure
    assert not read_form("Is 8x L20 enough, or will we run out of memory?").failure  # the first question leads
    assert not read_form("Can one A10 run Qwen2.5-7B?").failure
