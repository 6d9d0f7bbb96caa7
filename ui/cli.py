"""The ``gpu-advisor`` command line.

Each subcommand lives in ``ui/commands/<area>.py`` and exposes ``register(subparsers)``. Registering only
builds argparse parsers; the handlers import heavy libraries (Chroma, LangChain, Gradio) when they run, so
``gpu-advisor --help`` stays fast and every command is listed even when its extra is not installed;
running one without its extra prints the ``pip install 'gpu-advisor[EXTRA]'`` line to use.
"""

from __future__ import annotations

import argparse
import atexit
import gc
import importlib
import os
import sys
from typing import TYPE_CHECKING, NoReturn

from ui.extras import MissingExtraError, as_missing_extra

if TYPE_CHECKING:
    from pydantic import ValidationError

# Order is the order shown in --help.
_COMMAND_MODULES = ("core", "prices", "knowledge", "ask", "web", "slack", "mcp")
# Which module registers each command: running one command builds only its module's parsers (a cold
# `plan` need not import and build the other ~100 options). tests/test_cli_speed_paths.py checks this map.
_COMMAND_MODULE = {
    "estimate": "core", "plan": "core", "instances": "core", "gpus": "core", "models": "core",
    "prices": "prices", "index": "knowledge", "search": "knowledge", "ask": "ask",
    "ui": "web", "serve": "web", "feedback": "web", "slack": "slack", "mcp": "mcp",
}
_GLOBAL_FLAGS = ("-v", "--verbose")
# Commands that keep running: they collect reference cycles as usual (see main).
_SERVING_COMMANDS = frozenset({"ui", "serve", "slack", "mcp"})
# One-off commands of the core install whose process ends without the interpreter's teardown (see run).
_COMPUTING_COMMANDS = frozenset({"estimate", "plan", "instances", "gpus", "models"})


