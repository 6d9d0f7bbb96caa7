"""Answer records and feedback (shared store, SQLite here) and ``gpu-advisor feedback``."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from ui.cli import main
from ui.feedback import MAX_COMMENT_CHARS, FeedbackStore, UnknownAnswerError
from ui.store import Database


def _store(tmp_path: Path) -> FeedbackStore:
    return FeedbackStore(Database.for_data_dir(tmp_path))


def _answered(store: FeedbackStore, n: int) -> str:
    return store.record_answer(face="web", session=f"s{n}", question=f"q{n}", answer=f"a{n}", engine="offline")


def test_feedback_carries_the_servers_record_of_the_answer(tmp_path: Path) -> None:
    store = _store(tmp_path)
    answer_id = _answered(store, 1)
    store.add(answer_id, "up", "helpful", face="web", session="s1")
    [record] = _store(tmp_path).list()
    assert (record.answer_id, record.question, record.answer, record.engine) == (answer_id, "q1", "a1", "offline")
    assert (record.rating, record.comment, record.face) == ("up", "helpful", "web")
    assert (tmp_path / "gpu-advisor.sqlite3").is_file()


def test_unknown_answer_ids_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UnknownAnswerError):
        _store(tmp_path).add("0" * 32, "down", face="api", session="x")
    assert _store(tmp_path).list() == []


def test_rating_again_replaces_and_comments_are_cleaned_and_bounded(tmp_path: Path) -> None:
    store = _store(tmp_path)
    answer_id = _answered(store, 1)
    store.add(answer_id, "up", face="web", session="s1")
    store.add(answer_id, "down", "\x1b[31mred[/bold]" + "x" * 5000, face="web", session="s1")
    [record] = store.list()
    assert record.rating == "down"
    assert "\x1b" not in record.comment and len(record.comment) == MAX_COMMENT_CHARS


def test_limit_keeps_the_newest_records_oldest_first(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for n in range(5):
        store.add(_answered(store, n), "down" if n % 2 else "up", face="web", session=f"s{n}")
    assert [r.question for r in store.list(limit=2)] == ["q3", "q4"]
    assert [r.rating for r in store.list()] == ["up", "down", "up", "down", "up"]


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    store = _store(tmp_path)

    def rate(n: int) -> None:
        store.add(_answered(store, n), "up", face="web", session=f"s{n}")

    threads = [threading.Thread(target=rate, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.session for r in store.list()) == sorted(f"s{n}" for n in range(16))


def test_cli_prints_records_as_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    store = _store(tmp_path)
    store.add(_answered(store, 1), "up", "表格很清楚", face="web", session="s1")
    with pytest.raises(SystemExit) as done:
        main(["feedback", "--json"])
    assert done.value.code == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 1
    assert rows[0]["comment"] == "表格很清楚"
    assert set(rows[0]) == {
        "id", "created_at", "answer_id", "session", "face", "question", "answer", "engine", "rating", "comment"
    }


def test_cli_table_shows_user_text_literally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "200")
    store = _store(tmp_path)
    store.add(_answered(store, 1), "down", "[bold red]loud[/] [/nope]", face="web", session="s1")
    with pytest.raises(SystemExit) as done:
        main(["feedback"])
    assert done.value.code == 0
    assert "[bold red]loud[/] [/nope]" in capsys.readouterr().out


def test_cli_says_when_there_is_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    with pytest.raises(SystemExit):
        main(["feedback"])
    assert capsys.readouterr().out == "no feedback yet\n"
