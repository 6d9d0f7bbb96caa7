"""``gpu-advisor index`` and ``gpu-advisor search``: build the knowledge index, query it.

Heavy imports (Chroma, the embedder, rich) happen inside the handlers so ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from knowledge.base import KnowledgeBase
    from knowledge.models import Passage

T = TypeVar("T")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``index`` and ``search`` subcommands."""
    index = subparsers.add_parser(
        "index",
        help="build or refresh the knowledge index (embeds only new and changed sections)",
        description="Embed the guidance documents into the vector store; a re-run embeds only changes.",
    )
    index.add_argument("--json", action="store_true", help="print the report as JSON")
    index.set_defaults(handler=run_index)

    search = subparsers.add_parser(
        "search",
        help="search the guidance documents",
        description="Hybrid (vector + keyword + exact name) search over the guidance documents.",
    )
    search.add_argument("query", help="question or keywords, Chinese or English")
    search.add_argument("-k", type=int, default=5, help="number of passages (default: 5)")
    search.add_argument("--lang", choices=["en", "zh"], help="prefer passages in this language")
    search.add_argument("--mode", choices=["hybrid", "dense", "keyword"], default="hybrid", help="ranking signals")
    search.add_argument("--json", action="store_true", help="print passages as a JSON list")
    search.set_defaults(handler=run_search)


def passages_to_json(passages: list[Passage]) -> str:
    """Search results as a JSON array (UTF-8 text kept readable)."""
    rows: list[dict[str, Any]] = [p.model_dump() for p in passages]
    return json.dumps(rows, ensure_ascii=False, indent=2)


def run_index(args: argparse.Namespace) -> int:
    """Run ``gpu-advisor index``."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    kb = _knowledge_base()
    console = Console(stderr=True)
    with Progress(
        TextColumn("embedding sections"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        task = bar.add_task("embed", total=None)

        def progress(done: int, total: int) -> None:
            # Nothing to embed (index up to date, or every vector shipped): a "0/0" bar would say nothing.
            bar.update(task, completed=done, total=total, visible=total > 0)

        report = _guarded(lambda: kb.build_index(progress))
    if args.json:
        _out(report.model_dump_json(indent=2))
    else:
        _out(
            f"{report.collection}: {report.chunks} sections - {report.added} added, "
            f"{report.updated} updated, {report.removed} removed, {report.unchanged} unchanged "
            f"in {report.seconds:.1f} s"
        )
    return 0


def run_search(args: argparse.Namespace) -> int:
    """Run ``gpu-advisor search``."""
    from ui.cli import CommandError

    if args.k < 1:
        raise CommandError("-k must be at least 1")
    kb = _knowledge_base()
    passages = _guarded(lambda: kb.search(args.query, k=args.k, lang=args.lang, mode=args.mode))
    if args.json:
        _out(passages_to_json(passages))
        return 0
    for rank, p in enumerate(passages, start=1):
        cite = p.citation()
        _out(f"{rank}. {p.doc_title} > {p.section}  [{cite.path}]  score {p.score:.4f}")
        _out(f"   {cite.snippet}")
        _out(f"   sources: {', '.join(p.sources)}")
    if not passages:
        _out("no passages found")
    return 0


def _knowledge_base() -> KnowledgeBase:
    from assistant.settings import Settings, knowledge_config_from_settings
    from knowledge.base import KnowledgeBase

    return _guarded(lambda: KnowledgeBase(knowledge_config_from_settings(Settings())))


def _out(line: str = "") -> None:
    sys.stdout.write(line + "\n")


def _guarded(fn: Callable[[], T]) -> T:
    # Configuration and connection problems become one clear line (exit 2) instead of a traceback.
    from knowledge.config import KnowledgeConfigError
    from knowledge.documents import DocumentError
    from knowledge.embeddings import EmbeddingError
    from knowledge.store import StoreError
    from ui.cli import CommandError

    try:
        return fn()
    except (KnowledgeConfigError, StoreError, EmbeddingError, DocumentError) as exc:
        raise CommandError(str(exc)) from exc
