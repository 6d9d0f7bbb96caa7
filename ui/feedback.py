"""Thumbs up/down on answers, kept durably in SQLite under the data directory.

One small table; every call opens its own connection, so the store is safe to share between the
server's threads (SQLite serialises writers; WAL lets readers run beside them).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ui.sqlite_file import SQLiteFile

FEEDBACK_FILE = "feedback.sqlite3"

Rating = Literal["up", "down"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS feedback (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    session TEXT NOT NULL,
    face TEXT NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL,
    engine TEXT NOT NULL,
    rating TEXT NOT NULL CHECK (rating IN ('up', 'down')),
    comment TEXT NOT NULL DEFAULT ''
)
"""
_COLUMNS = ("id", "created_at", "session", "face", "question", "answer", "engine", "rating", "comment")


class FeedbackRecord(BaseModel):
    """One rating of one answer.

    Attributes:
        id: Row id, set by the store.
        created_at: When the rating was given, ISO 8601 UTC.
        session: The chat session (Gradio session hash, API session id or Slack thread).
        face: Where the rating came from.
        question: The user's question the answer replied to.
        answer: The answer as shown (Markdown).
        engine: ``llm`` or ``offline``: the engine that produced the answer.
        rating: ``up`` or ``down``.
        comment: The user's optional comment.
    """

    model_config = ConfigDict(extra="forbid")

    id: int | None = None
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    session: str
    face: Literal["web", "api", "slack"] = "web"
    question: str
    answer: str
    engine: str
    rating: Rating
    comment: str = Field(default="", max_length=4000)


class FeedbackStore:
    """Feedback records in one SQLite file."""

    def __init__(self, path: Path) -> None:
        """Use the database at ``path``; the file and table are created on first use."""
        self.path = path
        self._db = SQLiteFile(path, _SCHEMA)

    @classmethod
    def in_dir(cls, data_dir: Path) -> FeedbackStore:
        """Open the store the server and ``gpu-advisor feedback`` share: ``<data_dir>/feedback.sqlite3``."""
        return cls(data_dir / FEEDBACK_FILE)

    def add(self, record: FeedbackRecord) -> FeedbackRecord:
        """Store ``record`` and return it with its id."""
        values = record.model_dump(exclude={"id"})
        names = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        with self._db.connect() as conn:
            cursor = conn.execute(f"INSERT INTO feedback ({names}) VALUES ({marks})", tuple(values.values()))
            row_id = cursor.lastrowid
        return record.model_copy(update={"id": row_id})

    def list(self, limit: int | None = None) -> list[FeedbackRecord]:
        """Return records oldest first; ``limit`` keeps only the newest ``limit`` of them."""
        if not self.path.exists():
            return []
        query = f"SELECT {', '.join(_COLUMNS)} FROM feedback ORDER BY id"
        if limit is not None:
            query = f"SELECT * FROM ({query} DESC LIMIT {int(limit)}) ORDER BY id"
        with self._db.connect() as conn:
            rows = conn.execute(query).fetchall()
        return [FeedbackRecord(**dict(zip(_COLUMNS, row, strict=True))) for row in rows]
