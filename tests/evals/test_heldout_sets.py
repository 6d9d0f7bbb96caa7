"""The held-out sets under tests/evals/heldout/: they load with the checker's models, and their report leaks nothing.

These tests never print or assert on a held-out question: the files are only validated and counted. The leak
test grades a small held-out file written here, with the real offline engine, and checks that the report
names no id, no question, no figure or name from a question and no line of an answer.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from engine_helpers import shared_engine

ROOT = Path(__file__).resolve().parents[2]
CATEGORIES = {
    "plan", "verdict", "comparison", "capacity", "cost", "lengths", "rates", "training", "custom_arch",
    "followup", "media", "out_of_reach", "injection", "bad_input", "guidance",
}  # fmt: skip
PERSONAS = {"startup", "research", "enterprise_rag", "student", "ops", "article"}


def _assistant_eval() -> ModuleType:
    if "assistant_eval" in sys.modules:
        return sys.modules["assistant_eval"]
    spec = importlib.util.spec_from_file_location("assistant_eval", ROOT / "benchmarks" / "assistant_eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["assistant_eval"] = module
    spec.loader.exec_module(module)
    return module


def test_every_held_out_file_is_a_set_of_its_own() -> None:
    ev = _assistant_eval()
    files = ev.held_out_files()
    assert files["heldout"] == ev.HELD_OUT
    assert files["heldout/persona-b"] == ev.HELD_OUT_DIR / "persona-b.yaml"
    assert set(files) == {"heldout"} | {f"heldout/{p.stem}" for p in ev.HELD_OUT_DIR.glob("*.yaml")}


def test_persona_set_b_loads_with_the_checker_models_and_covers_the_issue() -> None:
    cases = _assistant_eval().load_held_out_sets()["heldout/persona-b"]
    languages = Counter(case.language for case in cases)
    assert len(cases) >= 160
    assert languages["zh"] == languages["en"]
    assert len({case.id for case in cases}) == len(cases)
    assert all(case.id.startswith(f"{case.language}-") for case in cases)
    assert {case.category for case in cases} == CATEGORIES
    assert {case.persona for case in cases} == PERSONAS
    assert all(case.history for case in cases if case.category == "followup")
    assert all(case.expect.single_language and case.expect.no_raw_urls for case in cases)


_MARKED = """
defaults:
  single_language: true
questions:
  - id: zh-leakcheck-alpha
    persona: ops
    category: verdict
    language: zh
    question: 我们有 3 张 A10，跑 Qwen2.5-14B-Instruct 做客服，32k 上下文，并发 11 个，够不够？
    expect:
      verdict: "yes"
      honours: {gpu: L20, gpu_count: 7, region: cn-zhangjiakou}
      calls: [{tool: plan_gpu_deployment, args: {model: Llama-3.1-405B-Instruct, concurrency: 999}}]
      text_contains: [LEAKCHECK-MARKER-ONE]
  - id: en-leakcheck-beta
    persona: student
    category: cost
    language: en
    question: what does ecs.gn7i-c8g1.2xlarge cost per month in cn-hangzhou, pay-as-you-go?
    expect:
      first_line_number: {low: 1, high: 2}
      not_recommended: [ecs.gn7i-c8g1.2xlarge]
      text_contains: [LEAKCHECK-MARKER-TWO]
"""


def test_held_out_report_prints_aggregates_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ev = _assistant_eval()
    path = tmp_path / "leakcheck.yaml"
    path.write_text(_MARKED, encoding="utf-8")
    cases = ev.load_held_out(path)
    rate = ev.grade(shared_engine(), "heldout/leakcheck", cases, verbose=False, held_out=True)
    report = capsys.readouterr().out

    assert rate == 0.0  # every case fails on purpose, so every problem kind is printed
    assert "pass rate 0/2" in report and "persona student" in report and "most frequent problems" in report
    assert "LEAKCHECK-MARKER" not in report
    expected_names = ["Llama-3.1-405B-Instruct", "999", "L20", "cn-zhangjiakou", "ecs.gn7i-c8g1.2xlarge"]
    for case in cases:
        assert case.id not in report and case.question not in report
        # The question's names and figures (model, GPU, instance type, region, counts) stay out too.
        for word in [*re.findall(r"[\w.-]*\d[\w.-]*|cn-\w+", case.question), *expected_names]:
            if len(word) >= 3:
                assert word not in report, word
        answer = shared_engine().answer(case.question, ev.history_of(case))
        for line in answer.text.splitlines():
            if len(line.strip()) >= 12:
                assert line.strip() not in report
