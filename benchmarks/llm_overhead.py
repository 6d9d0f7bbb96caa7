"""The assistant's own cost per LLM question, with a fake model that answers instantly.

    .venv/bin/python -m benchmarks.llm_overhead            # 50 questions per scenario
    .venv/bin/python -m benchmarks.llm_overhead --turns 200

Runs the real LLM engine (ChatOpenAI -> HTTP -> SSE -> LangGraph agent -> tools -> guards) against the
loopback fake OpenAI server in ``tests/fakes``, so everything measured is ours or the libraries', not a
model's. Scenarios: a direct answer (one model call), a plan (model call, ``plan_gpu_deployment``,
model call), and the plan again with compact tool schemas (the ``local:`` preset); it also prints the
size of the tool schemas sent with every call, full and compact. Per question: p50/p95 ms of the
total and of its parts: ``build`` (create_agent and tool wrappers), ``tools`` (the domain functions
themselves), ``guards`` (citations, number grounding, leak filter) and ``agent`` (the rest:
LangChain/LangGraph, the OpenAI client, loopback HTTP and the fake).
Run it from the repository root (it imports the fake from ``tests/``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool

from assistant.agent import LLMEngine, build_tools
from assistant.providers import build_chat_model
from assistant.settings import Settings
from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig
from tests.fakes.fake_openai import FakeOpenAI, last_tool_result, text, tool_call

PLAN_ARGS = {"model": "Qwen2.5-7B-Instruct", "concurrency": 8}
PARTS = ("total", "build", "tools", "guards", "agent")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _recommend(body: dict[str, Any]) -> dict[str, Any]:
    option = last_tool_result(body)["options"][0]
    return text(
        f"Use **{option['instance_type']}**: {option['per_gpu_gib_needed']} GiB of "
        f"{option['per_gpu_capacity_gib']} GiB per GPU, about ¥{option['price_cny_per_month']:,.0f} per month."
    )


SCENARIOS: dict[str, tuple[Callable[[], list[Any]], bool]] = {
    "direct answer (1 model call)": (lambda: [text("I size Alibaba Cloud GPU instances for LLMs. " * 8)], False),
    "plan (2 model calls + planner)": (lambda: [tool_call("plan_gpu_deployment", PLAN_ARGS), _recommend], False),
    "plan, compact tool schemas": (lambda: [tool_call("plan_gpu_deployment", PLAN_ARGS), _recommend], True),
}


def schema_chars(kb: KnowledgeBase, *, compact: bool) -> int:
    """Characters of the tool schemas as sent (JSON), the prompt cost every model call pays."""
    return len(json.dumps([convert_to_openai_tool(t) for t in build_tools(kb, compact=compact)], ensure_ascii=False))


def run_scenario(
    engine: LLMEngine, server: FakeOpenAI, script: Callable[[], list[Any]], turns: int
) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {part: [] for part in PARTS}
    for i in range(turns + 3):  # the first runs warm caches (catalog, imports) and are dropped
        server.push(*script())
        timings: dict[str, float] = {}
        answer = engine.answer("Which instance for Qwen2.5-7B-Instruct with 8 users?", timings=timings)
        assert answer.engine == "llm" and not answer.warnings, answer.warnings
        if i < 3:
            continue
        timings["agent"] = timings["total"] - timings["build"] - timings["tools"] - timings["guards"]
        for part in PARTS:
            samples[part].append(timings[part] * 1000)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=50, help="questions per scenario (default 50)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI() as server:
        kb = KnowledgeBase(KnowledgeConfig(data_dir=Path(tmp), embedding="hashing"))
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            OPENAI_BASE_URL=server.url,
            GPU_ADVISOR_LLM_MODEL="openai:fake",
            GPU_ADVISOR_LLM_MAX_RETRIES=0,
        )
        full, compact = schema_chars(kb, compact=False), schema_chars(kb, compact=True)
        print(f"tool schemas per call: {full} characters full, {compact} compact ({compact / full:.0%})")
        print(f"{args.turns} questions per scenario; milliseconds per question (p50 / p95)")
        print(f"{'scenario':34}" + "".join(f"{part:>16}" for part in PARTS))
        for name, (script, compact_tools) in SCENARIOS.items():
            engine = LLMEngine(build_chat_model(settings), kb, compact_tools=compact_tools)
            samples = run_scenario(engine, server, script, args.turns)
            cells = "".join(
                f"{percentile(samples[p], 0.5):>7.1f} / {percentile(samples[p], 0.95):>6.1f}" for p in PARTS
            )
            print(f"{name:34}{cells}")
            calls = 1 if "1 model" in name else 2
            print(f"{'':34}p50 per model call: {percentile(samples['total'], 0.5) / calls:.1f} ms")


if __name__ == "__main__":
    main()
