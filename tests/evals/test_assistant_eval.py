"""Answer-quality eval of the offline engine: one test per question of ``assistant_questions.yaml``.

The checks live in ``benchmarks/assistant_eval.py`` (which also reports the pass rate and latency), loaded
here by path. The knowledge base is the shipped guidance indexed with the hashing embedder, so the run is
offline and fast:

    .venv/bin/python -m pytest tests/evals/test_assistant_eval.py -q
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from engine_helpers import shared_engine


def _load_checker() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "assistant_eval.py"
    spec = importlib.util.spec_from_file_location("assistant_eval", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through sys.modules
    spec.loader.exec_module(module)
    return module


CHECKER = _load_checker()
CASES = CHECKER.load_cases()


def test_question_set_is_large_and_bilingual() -> None:
    langs = Counter("zh" if case.id.startswith("zh-") else "en" for case in CASES)
    assert len(CASES) >= 50 and len({case.id for case in CASES}) == len(CASES)
    assert abs(langs["zh"] - langs["en"]) <= len(CASES) // 10


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_question(case: object) -> None:
    answer = shared_engine().answer(case.question, CHECKER.history_of(case))  # type: ignore[attr-defined]
    assert CHECKER.check(case, answer) == []
