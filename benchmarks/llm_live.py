"""Live check of the configured LLM: the eval questions against the real model, pass rate and latency.

    ./dev test-live                      # every question of tests/evals/assistant_questions.yaml
    ./dev test-live --limit 10           # the first 10 (each costs one to four model calls)

Opt-in and never in CI: it needs DASHSCOPE_API_KEY, OPENAI_BASE_URL or GPU_ADVISOR_LLM_MODEL=local:...
(read from the environment or .env like the app itself) and prints "skipped" without them. Each answer
is checked twice:

* invariants, which must always hold: a valid ``Answer``, from the ``llm`` engine or a clean fallback
  (``offline`` with a warning saying why), no traceback, no secret, no text of the guard's rewrite
  request; any violation makes the run exit 1;
* the question's expectations (tools and arguments, language, grounded numbers, ...) as in
  ``benchmarks/assistant_eval.py``: the pass rate, which depends on the model.

Prints one line per question (engine, seconds, problems), then pass rate, LLM-answered rate, the
fallback reasons, p50/p95 latency and the token usage the server reported.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
import time
from collections import Counter
from collections.abc import Sequence

from pydantic import ValidationError

from assistant.answer import Answer
from assistant.assistant import Assistant, build_assistant
from assistant.llm_review import rewrite_instructions
from assistant.providers import call_limits, llm_configured, resolve_provider, secret_values, timeout_s
from assistant.settings import Settings
from benchmarks.assistant_eval import check, history_of, load_cases, percentile

_USAGE = re.compile(r"^LLM .*: (\d+) model calls, (\d+) input \+ (\d+) output tokens")


def _four_word_runs(text: str) -> set[tuple[str, ...]]:
    words = [w.strip("\"'`*_()[]{}<>.,;:!?").lower() for w in text.split()]
    words = [w for w in words if w]
    return {tuple(words[i : i + 4]) for i in range(len(words) - 3)}


def invariant_problems(raw_json: str, secrets: Sequence[str]) -> list[str]:
    """What is wrong with an answer as JSON that must never be wrong, whatever the model does.

    Args:
        raw_json: ``Answer.model_dump_json()`` or ``gpu-advisor ask --json`` output.
        secrets: Values that must not appear (API keys).
    """
    try:
        answer = Answer.model_validate_json(raw_json)
    except ValidationError as exc:
        return [f"not a valid Answer: {exc.errors()[0]['msg']}"]
    problems = []
    if answer.engine == "offline" and not answer.warnings:
        problems.append("offline answer without a warning saying why")
    if "Traceback" in raw_json:
        problems.append("traceback in the answer")
    problems += ["a secret in the answer" for s in secrets if len(s) >= 8 and s in raw_json]
    guard = set().union(*(_four_word_runs(part) for part in rewrite_instructions()))
    if guard & _four_word_runs(answer.text):
        problems.append("guard instruction text in the answer")
    return problems


class _UsageLog(logging.Handler):
    """Collects the per-answer usage lines the LLM engine logs."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.totals: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        if match := _USAGE.search(record.getMessage()):
            self.totals.update(calls=int(match[1]), input=int(match[2]), output=int(match[3]))


def run(assistant: Assistant, secrets: Sequence[str], limit: int | None) -> int:
    """Ask every question, print a line per question and the summary; return the exit status."""
    usage = _UsageLog()
    logging.getLogger("assistant.agent").addHandler(usage)
    logging.getLogger("assistant.agent").setLevel(logging.INFO)
    cases = load_cases()[:limit]
    passed, broken, latencies, engines, reasons = 0, 0, [], Counter[str](), Counter[str]()
    for case in cases:
        start = time.perf_counter()
        answer = assistant.answer(case.question, history_of(case))
        latencies.append(time.perf_counter() - start)
        invariants = invariant_problems(answer.model_dump_json(), secrets)
        expectations = check(case, answer)
        engines[answer.engine] += 1
        if answer.engine == "offline" and answer.warnings:
            reasons[answer.warnings[0]] += 1
        broken += bool(invariants)
        passed += not (invariants or expectations)
        status = "BROKEN" if invariants else "FAIL" if expectations else "pass"
        problems = "; ".join(invariants + expectations)
        print(f"{status:6} {case.id:40} {answer.engine:7} {latencies[-1]:6.1f} s  {problems}")
    total = len(cases)
    print(f"\npass rate: {passed}/{total} = {passed / total:.0%}   (invariants broken: {broken})")
    print(f"answered by the LLM: {engines['llm']}/{total}; fallbacks: {engines['offline']}")
    for reason, count in reasons.most_common():
        print(f"  {count} x {reason}")
    print(f"latency: p50 {percentile(latencies, 0.5):.1f} s, p95 {percentile(latencies, 0.95):.1f} s")
    t = usage.totals
    print(f"usage: {t['calls']} model calls, {t['input']} input + {t['output']} output tokens")
    return 1 if broken else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="ask only the first N questions")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)  # fallbacks are summarised below, not logged one by one
    settings = Settings()
    if not llm_configured(settings):
        print("skipped: no LLM configured (set DASHSCOPE_API_KEY, OPENAI_BASE_URL or GPU_ADVISOR_LLM_MODEL=local:...)")
        return 0
    provider, model = resolve_provider(settings)
    limits = call_limits(settings)
    print(
        f"live check: {provider}:{model}, max_tokens {limits.max_tokens}, timeout {timeout_s(settings):g} s "
        f"per call / {limits.answer_timeout_s:g} s per answer"
    )
    assistant = build_assistant(settings)
    return run(assistant, secret_values(settings), args.limit)


if __name__ == "__main__":
    sys.exit(main())