class CommandError(Exception):
    """A user-facing failure: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line (no usage dump), so scripts see a single clear message."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see --help)", file=sys.stderr)
        raise SystemExit(2)


def build_parser(modules: tuple[str, ...] = _COMMAND_MODULES, command: str | None = None) -> argparse.ArgumentParser:
    """Build the top-level parser with the subcommands of ``modules`` (default: every one) registered.

    With ``command``, a module that has ``register_<command>`` adds that command alone (argparse spends
    ~0.3 ms per option; ``plan`` has 40 of the core commands' 100).
    """
    parser = _Parser(
        prog="gpu-advisor",
        description="Which Alibaba Cloud GPU instance, how many cards, what it costs.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in modules:
        try:
            module = importlib.import_module(f"ui.commands.{name}")
        except ModuleNotFoundError as exc:  # an area not built yet must not break the others
            if exc.name != f"ui.commands.{name}":
                raise
            continue
        getattr(module, f"register_{command}", module.register)(sub)
    return parser


def settings_problem(exc: ValidationError) -> str:
    """Summarise invalid settings in one line: ``invalid settings: NAME: problem; ...``."""
    parts = []
    for err in exc.errors():
        name = ".".join(str(p) for p in err.get("loc", ())) or exc.title
        message = " ".join(str(err.get("msg", "invalid")).split())
        message = message.removeprefix("Value error, ").removeprefix(f"{name}: ")
        parts.append(f"{name}: {message}")
    return f"invalid {'settings' if exc.title == 'Settings' else exc.title}: " + "; ".join(parts)


def _command_of(argv: list[str]) -> str | None:
    """Return the command named on the command line, or None (help, an unknown word, nothing)."""
    for token in argv:
        if token not in _GLOBAL_FLAGS:
            return token if token in _COMMAND_MODULE else None
    return None


def _parser_for(argv: list[str]) -> argparse.ArgumentParser:
    """Return a parser of the command being run alone; of every command for help, errors and the rest."""
    command = _command_of(argv)
    return build_parser() if command is None else build_parser((_COMMAND_MODULE[command],), command)


def run() -> None:
    """Run the ``gpu-advisor`` script: :func:`main`, and for a computing command an exit without teardown.

    Tearing the interpreter down (freeing every module and object, then a last garbage collection) costs a
    cold ``plan`` about 6% of its instructions, and a computing command leaves nothing that needs it: no
    thread, no open file, no object whose finalizer does work. Exit handlers still run and the standard
    streams are flushed, so the output and the exit status are as before; where a thread is still alive or
    a flush fails, the process exits the usual way. Other commands (servers, ``ask``) always do.
    """
    if _command_of(sys.argv[1:]) not in _COMPUTING_COMMANDS:
        main()
        return
    # Off before main, so main leaves it off: turned back on, the collector's first pass would walk every
    # object made since it was turned off (~2% of a cold ``plan``) just before the process ends.
    gc.disable()
    # Pydantic looks for third-party plugins (observability hooks such as logfire) by reading the entry
    # points of every installed distribution before it builds the first model: ~4% of a cold ``plan`` in a
    # full install. A one-off computation has nothing for them to observe. Setting the variable (to "" to
    # load them all, or to a list of names to skip) keeps pydantic's own behaviour.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    try:
        main()
        code: object = 0
    except SystemExit as done:
        code = done.code
    if not isinstance(code, int | None):  # a message to print: the interpreter's own exit prints it
        raise SystemExit(code)
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        raise SystemExit(code)
    atexit._run_exitfuncs()  # logging's flush among them; they run once (the call clears them)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - e.g. a closed pipe: let the usual exit report it as before
        raise SystemExit(code) from None
    os._exit(code or 0)


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, run the handler, turn user errors into one clear line."""
    # A command runs for a moment and leaves few reference cycles, while the collector's passes over the
    # objects that importing pydantic and building models create cost ~10% of a cold start. So it is off
    # until the command ends, except for the serving commands. Nothing heavy is imported before this.
    collecting = gc.isenabled()
    gc.disable()
    try:
        _main(argv)
    finally:
        if collecting:
            gc.enable()


def _main(argv: list[str] | None) -> None:
    from pydantic import ValidationError

    from tools.errors import ToolInputError

    args = _parser_for(sys.argv[1:] if argv is None else argv).parse_args(argv)
    if args.command in _SERVING_COMMANDS:
        gc.enable()
    if args.verbose or args.command not in _COMPUTING_COMMANDS:
        _configure_logging(args.verbose)
    try:
        code = args.handler(args)
    except (ToolInputError, CommandError, MissingExtraError) as exc:
        print(f"gpu-advisor: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except ValidationError as exc:  # the settings (environment or .env) are the only unconverted source
        print(f"gpu-advisor: error: {settings_problem(exc)}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except BrokenPipeError:
        raise SystemExit(0) from None
    except Exception as exc:  # a bug: details to the log, one line to the user
        missing = as_missing_extra(exc, f"'gpu-advisor {args.command}'")
        if missing is not None:  # not a bug: an optional extra is not installed
            print(f"gpu-advisor: error: {missing}", file=sys.stderr)
            raise SystemExit(2) from None
        import logging

        logging.getLogger(__name__).debug("unexpected error", exc_info=True)
        print(f"gpu-advisor: internal error: {type(exc).__name__}: {exc} (rerun with -v for details)", file=sys.stderr)
        raise SystemExit(1) from None
    raise SystemExit(code or 0)


def _configure_logging(verbose: bool) -> None:
    """Log to stderr: everything with ``-v``, else warnings and errors.

    A computing command without ``-v`` skips this, and with it the import of logging (~1% of a cold
    ``plan``): it logs nothing but debug lines, except a warning about a damaged live price snapshot,
    which Python's last-resort handler prints to stderr all the same (without the ``WARNING:name:``
    prefix).
    """
    import logging

    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING, stream=sys.stderr)
