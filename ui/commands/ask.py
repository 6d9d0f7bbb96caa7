"""``gpu-advisor ask``: one question to the assistant, answered as Markdown or as the Answer JSON.

Heavy imports (LangChain, Chroma, rich) happen inside the handler so ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ui.commands.engine_option import add_engine_option, settings_from_args

if TYPE_CHECKING:
    from assistant.answer import Answer, Message


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``ask`` subcommand."""
    p = subparsers.add_parser(
        "ask",
        help="ask the assistant a question (Chinese or English)",
        description="Answer a GPU sizing question with computed numbers and cited guidance.",
    )
    p.add_argument("question", help='e.g. "Qwen2.5-72B inference, 32 users: which instance?"')
    p.add_argument("--json", action="store_true", help="print the Answer as JSON")
    add_engine_option(p)
    p.add_argument(
        "--history",
        type=Path,
        metavar="FILE",
        help='earlier turns as a JSON list of {"role": "user"|"assistant", "content": ...}',
    )
    p.set_defaults(handler=run_ask)


def run_ask(args: argparse.Namespace) -> int:
    """Run ``gpu-advisor ask``."""
    from assistant.assistant import build_assistant
    from assistant.providers import ConfigurationError
    from knowledge.config import KnowledgeConfigError
    from ui.cli import CommandError

    settings = settings_from_args(args)
    history = _read_history(args.history) if args.history else []
    try:
        assistant = build_assistant(settings)
    except (ConfigurationError, KnowledgeConfigError) as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        answer = assistant.answer(args.question, history)
        sys.stdout.write(answer_json(answer) + "\n")
        return 0
    from rich.console import Console

    with Console(stderr=True).status("thinking…"):
        answer = assistant.answer(args.question, history)
    _print_human(answer)
    return 0


def answer_json(answer: Answer) -> str:
    """Render the Answer as indented JSON, Chinese kept readable."""
    return json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=2)


def sources_lines(answer: Answer) -> list[str]:
    """One line per citation: ``[n] Document > Section (path)`` followed by its source URLs."""
    lines = []
    for n, cite in enumerate(answer.citations, start=1):
        lines.append(f"[{n}] {cite.doc_title} > {cite.section} ({cite.path})")
        lines += [f"    {url}" for url in cite.sources]
    return lines


def _print_human(answer: Answer) -> None:
    from rich.console import Console
    from rich.markdown import Markdown

    out = Console()
    out.print(Markdown(answer.text))
    for detail in answer.details:
        out.print()
        out.print(Markdown(f"**{detail.title}**\n\n{detail.markdown}"))
    if answer.citations:
        out.print()
        for line in sources_lines(answer):
            out.print(line, markup=False, highlight=False)
    err = Console(stderr=True)
    for warning in answer.warnings:
        err.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    err.print(f"[dim]engine: {answer.engine}[/dim]")


def _read_history(path: Path) -> list[Message]:
    from pydantic import TypeAdapter, ValidationError

    from assistant.answer import Message
    from ui.cli import CommandError

    try:
        return TypeAdapter(list[Message]).validate_json(path.read_bytes())
    except (OSError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise CommandError(f"--history {path}: expected a JSON list of {{role, content}} ({first})") from None
