"""Every command-line error is one line and exit status 2: bad settings, ports, config.json values, files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ui.cli import main

QWEN_7B = Path(__file__).parent / "fixtures" / "configs" / "qwen2.5-7b-instruct.json"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(argv)
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def _one_line_error(code: int, err: str, *expected: str) -> None:
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for part in expected:
        assert part in err


def test_invalid_settings_are_summarised_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_RATE_LIMIT_PER_MIN", "-1")
    monkeypatch.setenv("GPU_ADVISOR_EMBED_ORIGINS", "ftp://docs")
    code, _, err = _run(["feedback"], capsys)
    _one_line_error(code, err, "invalid settings", "GPU_ADVISOR_RATE_LIMIT_PER_MIN", "GPU_ADVISOR_EMBED_ORIGINS")


def test_a_malformed_database_url_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", "oracle://x/y")
    code, _, err = _run(["feedback"], capsys)
    _one_line_error(code, err, "GPU_ADVISOR_DATABASE_URL: must be sqlite:///path or postgresql://")


@pytest.mark.parametrize("port", ["70000", "0", "-1", "http"])
def test_impossible_ports_are_one_line(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["serve", "--port", port], capsys)
    _one_line_error(code, err, "--port", "1 to 65535")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"num_attention_heads": 0}, "'num_attention_heads' must be at least 1"),
        ({"num_hidden_layers": -4}, "'num_hidden_layers' must be at least 1"),
        ({"hidden_size": 0}, "'hidden_size' must be at least 1"),
    ],
)
def test_impossible_config_json_values_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, int], expected: str
) -> None:
    config = json.loads(QWEN_7B.read_text()) | change
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    code, _, err = _run(["estimate", "--model", str(path)], capsys)
    _one_line_error(code, err, expected)


@pytest.mark.parametrize(
    ("content", "expected"),
    [(b"\x00\xff\xfe binary", "not readable JSON"), (b"[" * 100_000 + b"]" * 100_000, "nested too deeply")],
)
def test_unreadable_config_files_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, expected: str
) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(content)
    code, _, err = _run(["estimate", "--model", str(path)], capsys)
    _one_line_error(code, err, expected)


def test_estimate_from_answers_every_line_even_binary_and_deeply_nested_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        b'{"model": "Qwen2.5-7B-Instruct"}',
        b"\xff\xfe\x00 binary",
        b"[" * 20_000 + b"]" * 20_000,
        b'{"model": ' + b'{"a": ' * 5_000 + b"1" + b"}" * 5_000 + b"}",
        b"x" * (100 * 1024),
    ]
    path = tmp_path / "batch.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    code, out, err = _run(["estimate", "--from", str(path)], capsys)
    assert code == 0 and err == ""
    results = [json.loads(line) for line in out.splitlines()]
    assert len(results) == len(lines) and "error" not in results[0]
    assert [r["error"] for r in results[1:]] == [
        "line 2: not UTF-8 text",
        "line 3: nested too deeply",
        "line 4: nested too deeply",
        "line 5: longer than 64 KiB",
    ]


def test_estimate_from_a_directory_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["estimate", "--from", str(tmp_path)], capsys)
    _one_line_error(code, err, "cannot read")
