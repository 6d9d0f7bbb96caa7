"""Session histories of the HTTP API in the shared store (SQLite here; PostgreSQL in test_store_replicas)."""

from __future__ import annotations

import time
from pathlib import Path

from ui.sessions import SESSION_ID, SessionStore, new_session_id
from ui.store import Database


def test_turns_come_back_in_order_across_store_objects(tmp_path: Path) -> None:
    SessionStore(Database.for_data_dir(tmp_path)).append("abc", "Qwen2.5-72B?", "Use gn7e.")
    SessionStore(Database.for_data_dir(tmp_path)).append("abc", "INT8?", "Then gn8is.")
    history = SessionStore(Database.for_data_dir(tmp_path)).history("abc")
    assert [(m.role, m.content) for m in history] == [
        ("user", "Qwen2.5-72B?"),
        ("assistant", "Use gn7e."),
        ("user", "INT8?"),
        ("assistant", "Then gn8is."),
    ]
    assert SessionStore(Database.for_data_dir(tmp_path)).history("other") == []


def test_only_the_last_messages_are_kept(tmp_path: Path) -> None:
    store = SessionStore(Database.for_data_dir(tmp_path), max_messages=4)
    for n in range(5):
        store.append("s", f"q{n}", f"a{n}")
    assert [m.content for m in store.history("s")] == ["q3", "a3", "q4", "a4"]


def test_expired_sessions_are_forgotten(tmp_path: Path) -> None:
    store = SessionStore(Database.for_data_dir(tmp_path), ttl_s=0.05)
    store.append("s", "q", "a")
    time.sleep(0.1)
    assert store.history("s") == []


def test_new_ids_are_valid_and_distinct() -> None:
    ids = {new_session_id() for _ in range(100)}
    assert len(ids) == 100 and all(SESSION_ID.match(i) for i in ids)
    assert not SESSION_ID.match("has space") and not SESSION_ID.match("x" * 129)
