"""The web commands' arguments and start-up checks (no server is started here)."""

from __future__ import annotations

import socket

import pytest

from ui.cli import CommandError, build_parser
from ui.commands.web import run_serve, run_ui


def test_ui_listens_on_loopback_and_serve_on_all_interfaces_by_default() -> None:
    parser = build_parser()
    ui = parser.parse_args(["ui"])
    serve = parser.parse_args(["serve", "--port", "8080"])
    assert (ui.host, ui.port, ui.handler) == ("127.0.0.1", 7860, run_ui)
    assert (serve.host, serve.port, serve.handler) == ("0.0.0.0", 8080, run_serve)
    assert parser.parse_args(["feedback", "--json", "--limit", "5"]).limit == 5


def test_a_busy_port_is_one_clear_error_before_any_work() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        args = build_parser().parse_args(["ui", "--port", str(port)])
        with pytest.raises(CommandError, match=f"cannot listen on 127.0.0.1:{port}.*pass --port"):
            args.handler(args)


def test_feedback_limit_must_be_positive() -> None:
    args = build_parser().parse_args(["feedback", "--limit", "0"])
    with pytest.raises(CommandError, match="--limit"):
        args.handler(args)
