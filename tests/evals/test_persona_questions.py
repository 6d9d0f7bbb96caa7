"""The held-out persona question set loads, is large and bilingual, and names only real catalog entries.

Its pass rate is NOT asserted here: ``benchmarks/assistant_eval.py --set heldout`` reports it. These tests
only keep the set well-formed (every question validates against the expectation models with
``extra="forbid"``, ids are unique, the personas and languages are balanced, regexes compile, and the
hardware a question fixes exists in ``tools/data``).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from tools import catalog


def _load_checker() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "assistant_eval.py"
    spec = importlib.util.spec_from_file_location("assistant_eval", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through sys.modules
    spec.loader.exec_module(module)
    return module


CHECKER = _load_checker()
HELD_OUT = CHECKER.load_held_out()
DEV = CHECKER.load_cases()


def test_both_sets_load_with_unique_ids() -> None:
    held_ids, dev_ids = [c.id for c in HELD_OUT], [c.id for c in DEV]
    assert len(set(held_ids)) == len(held_ids) and len(set(dev_ids)) == len(dev_ids)
    assert not set(held_ids) & set(dev_ids)


def test_held_out_set_is_large_balanced_and_bilingual() -> None:
    assert len(HELD_OUT) >= 150
    share_zh = Counter(c.language for c in HELD_OUT)["zh"] / len(HELD_OUT)
    assert 0.45 <= share_zh <= 0.55
    personas = Counter(c.persona for c in HELD_OUT)
    assert all(personas[p] >= 30 for p in ("startup", "research", "enterprise_rag", "student", "ops"))


def test_held_out_questions_are_not_in_the_development_set() -> None:
    assert not {c.question for c in HELD_OUT} & {c.question for c in DEV}


@pytest.mark.parametrize("case", HELD_OUT, ids=[c.id for c in HELD_OUT])
def test_question_is_well_formed(case: object) -> None:
    e = case.expect  # type: ignore[attr-defined]
    assert e.language == case.language  # type: ignore[attr-defined]
    for pattern in (e.text_matches, e.first_line_matches):
        if pattern:
            re.compile(pattern)
    if e.honours and e.honours.instance_type:
        catalog.get_instance(e.honours.instance_type)
    if e.honours and e.honours.family:
        assert catalog.list_instances(family=e.honours.family, include_retired=True)
    if e.first_line_number:
        assert e.first_line_number.low <= e.first_line_number.high
