"""Answer-quality eval of the deterministic engine: pass rates and warm latency, each question set apart.

    .venv/bin/python benchmarks/assistant_eval.py                       # every set, real offline embedder
    .venv/bin/python benchmarks/assistant_eval.py --set heldout --embedding hashing   # fast, no model

Development and held-out sets, each reported separately:

* ``dev``: ``tests/evals/assistant_questions.yaml`` and ``tests/evals/dev/*.yaml``, the questions the
  engine's rules are developed on (each failure is listed);
* held-out: ``tests/evals/persona_questions.yaml`` (set ``heldout``) and every file under
  ``tests/evals/heldout/`` (set ``heldout/<file stem>``, e.g. ``heldout/persona-b``), questions written from
  user personas by people who did not read the rules, never used to tune them: their pass rates are the
  honest figures. ``--set heldout`` runs all of them. Only aggregates are printed (rates per category,
  language and persona, and problem kinds without their particulars: no id, question or answer text);
  ``--show-heldout-failures`` lists each failure, for auditing the checker, not for tuning.

The default is the product's own offline embedder with its index kept in ``var/assistant-eval-index``: the
first run builds it (several minutes on 2 cores), later runs reuse it. The pytest version of this eval uses
the hashing embedder so that the default test run stays fast.

Each question carries checkable expectations on the answer (the ``--json`` shape), defined and graded in
``benchmarks/eval_checks.py``. ``tests/evals/test_assistant_eval.py`` runs the development set's checks, one
test per question. Latency is measured warm: the index is built and every question answered once first.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from types import ModuleType

from assistant.answer import Answer, Message
from assistant.engine import OfflineEngine
from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "tests" / "evals" / "assistant_questions.yaml"
MORE_QUESTIONS = ROOT / "tests" / "evals" / "dev"  # more development files, one per area, same format
HELD_OUT = ROOT / "tests" / "evals" / "persona_questions.yaml"
HELD_OUT_DIR = ROOT / "tests" / "evals" / "heldout"  # more held-out sets, one per file, each reported apart


def _sibling(name: str) -> ModuleType:
    """Import ``benchmarks/<name>.py`` whether this file runs as a script or is loaded by path from a test."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # pydantic resolves the models' annotations through sys.modules
    spec.loader.exec_module(module)
    return module


checks = _sibling("eval_checks")
Case = checks.Case
Expect = checks.Expect
ToolExpectation = checks.ToolExpectation
history_of = checks.history_of


def load_cases(path: Path | None = None) -> list[Case]:
    """Read and validate one question file, or (by default) the whole development set."""
    if path is not None:
        return checks.load_cases(path)
    paths = [QUESTIONS, *sorted(MORE_QUESTIONS.glob("*.yaml"))]
    return [case for file in paths for case in checks.load_cases(file)]


def load_held_out(path: Path = HELD_OUT) -> list[Case]:
    """Read and validate the held-out persona questions (persona, category and language required)."""
    return checks.load_cases(path, held_out=True)


def held_out_files(directory: Path = HELD_OUT_DIR) -> dict[str, Path]:
    """Every held-out question file by its set name: ``heldout`` (the persona set), then ``heldout/<stem>``."""
    files = {"heldout": HELD_OUT} if HELD_OUT.exists() else {}
    return files | {f"heldout/{path.stem}": path for path in sorted(directory.glob("*.yaml"))}


def load_held_out_sets(directory: Path = HELD_OUT_DIR) -> dict[str, list[Case]]:
    """Every held-out set, read and validated, by set name (see :func:`held_out_files`)."""
    return {name: load_held_out(path) for name, path in held_out_files(directory).items()}


def check(case: Case, answer: Answer) -> list[str]:
    """Every expectation ``answer`` misses, as one line each (empty: the case passes)."""
    return checks.check(case, answer)


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _answer(engine: OfflineEngine, case: Case) -> tuple[Answer | None, list[str]]:
    history: list[Message] = history_of(case)
    try:
        answer = engine.answer(case.question, history)
    except Exception as exc:  # a crash is a failed case with its reason, not the end of the report
        return None, [f"crashed: {type(exc).__name__}: {exc}"]
    return answer, check(case, answer)


