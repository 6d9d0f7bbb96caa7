"""Conversation histories of HTTP API sessions, in the shared database (:mod:`ui.store`).

The assistant is stateless: it needs the earlier turns with every question. Browser chats keep them in
the page; API clients send a ``session_id`` instead, and this store remembers the turns behind it. With
PostgreSQL as the database every replica sees the same sessions. Sessions idle for longer than ``ttl_s``
are forgotten; only the last ``max_messages`` turns are kept.
"""

from __future__ import annotations

import re
import time
import uuid

from sqlalchemy import Connection, delete, insert, select

from assistant.answer import Message
from ui.store import Database
from ui.store.schema import turns

SESSION_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
"""What a client-chosen session id may look like."""


def new_session_id() -> str:
    """Make a random, unguessable session id (the id is the only key to a conversation)."""
    return uuid.uuid4().hex


class SessionStore:
    """Turns of API conversations, keyed by session id."""

    def __init__(self, db: Database, *, max_messages: int = 20, ttl_s: float = 24 * 3600) -> None:
        """Keep sessions in ``db``.

        Args:
            db: The shared database.
            max_messages: Messages (user and assistant) of a session given back to the assistant.
            ttl_s: Seconds after its last turn that a session is forgotten.
        """
        self.db = db
        self.max_messages = max_messages
        self.ttl_s = ttl_s

    def history(self, session_id: str) -> list[Message]:
        """Return the last ``max_messages`` messages of the session, oldest first; empty for a new session."""
        cutoff = time.time() - self.ttl_s
        query = (
            select(turns.c.role, turns.c.content)
            .where(turns.c.session_id == session_id, turns.c.at >= cutoff)
            .order_by(turns.c.seq.desc())
            .limit(self.max_messages)
        )
        rows = self.db.read(lambda conn: conn.execute(query).all())
        return [Message(role=role, content=content) for role, content in reversed(rows)]

    def append(self, session_id: str, question: str, answer: str) -> None:
        """Record one exchange; drop expired turns and turns beyond ``max_messages`` of this session."""
        now = time.time()

        def work(conn: Connection) -> None:
            conn.execute(
                insert(turns),
                [
                    {"session_id": session_id, "role": "user", "content": question, "at": now},
                    {"session_id": session_id, "role": "assistant", "content": answer, "at": now},
                ],
            )
            newest = (
                select(turns.c.seq)
                .where(turns.c.session_id == session_id)
                .order_by(turns.c.seq.desc())
                .limit(self.max_messages)
            )
            conn.execute(delete(turns).where(turns.c.session_id == session_id, turns.c.seq.not_in(newest)))
            conn.execute(delete(turns).where(turns.c.at < now - self.ttl_s))

        self.db.write(work)
