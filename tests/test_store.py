"""The shared store on SQLite: migrations, busy-database retries, clear errors, health reasons."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from ui.api import Services, healthz
from ui.budget import AnswerBudget
from ui.feedback import FeedbackStore
from ui.sessions import SessionStore
from ui.store import Database, StoreError


def test_migrations_are_recorded_once(tmp_path: Path) -> None:
    first = Database.for_data_dir(tmp_path)
    assert first.migrate() == 1
    assert Database.for_data_dir(tmp_path).migrate() == 1
    versions = first.read(lambda conn: conn.exec_driver_sql("SELECT version FROM schema_version").scalars().all())
    assert versions == [1]
    mode = first.read(lambda conn: conn.exec_driver_sql("PRAGMA journal_mode").scalar())
    assert mode == "wal"


def test_many_writers_through_separate_engines_never_see_a_locked_database(tmp_path: Path) -> None:
    # Separate Database objects stand for separate processes sharing the file.
    stores = [SessionStore(Database.for_data_dir(tmp_path), max_messages=500) for _ in range(4)]
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for k in range(5):
                stores[n % 4].append("shared", f"q{n}-{k}", "a")
                stores[n % 4].history("shared")
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(stores[0].history("shared")) == 16 * 5 * 2


def test_a_write_waits_for_another_writer_instead_of_failing(tmp_path: Path) -> None:
    store = SessionStore(Database.for_data_dir(tmp_path))
    store.append("s", "q0", "a0")
    blocker = sqlite3.connect(tmp_path / "gpu-advisor.sqlite3", isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN EXCLUSIVE")
    release = threading.Timer(0.5, lambda: blocker.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    store.append("s", "q1", "a1")
    release.join()
    blocker.close()
    assert time.monotonic() - started >= 0.4
    assert [m.content for m in store.history("s")][-2:] == ["q1", "a1"]


@pytest.mark.parametrize(
    ("url", "expected"),
    [("mysql://u@h/db", "unsupported database 'mysql'"), ("not a url", "is not a database URL")],
)
def test_bad_urls_are_one_clear_error(url: str, expected: str) -> None:
    with pytest.raises(StoreError, match=expected) as raised:
        Database(url)
    assert "\n" not in str(raised.value)


def test_an_unreachable_database_fails_fast_and_hides_the_password() -> None:
    db = Database("postgresql://user:s3cret@127.0.0.1:9/nothing")  # nothing listens on port 9
    reason = db.check()
    assert reason is not None and "s3cret" not in reason and "127.0.0.1:9" in reason
    with pytest.raises(StoreError):
        SessionStore(db).history("x")


class _StubAssistant:
    engine = "offline"


def test_health_is_degraded_with_the_reason_when_the_store_fails() -> None:
    db = Database("postgresql://user:pw@127.0.0.1:9/nothing")
    svc = Services(
        assistant=_StubAssistant(),  # type: ignore[arg-type]  # healthz reads only .engine
        sessions=SessionStore(db),
        feedback=FeedbackStore(db),
        budget=AnswerBudget(1.0, workers=1),
        health_checks=(db.check, lambda: None),
    )
    health = healthz(svc)
    assert health.status == "degraded" and len(health.reasons) == 1
    assert health.reasons[0].startswith("database postgresql+psycopg://user:***@127.0.0.1:9/nothing")
