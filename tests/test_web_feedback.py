"""Feedback store (SQLite) and ``gpu-advisor feedback``; the chat's like handler round trip."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from ui.cli import main
from ui.feedback import FeedbackRecord, FeedbackStore


def _record(n: int, rating: str = "up", **kw: str) -> FeedbackRecord:
    return FeedbackRecord(
        session=f"s{n}",
        question=f"q{n}",
        answer=f"a{n}",
        engine="offline",
        rating=rating,
        **kw,  # type: ignore[arg-type]
    )


def test_records_survive_a_new_store_object(tmp_path: Path) -> None:
    first = FeedbackStore.in_dir(tmp_path).add(_record(1, comment="helpful"))
    assert first.id == 1
    again = FeedbackStore.in_dir(tmp_path).list()
    assert again == [first]
    assert (tmp_path / "feedback.sqlite3").is_file()


def test_limit_keeps_the_newest_records_oldest_first(tmp_path: Path) -> None:
    store = FeedbackStore.in_dir(tmp_path)
    for n in range(5):
        store.add(_record(n, rating="down" if n % 2 else "up"))
    assert [r.question for r in store.list(limit=2)] == ["q3", "q4"]
    assert [r.rating for r in store.list()] == ["up", "down", "up", "down", "up"]


def test_empty_store_lists_nothing_and_creates_no_file(tmp_path: Path) -> None:
    assert FeedbackStore.in_dir(tmp_path / "new").list() == []
    assert not (tmp_path / "new").exists()


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    store = FeedbackStore.in_dir(tmp_path)
    threads = [threading.Thread(target=lambda n=n: store.add(_record(n))) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.session for r in store.list()) == sorted(f"s{n}" for n in range(16))


def test_cli_prints_records_as_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    FeedbackStore.in_dir(tmp_path).add(_record(1, comment="表格很清楚"))
    with pytest.raises(SystemExit) as done:
        main(["feedback", "--json"])
    assert done.value.code == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 1
    assert rows[0]["comment"] == "表格很清楚"
    assert set(rows[0]) == {"id", "created_at", "session", "face", "question", "answer", "engine", "rating", "comment"}


def test_cli_says_when_there_is_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    with pytest.raises(SystemExit):
        main(["feedback"])
    assert capsys.readouterr().out == "no feedback yet\n"
