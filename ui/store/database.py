"""One SQL database behind a URL: SQLite (WAL, busy timeout, immediate write transactions) or PostgreSQL.

Every unit of work is a function of a connection run in one transaction by :meth:`Database.write` or
:meth:`Database.read`; transient failures (SQLite ``database is locked``, PostgreSQL serialisation
failures, deadlocks and dropped connections) roll back and run the function again, a few times with
backoff, so a busy database delays a request instead of failing it.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, select, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from ui.store.schema import MIGRATIONS, schema_version

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_FILE = "gpu-advisor.sqlite3"
_SQLITE_BUSY_MS = 15_000
_RETRIES = 6
# Connections per process: enough for every request thread (anyio's 40) to hold one at once.
_POOL = {"pool_size": 10, "max_overflow": 30, "pool_timeout": 20}
_PG_TRANSIENT = {"40001", "40P01", "55P03", "57P01", "08000", "08003", "08006"}
_MIGRATION_LOCK = 0x67707561  # "gpua": PostgreSQL advisory lock id held while migrating


class StoreError(RuntimeError):
    """The database cannot be opened or used; the message names the URL (without its password)."""


class Database:
    """A SQLAlchemy engine plus migrations and retries; safe to share between threads."""

    def __init__(self, url: str | URL) -> None:
        """Open (lazily) the database at ``url``; tables are created or migrated on first use.

        Args:
            url: ``sqlite:///path/file.sqlite3`` or ``postgresql://user:pass@host:port/db`` (psycopg 3).

        Raises:
            StoreError: The URL is malformed or names an unsupported database.
        """
        try:
            parsed = make_url(url)
        except Exception as exc:  # noqa: BLE001 - SQLAlchemy raises ArgumentError and ValueError
            raise StoreError(f"GPU_ADVISOR_DATABASE_URL is not a database URL: {exc}") from None
        backend = parsed.get_backend_name()
        if backend == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
            self.engine: Engine = create_engine(parsed, pool_pre_ping=True, **_POOL)
        elif backend == "sqlite":
            self.engine = _sqlite_engine(parsed)
        else:
            raise StoreError(f"GPU_ADVISOR_DATABASE_URL: unsupported database {backend!r} (use sqlite or postgresql)")
        self.url = parsed
        self._writer = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        self._migrated = False
        self._lock = threading.Lock()

    @classmethod
    def for_data_dir(cls, data_dir: Path, url: str | None = None) -> Database:
        """Open the configured database, else the SQLite file ``<data_dir>/gpu-advisor.sqlite3``."""
        return cls(url or f"sqlite:///{data_dir / DEFAULT_FILE}")

    @property
    def shown_url(self) -> str:
        """The URL with any password hidden, for messages and logs."""
        return self.url.render_as_string(hide_password=True)

    def write(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` in a write transaction, again on transient failures; return its result.

        Raises:
            IntegrityError: A constraint refused the write (not retried: it would fail again).
            StoreError: The database stayed unavailable through every retry.
        """
        return self._run(self._writer, work)

    def read(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` in a read transaction (retried like :meth:`write`)."""
        return self._run(self.engine, work)

    def check(self) -> str | None:
        """Return None when the database answers, else why not (for ``/healthz``)."""
        try:
            self.read(lambda conn: conn.execute(select(schema_version.c.version).limit(1)).all())
        except (StoreError, SQLAlchemyError) as exc:
            return f"database {self.shown_url}: {_short(exc)}"
        return None

    def migrate(self) -> int:
        """Apply the migrations this database lacks; return the schema version now in force."""
        with self._lock:
            if not self._migrated:
                self._with_retries(self._writer, _apply_migrations)
                self._migrated = True
        return MIGRATIONS[-1][0]

    def dispose(self) -> None:
        """Close pooled connections (tests and shutdown)."""
        self.engine.dispose()

    def _run(self, engine: Engine, work: Callable[[Connection], T]) -> T:
        if not self._migrated:
            self.migrate()
        return self._with_retries(engine, work)

    def _with_retries(self, engine: Engine, work: Callable[[Connection], T]) -> T:
        for attempt in range(_RETRIES):
            try:
                with engine.begin() as conn:
                    return work(conn)
            except IntegrityError:
                raise
            except (DBAPIError, PoolTimeoutError) as exc:
                transient = isinstance(exc, PoolTimeoutError) or _transient(exc)
                if not transient or attempt == _RETRIES - 1:
                    raise StoreError(f"database {self.shown_url}: {_short(exc)}") from exc
                delay = min(2.0, 0.05 * 2**attempt) * (0.5 + random.random())
                log.warning("database busy (%s); retry %d in %.2f s", _short(exc), attempt + 1, delay)
                time.sleep(delay)
        raise AssertionError("unreachable")  # the loop returns or raises


def _sqlite_engine(url: URL) -> Engine:
    if url.database and url.database != ":memory:":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    pool = _POOL if url.database and url.database != ":memory:" else {}
    engine = create_engine(
        url, connect_args={"timeout": _SQLITE_BUSY_MS / 1000, "check_same_thread": False}, **pool
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # The driver's own transaction handling starts writes late (deferred), which fails with "database
        # is locked" without waiting when another writer got there first; begin explicitly instead.
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={_SQLITE_BUSY_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get("sqlite_begin", "DEFERRED")
        conn.exec_driver_sql(f"BEGIN {mode}")

    return engine


def _apply_migrations(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        # Replicas starting together: one migrates, the others wait here and then find nothing to do.
        conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _MIGRATION_LOCK})
    schema_version.create(conn, checkfirst=True)
    done = set(conn.execute(select(schema_version.c.version)).scalars())
    for version, description, migration in MIGRATIONS:
        if version in done:
            continue
        migration(conn)
        conn.execute(schema_version.insert().values(version=version, description=description, applied_at=time.time()))
        log.info("database migrated to version %d (%s)", version, description)


def _transient(exc: DBAPIError) -> bool:
    if exc.connection_invalidated:
        return True
    code = getattr(exc.orig, "sqlstate", None)
    if code in _PG_TRANSIENT:
        return True
    message = str(exc.orig).lower()
    return isinstance(exc, OperationalError) and ("locked" in message or "busy" in message or "closed" in message)


def _short(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    first = str(orig).strip().splitlines()
    return f"{type(orig).__name__}: {first[0] if first else ''}"[:300]
