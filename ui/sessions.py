"""Conversation histories of HTTP API sessions, in SQLite under the data directory.

The assistant is stateless: it needs the earlier turns with every question. Browser chats keep them in
the page; API clients send a ``session_id`` instead, and this store remembers the turns behind it.
SQLite on the data volume means several server replicas sharing that volume see the same sessions.
Sessions idle for longer than ``ttl_s`` are forgotten; only the last ``max_messages`` turns are kept.
"""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path

from assistant.answer import Message
from ui.sqlite_file import SQLiteFile

SESSIONS_FILE = "sessions.sqlite3"
SESSION_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
"""What a client-chosen session id may look like."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (
    session_id TEXT NOT NULL,
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS turns_session ON turns (session_id, seq);
CREATE INDEX IF NOT EXISTS turns_at ON turns (at);
"""


def new_session_id() -> str:
    """Make a random, unguessable session id (the id is the only key to a conversation)."""
    return uuid.uuid4().hex


class SessionStore:
    """Turns of API conversations, keyed by session id."""

    def __init__(self, path: Path, *, max_messages: int = 20, ttl_s: float = 24 * 3600) -> None:
        """Use the database at ``path`` (created on first use).

        Args:
            path: SQLite file.
            max_messages: Messages (user and assistant) of a session given back to the assistant.
            ttl_s: Seconds after its last turn that a session is forgotten.
        """
        self.path = path
        self.max_messages = max_messages
        self.ttl_s = ttl_s
        self._db = SQLiteFile(path, _SCHEMA)

    @classmethod
    def in_dir(cls, data_dir: Path) -> SessionStore:
        """Open the store under ``<data_dir>/sessions.sqlite3``."""
        return cls(data_dir / SESSIONS_FILE)

    def history(self, session_id: str) -> list[Message]:
        """Return the last ``max_messages`` messages of the session, oldest first; empty for a new session."""
        cutoff = time.time() - self.ttl_s
        with self._db.connect() as conn:
            rows = conn.execute(
                "SELECT role, content FROM turns WHERE session_id = ? AND at >= ? ORDER BY seq DESC LIMIT ?",
                (session_id, cutoff, self.max_messages),
            ).fetchall()
        return [Message(role=role, content=content) for role, content in reversed(rows)]

    def append(self, session_id: str, question: str, answer: str) -> None:
        """Record one exchange; drop expired turns and turns beyond ``max_messages`` of this session."""
        now = time.time()
        with self._db.connect() as conn:
            conn.executemany(
                "INSERT INTO turns (session_id, role, content, at) VALUES (?, ?, ?, ?)",
                [(session_id, "user", question, now), (session_id, "assistant", answer, now)],
            )
            conn.execute(
                "DELETE FROM turns WHERE session_id = ? AND seq NOT IN "
                "(SELECT seq FROM turns WHERE session_id = ? ORDER BY seq DESC LIMIT ?)",
                (session_id, session_id, self.max_messages),
            )
            conn.execute("DELETE FROM turns WHERE at < ?", (now - self.ttl_s,))
