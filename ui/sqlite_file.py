"""One SQLite file with its schema created on first use; shared by the feedback and session stores."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path


class SQLiteFile:
    """A database file whose schema (a script of CREATE ... IF NOT EXISTS) is applied once per object.

    Each ``connect()`` opens a fresh connection, so one object serves many threads; WAL lets readers
    and one writer (several server replicas sharing a volume) proceed together.
    """

    def __init__(self, path: Path, schema: str) -> None:
        """Use the database at ``path``; ``schema`` runs before the first connection is handed out."""
        self.path = path
        self._schema = schema
        self._ready = False
        self._lock = threading.Lock()

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        """Yield a connection inside a transaction (committed on success, rolled back on error)."""
        self._ensure_schema()
        with closing(sqlite3.connect(self.path, timeout=10)) as conn, conn:
            yield conn

    def _ensure_schema(self) -> None:
        with self._lock:
            if self._ready:
                return
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with closing(sqlite3.connect(self.path, timeout=10)) as conn, conn:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(self._schema)
            self._ready = True
