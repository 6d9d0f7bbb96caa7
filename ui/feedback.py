"""Answer records and the 👍/👎 given on them, in the shared database (:mod:`ui.store`).

The server records every answer it gives (id, question, answer, engine) and hands the id to the client;
feedback names that id and adds only a rating and a short comment. Question, answer and engine in a
feedback record therefore always come from the server, never from the client. One rating per answer:
rating again replaces the earlier rating.
"""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection, delete, insert, select
from sqlalchemy.exc import IntegrityError

from ui.store import Database
from ui.store.schema import answers, feedback

Rating = Literal["up", "down"]
Face = Literal["web", "api", "slack"]

MAX_COMMENT_CHARS = 1000
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class UnknownAnswerError(LookupError):
    """Feedback names an answer id the server never gave (or has forgotten)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def clean_comment(comment: str | None) -> str:
    """Clean a comment for storing: control characters dropped, trimmed, at most ``MAX_COMMENT_CHARS`` characters."""
    return _CONTROL.sub("", comment or "").strip()[:MAX_COMMENT_CHARS]


class FeedbackRecord(BaseModel):
    """One rating of one answer, with the answer as the server recorded it.

    Attributes:
        id: Row id, set by the store.
        created_at: When the rating was given, ISO 8601 UTC.
        answer_id: The server's id of the rated answer.
        session: The chat session (Gradio session hash, API session id or Slack thread).
        face: Where the rating came from.
        question: The user's question the answer replied to (from the answer record).
        answer: The answer as the server gave it (from the answer record).
        engine: ``llm`` or ``offline``: the engine that produced the answer.
        rating: ``up`` or ``down``.
        comment: The user's optional comment (control characters dropped, bounded).
    """

    model_config = ConfigDict(extra="forbid")

    id: int
    created_at: str
    answer_id: str
    session: str
    face: Face
    question: str
    answer: str
    engine: str
    rating: Rating
    comment: str = Field(default="", max_length=MAX_COMMENT_CHARS)


class FeedbackStore:
    """Answer records and ratings; safe to share between threads and replicas."""

    def __init__(self, db: Database) -> None:
        """Keep records in ``db``."""
        self.db = db

    @classmethod
    def in_dir(cls, data_dir: Path) -> FeedbackStore:
        """Open the store of the default database, the SQLite file under ``data_dir``."""
        return cls(Database.for_data_dir(data_dir))

    def record_answer(self, *, face: Face, session: str, question: str, answer: str, engine: str) -> str:
        """Record an answer the server gave; return its id (random, unguessable)."""
        answer_id = uuid.uuid4().hex
        row = {
            "id": answer_id,
            "created_at": _now(),
            "face": face,
            "session": session[:128],
            "question": question,
            "answer": answer,
            "engine": engine,
        }
        self.db.write(lambda conn: conn.execute(insert(answers).values(**row)))
        return answer_id

    def add(self, answer_id: str, rating: Rating, comment: str | None = "", *, face: Face, session: str) -> int:
        """Rate a recorded answer (replacing an earlier rating of it); return the feedback row id.

        Raises:
            UnknownAnswerError: No answer with that id was recorded.
        """
        row = {
            "created_at": _now(),
            "answer_id": answer_id,
            "session": session[:128],
            "face": face,
            "rating": rating,
            "comment": clean_comment(comment),
        }

        def work(conn: Connection) -> int:
            if conn.execute(select(answers.c.id).where(answers.c.id == answer_id)).first() is None:
                raise UnknownAnswerError(answer_id)
            conn.execute(delete(feedback).where(feedback.c.answer_id == answer_id))
            key = conn.execute(insert(feedback).values(**row)).inserted_primary_key
            assert key is not None  # an INSERT always has one
            return int(key[0])

        try:
            return self.db.write(work)
        except IntegrityError:  # the answer row vanished between the check and the insert
            raise UnknownAnswerError(answer_id) from None

    def list(self, limit: int | None = None) -> list[FeedbackRecord]:
        """Return records oldest first; ``limit`` keeps only the newest ``limit`` of them."""
        query = (
            select(
                feedback.c.id,
                feedback.c.created_at,
                feedback.c.answer_id,
                feedback.c.session,
                feedback.c.face,
                answers.c.question,
                answers.c.answer,
                answers.c.engine,
                feedback.c.rating,
                feedback.c.comment,
            )
            .join(answers, answers.c.id == feedback.c.answer_id)
            .order_by(feedback.c.id.desc())
        )
        if limit is not None:
            query = query.limit(limit)
        rows = self.db.read(lambda conn: conn.execute(query).mappings().all())
        return [FeedbackRecord(**row) for row in reversed(rows)]