def grade(engine: OfflineEngine, name: str, cases: list[Case], *, verbose: bool, held_out: bool = False) -> float:
    """Answer and check every case; print failures and pass rates overall, per category and per language.

    With ``held_out`` the problem kinds are also stripped of tool arguments and exception messages, which
    carry the question's own figures and names (see :func:`held_out_kind`).
    """
    by_group: dict[str, list[bool]] = defaultdict(list)
    kinds: Counter[str] = Counter()
    passed = content_passed = 0
    for case in cases:
        _, problems = _answer(engine, case)
        ok = not problems
        passed += ok
        content_passed += all(checks.is_form_problem(p) for p in problems)
        kinds.update({held_out_kind(p) if held_out else _problem_kind(p) for p in problems})
        by_group[f"category {checks.category_of(case)}"].append(ok)
        by_group[f"language {checks.language_of(case)}"].append(ok)
        if case.persona:
            by_group[f"persona {case.persona}"].append(ok)
        if problems and verbose:
            print(f"FAIL [{name}] {case.id}: {'; '.join(problems)}")
    rate = passed / len(cases)
    print(f"\n== {name}: pass rate {passed}/{len(cases)} = {rate:.1%}")
    print(f"   content only (answer-form checks aside): {content_passed}/{len(cases)}")
    for group in sorted(by_group):
        oks = by_group[group]
        print(f"   {group:<28} {sum(oks):>3}/{len(oks):<3} = {sum(oks) / len(oks):.0%}")
    if kinds:
        print("   most frequent problems (questions affected):")
        for kind, count in kinds.most_common(12):
            print(f"   {count:>5}  {kind}")
    return rate


def _problem_kind(problem: str) -> str:
    """A problem line without its particulars (quoted text, lists, numbers), to count problems by kind."""
    # A quote cut open by the split runs to the end: held-out answer text must not leak into the summary.
    unquoted = re.sub(r"'[^']*(?:'|$)|\"[^\"]*(?:\"|$)", "…", problem.split(";")[0])
    return re.sub(r"\[.*\]|\d[\d.,e+]*", "…", unquoted)[:70]


def held_out_kind(problem: str) -> str:
    """A held-out problem's kind without its particulars, so that no question can be recognised from it.

    Beyond :func:`_problem_kind`: no tool arguments, no exception message, and no name that carries a digit,
    a dot or a dash (models, GPUs, instance types, regions), since those are the question's own words.
    """
    if problem.startswith("crashed:"):
        return "crashed: " + problem.split(":")[1].strip()
    kind = re.sub(r"\(.*", "(…)", _problem_kind(problem))
    kind = re.sub(r"\S*[…\d.#-]\S*", "…", kind)
    return re.sub(r"…(?:[\s,]*…)+", "…", kind)


def latency(engine: OfflineEngine, cases: list[Case], rounds: int) -> None:
    """Warm answer latency over ``rounds`` passes (every case was answered once before)."""
    times = []
    for _ in range(rounds):
        for case in cases:
            t0 = time.perf_counter()
            _answer(engine, case)
            times.append((time.perf_counter() - t0) * 1000)
    print(
        f"latency (warm, {len(times)} answers): p50 {statistics.median(times):.1f} ms, "
        f"p95 {percentile(times, 0.95):.1f} ms, max {max(times):.1f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", choices=["dev", "heldout", "both"], default="both", dest="which")
    parser.add_argument("--embedding", choices=["hashing", "offline"], default="offline")
    parser.add_argument(
        "--data-dir", type=Path, help="index directory (default: var/assistant-eval-index; a temporary one for hashing)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the questions")
    parser.add_argument("--quiet", action="store_true", help="print only the figures, not each failure")
    parser.add_argument(
        "--no-intent-fallback", action="store_true", help="the intent rules alone, without the embedder fallback"
    )
    parser.add_argument(
        "--show-heldout-failures",
        action="store_true",
        help="also list each held-out failure (to audit the checker only: tuning on them spends the set)",
    )
    args = parser.parse_args()
    default_dir = ROOT / "var" / "assistant-eval-index" if args.embedding == "offline" else None
    data_dir = args.data_dir or default_dir or Path(tempfile.mkdtemp(prefix="assistant-eval-"))
    kb = KnowledgeBase(KnowledgeConfig(data_dir=data_dir, embedding=args.embedding))
    start = time.perf_counter()
    kb.ensure_index()
    print(f"index ({args.embedding}): {time.perf_counter() - start:.1f} s")
    engine = OfflineEngine(kb, intent_fallback=not args.no_intent_fallback)
    sets: dict[str, list[Case]] = {}
    if args.which in ("dev", "both"):
        sets["dev"] = load_cases()
    if args.which in ("heldout", "both"):
        sets |= load_held_out_sets()
    rates = {}
    for name, cases in sets.items():  # the graded pass doubles as the warm-up
        held_out = name != "dev"
        verbose = not args.quiet and (not held_out or args.show_heldout_failures)
        rates[name] = grade(engine, name, cases, verbose=verbose, held_out=held_out)
        if args.rounds > 0:  # --rounds 0 grades only
            latency(engine, cases, args.rounds)
    print("\nsummary: " + ", ".join(f"{name} {rate:.1%}" for name, rate in rates.items()))
    return 0 if all(rate == 1.0 for rate in rates.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
