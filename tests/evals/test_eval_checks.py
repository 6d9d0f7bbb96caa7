"""The eval checker grades hand-built answers as the domain expects (no engine involved).

These pin the expectation kinds the held-out set relies on, so a change to the checker that would make
the set easier or harder to pass shows up as a failing test rather than as a moved pass rate.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from assistant.answer import Answer, AnswerDetail, ToolCall
from knowledge.models import Citation


def _load(name: str) -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # pydantic resolves the models' annotations through sys.modules
    spec.loader.exec_module(module)
    return module


CHECKS = _load("eval_checks")


def _case(question: str = "q", **expect: Any) -> Any:
    return CHECKS.Case.model_validate({"id": "t", "question": question, "expect": {"grounded": False, **expect}})


def _answer(text: str, language: str = "en", calls: list[ToolCall] | None = None, **kw: Any) -> Answer:
    return Answer(text=text, language=language, engine="offline", tool_calls=calls or [], **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "verdict"),
    [
        ("能跑，但余量只有 5%", "yes_but"),
        ("不能：单卡需要 48 GiB", "no"),
        ("单卡性能不够", "no"),
        ("Yes, it fits, but the A10 is cheaper", "yes_but"),
        ("No: 72B in int4 needs 2 cards", "no"),
        ("It fits with 20% headroom", "yes"),
        ("Understood: Qwen2.5-7B-Instruct · inference", None),
        ("理解的需求： Qwen2.5-7B-Instruct · 推理部署", None),
        ("不是。 gn7i 用的是 A10，不是 A100", "no"),
        ("不对：H800 的稠密 BF16 算力是 989.5 TFLOPS", "no"),
        ("是的，A100 的稠密 FP16 是 312 TFLOPS", "yes"),
        ("这个说法不正确", "no"),
        ("不支持。A10 没有 FP8 Tensor Core", "no"),
        ("来不及：按 6·N·D 要 30 天", "no"),
        ("没必要上 A100，一张 A10 就够", "no"),
        ("不太合适：余量只有 2%", "no"),
    ],
)
def test_verdict_is_read_from_the_first_yes_or_no_word(line: str, verdict: str | None) -> None:
    assert CHECKS.verdict_of(line) == verdict


def test_verdict_expectation_accepts_quoted_yes_and_no_only() -> None:
    assert _case(verdict=["no"]).expect.verdict == ["no"]
    with pytest.raises(ValueError):
        _case(verdict=[True])


def test_honoured_gpu_a10_is_not_satisfied_by_a100() -> None:
    case = _case(honours={"gpu": "A10", "gpu_count": 1})
    wrong = _answer("Use 1 × A100.", calls=[ToolCall(name="plan", args={"gpu": "A100-80GB", "gpus": 1})])
    right = _answer("No: one A10 holds 22 GiB.", calls=[ToolCall(name="plan", args={"gpu": "A10", "gpus": 1})])
    assert any("A10" in p for p in CHECKS.check(case, wrong))
    assert CHECKS.check(case, right) == []


def test_honoured_instance_type_needs_the_text_and_a_tool() -> None:
    case = _case(honours={"instance_type": "ecs.gn8is.4xlarge"})
    only_text = _answer("ecs.gn8is.4xlarge: yes")
    assert CHECKS.check(case, only_text) == ["no tool evaluated the instance type ecs.gn8is.4xlarge"]


def test_calls_any_matches_nested_arguments_alternative_names_and_ranges() -> None:
    case = _case(calls_any=[{"args": {"concurrency": 30}, "args_range": {"prompt_tokens|context": [400, 1600]}}])
    nested = ToolCall(name="evaluate", args={"workload": {"concurrency": 30, "context": 1100}})
    assert CHECKS.check(case, _answer("x", calls=[nested])) == []
    default = ToolCall(name="plan_gpu_deployment", args={"concurrency": 30, "context": 4096})
    assert CHECKS.check(case, _answer("x", calls=[default]))


def test_training_tokens_found_in_a_result_within_five_percent() -> None:
    case = _case(training_tokens=160_000_000)
    call = ToolCall(name="training_volume", args={"samples": 40000}, result={"train_tokens": 163_840_000})
    assert CHECKS.check(case, _answer("x", calls=[call])) == []
    assert CHECKS.check(case, _answer("x"))


def test_one_language_per_answer() -> None:
    case = _case(single_language=True)
    mixed = _answer("单张 L20 不够。", language="zh", details=[AnswerDetail(title="t", markdown="needs more memory")])
    assert CHECKS.check(case, mixed)
    names_only = _answer("单张 L20 不够：Qwen2.5-72B-Instruct AWQ 需要 48 GiB，见 `gn8is`。", language="zh")
    assert CHECKS.check(case, names_only) == []
    assert CHECKS.check(case, _answer("Two L20s (双卡) fit.", language="en"))


def test_raw_urls_and_length_and_quoted_first_line() -> None:
    case = _case(no_raw_urls=True, max_chars_before_details=40, first_line_not_passage=True)
    assert CHECKS.check(case, _answer("Yes [1](https://example.com/a).")) == []
    problems = CHECKS.check(case, _answer("> quoted\nsee https://example.com/a and more text here"))
    assert len(problems) == 3


def test_unrelated_citations_are_reported() -> None:
    cite = Citation(
        doc="gpu-specs-comparison",
        doc_title="GPU specs",
        section="A10 and AVX-512",
        anchor="a10",
        lang="en",
        sources=[],
        snippet="AVX-512 is a CPU instruction set",
    )
    case = _case(no_unrelated_citations=["whisper", "speech"])
    assert CHECKS.check(case, _answer("Whisper is out of reach.", citations=[cite])) == [
        "unrelated citation gpu-specs-comparison#a10"
    ]
    assert CHECKS.check(case, _answer("Whisper is out of reach.")) == []


def test_first_line_number_reads_units() -> None:
    case = _case(first_line_number={"low": 12000, "high": 20000})
    assert CHECKS.check(case, _answer("约 1.5万 人\nrest")) == []
    assert CHECKS.check(case, _answer("about 15 users"))
