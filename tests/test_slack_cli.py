"""``gpu-advisor slack``: registered, and a clear one-line error when the tokens are missing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ui.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def test_slack_command_is_registered() -> None:
    args = build_parser().parse_args(["slack", "--engine", "offline"])
    assert args.handler.__name__ == "run_slack"
    assert args.engine == "offline"


def test_missing_tokens_are_named(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    with pytest.raises(SystemExit) as exit_info:
        main(["slack"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "set SLACK_APP_TOKEN to run the Slack bot" in err


def test_help_lists_slack_and_stays_light() -> None:
    # Registering the command must not import Bolt (``--help`` stays fast).
    code = "import sys; from ui.cli import build_parser; build_parser(); print('slack_bolt' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    help_text = subprocess.run(
        [sys.executable, "-m", "ui", "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert "slack" in help_text
