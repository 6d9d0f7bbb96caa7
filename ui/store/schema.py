"""The tables, and the migrations that create and evolve them (applied in order, each once).

A migration is recorded in ``schema_version``; a newer server on an older database applies the ones it
lacks at start-up. Never edit a released migration: add the next one.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Column, Connection, Float, ForeignKey, Index, Integer, MetaData, String, Table, Text

metadata = MetaData()

schema_version = Table(
    "schema_version",
    metadata,
    Column("version", Integer, primary_key=True),
    Column("description", String(200), nullable=False),
    Column("applied_at", Float, nullable=False),
)

turns = Table(
    "session_turns",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("session_id", String(128), nullable=False),
    Column("role", String(16), nullable=False),
    Column("content", Text, nullable=False),
    Column("at", Float, nullable=False),
    Index("session_turns_session", "session_id", "seq"),
    Index("session_turns_at", "at"),
)

answers = Table(
    "answers",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created_at", String(32), nullable=False),
    Column("face", String(8), nullable=False),
    Column("session", String(128), nullable=False),
    Column("question", Text, nullable=False),
    Column("answer", Text, nullable=False),
    Column("engine", String(16), nullable=False),
)

feedback = Table(
    "feedback",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("created_at", String(32), nullable=False),
    Column("answer_id", String(32), ForeignKey("answers.id"), nullable=False),
    Column("session", String(128), nullable=False),
    Column("face", String(8), nullable=False),
    Column("rating", String(8), nullable=False),
    Column("comment", Text, nullable=False, server_default=""),
    Index("feedback_answer", "answer_id"),
)

slack_events = Table(
    "slack_events",
    metadata,
    # The primary key makes the insert-once: a second insert of the same id fails on every replica.
    Column("event_id", String(128), primary_key=True),
    Column("seen_at", Float, nullable=False),
    Index("slack_events_seen_at", "seen_at"),
)


def _v1(conn: Connection) -> None:
    for table in (turns, answers, feedback, slack_events):
        table.create(conn, checkfirst=True)


Migration = tuple[int, str, Callable[[Connection], None]]

MIGRATIONS: tuple[Migration, ...] = (
    (1, "sessions, answer records, feedback, Slack event ids", _v1),
)
