"""``gpu-advisor ui``, ``serve`` and ``feedback``: the web server and the ratings it collected.

Heavy imports (Gradio, FastAPI, uvicorn, Chroma) happen inside the handlers so ``--help`` stays fast.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
from typing import TYPE_CHECKING

from ui.commands.engine_option import add_engine_option, settings_from_args

if TYPE_CHECKING:
    from assistant.assistant import Assistant
    from assistant.settings import Settings
    from knowledge.base import KnowledgeBase

DEFAULT_PORT = 7860


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``ui``, ``serve`` and ``feedback`` subcommands."""
    ui = subparsers.add_parser(
        "ui",
        help="open the chat page on this machine (builds the knowledge index on first start)",
        description="Serve the chat page on 127.0.0.1:7860 with the configured engine (offline by default) "
        "and embedded Chroma; the knowledge index is built first, with a progress bar.",
    )
    _add_server_options(ui, default_host="127.0.0.1")
    ui.set_defaults(handler=run_ui)

    serve = subparsers.add_parser(
        "serve",
        help="serve chat page, widget, HTTP API (and Slack events when configured) on one port",
        description="One server, one port: / chat page, /widget.js, /v1/ask, /v1/chat/completions, /docs, "
        "/healthz, and /slack/events when SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET are set.",
    )
    _add_server_options(serve, default_host="0.0.0.0")
    serve.set_defaults(handler=run_serve)

    feedback = subparsers.add_parser(
        "feedback",
        help="list the thumbs up/down users gave answers",
        description="Print the feedback stored under GPU_ADVISOR_DATA_DIR, oldest first.",
    )
    feedback.add_argument("--json", action="store_true", help="print a JSON list of records")
    feedback.add_argument("--limit", type=int, metavar="N", help="only the newest N records")
    feedback.set_defaults(handler=run_feedback)


def _add_server_options(parser: argparse.ArgumentParser, *, default_host: str) -> None:
    parser.add_argument("--host", default=default_host, help=f"interface to listen on (default: {default_host})")
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT, help=f"port (default: {DEFAULT_PORT})")
    add_engine_option(parser)


def _port(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 1 to 65535, got {text!r}")
    return int(text)


def run_ui(args: argparse.Namespace) -> int:
    """Run ``gpu-advisor ui``."""
    return _serve(args, log_level="warning")


def run_serve(args: argparse.Namespace) -> int:
    """Run ``gpu-advisor serve``."""
    return _serve(args, log_level="info")


def _serve(args: argparse.Namespace, *, log_level: str) -> int:
    import uvicorn

    from ui.cli import CommandError

    _check_port_free(args.host, args.port)
    settings = settings_from_args(args)
    assistant, kb = _ready_assistant(settings)
    from ui.server import create_app
    from ui.store import StoreError

    try:
        app = create_app(settings, assistant=assistant, knowledge_base=kb)
    except StoreError as exc:  # a malformed GPU_ADVISOR_DATABASE_URL; an unreachable one only degrades
        raise CommandError(str(exc)) from None
    server = uvicorn.Server(uvicorn.Config(app, host=args.host, port=args.port, log_level=log_level))
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    url = f"http://{shown}:{args.port}"
    threading.Thread(target=_announce, args=(server, url, assistant.engine), daemon=True).start()
    server.run()
    if not server.started:
        raise CommandError(f"the server did not start on {args.host}:{args.port} (see the log above)")
    return 0


def _ready_assistant(settings: Settings) -> tuple[Assistant, KnowledgeBase]:
    """Build the index (progress bar on stderr; only new and changed sections are embedded) and the assistant."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from assistant.assistant import build_assistant
    from assistant.providers import ConfigurationError
    from assistant.settings import knowledge_config_from_settings
    from knowledge.base import KnowledgeBase
    from knowledge.config import KnowledgeConfigError
    from knowledge.documents import DocumentError
    from knowledge.embeddings import EmbeddingError
    from ui.cli import CommandError

    console = Console(stderr=True)
    try:
        kb = KnowledgeBase(knowledge_config_from_settings(settings))
        console.print("[bold]gpu-advisor[/bold]: preparing the knowledge index (embeds only what changed)…")
        with Progress(
            TextColumn("embedding guidance sections"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
        ) as bar:
            task = bar.add_task("embed", total=None)
            logged = [-1]

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)
                # Without a terminal the bar is not drawn: log every tenth instead (container logs).
                tenth = done * 10 // total if total else 10
                if total and not console.is_terminal and tenth > logged[0]:
                    logged[0] = tenth
                    console.print(f"embedded {done}/{total} sections")

            report = kb.ensure_index(progress)
        changed = report.added + report.updated
        console.print(
            f"index ready: {report.chunks} sections ({changed} new or changed, "
            f"{report.from_shipped} of them from the vectors shipped with the docs) in {report.seconds:.1f} s"
        )
        with console.status("loading the embedding model…"):
            kb.search("warm-up", k=1)  # loads the query embedder now rather than on the first question
        return build_assistant(settings, knowledge_base=kb), kb
    except (ConfigurationError, KnowledgeConfigError, DocumentError, EmbeddingError) as exc:
        raise CommandError(str(exc)) from None


def _check_port_free(host: str, port: int) -> None:
    from ui.cli import CommandError

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CommandError(f"cannot listen on {host}:{port} ({exc.strerror}); pass --port") from None


def _announce(server: object, url: str, engine: str) -> None:
    # Print the URL once uvicorn is listening, not before: a click on it must work.
    while not getattr(server, "started", False):
        if getattr(server, "should_exit", False):
            return
        time.sleep(0.05)
    sys.stderr.write(
        f"gpu-advisor is running ({engine} engine): {url}\n"
        f"  widget: {url}/widget.js   API docs: {url}/docs   stop: Ctrl+C\n"
    )
    sys.stderr.flush()


def run_feedback(args: argparse.Namespace) -> int:
    """Run ``gpu-advisor feedback``."""
    from ui.cli import CommandError
    from ui.feedback import FeedbackStore
    from ui.store import Database, StoreError

    if args.limit is not None and args.limit < 1:
        raise CommandError("--limit must be at least 1")
    settings = settings_from_args(args)
    url = settings.database_url.get_secret_value() if settings.database_url else None
    try:
        records = FeedbackStore(Database.for_data_dir(settings.data_dir, url)).list(limit=args.limit)
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        rows = [r.model_dump() for r in records]
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not records:
        sys.stdout.write("no feedback yet\n")
        return 0
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"feedback ({len(records)})")
    for column in ("when (UTC)", "rating", "engine", "question", "comment"):
        table.add_column(column)
    for r in records:
        mark = "👍" if r.rating == "up" else "👎"
        # Text, not str: user text is shown as written, never read as console markup.
        table.add_row(r.created_at, mark, r.engine, Text(_clip(r.question, 60)), Text(_clip(r.comment, 60)))
    Console().print(table)
    return 0


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
