"""Shared set-up for the offline-engine tests: one real knowledge base per test session, and checks.

The knowledge base indexes the shipped guidance documents with the deterministic hashing embedder
(no model download, no network). Building it takes a few seconds, so it is built once per process.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from assistant.answer import Answer, Message
from assistant.engine import OfflineEngine
from assistant.guards import Evidence, ungrounded_numbers
from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig


@functools.cache
def shared_kb() -> KnowledgeBase:
    """The shipped guidance, indexed with the hashing embedder in a temporary directory."""
    data_dir = Path(tempfile.mkdtemp(prefix="gpu-advisor-engine-kb-"))
    atexit.register(shutil.rmtree, data_dir, ignore_errors=True)
    kb = KnowledgeBase(KnowledgeConfig(data_dir=data_dir, embedding="hashing"))
    kb.ensure_index()
    return kb


@functools.cache
def shared_engine() -> OfflineEngine:
    """An offline engine over :func:`shared_kb` (stateless, so one serves every test)."""
    return OfflineEngine(shared_kb())


def conversation(*user_turns: str) -> list[Message]:
    """A history of user turns, each followed by a placeholder assistant turn."""
    history: list[Message] = []
    for turn in user_turns:
        history += [Message(role="user", content=turn), Message(role="assistant", content="(answer)")]
    return history


def ask(question: str, *history: str) -> Answer:
    """Answer ``question`` with the shared offline engine after the earlier user turns ``history``."""
    return shared_engine().answer(question, conversation(*history) if history else [])


def first_line(text: str) -> str:
    """The answer's first non-blank line: what the checker and the user read as the answer."""
    return next(line for line in text.splitlines() if line.strip())


def ungrounded(answer: Answer, question: str, history: Sequence[Message] = ()) -> list[str]:
    """Numbers in the answer that no tool call, retrieved passage or user turn supports."""
    payloads = [part for call in answer.tool_calls for part in (call.args, call.result, call.error)]
    evidence = Evidence(texts=[question, *(m.content for m in history)], payloads=payloads)
    return [m.raw for m in ungrounded_numbers(full_text(answer), evidence)]


def full_text(answer: Answer) -> str:
    """The answer's text and its folded details, as a reader who opens them sees it."""
    return "\n\n".join([answer.text, *(f"{d.title}\n\n{d.markdown}" for d in answer.details)])


def call_args(answer: Answer, name: str) -> dict[str, object]:
    """Arguments of the first call of tool ``name`` (fails the test when it was not called)."""
    calls = [c for c in answer.tool_calls if c.name == name]
    assert calls, f"{name} not called; calls: {[c.name for c in answer.tool_calls]}"
    return calls[0].args


def ask_cli(env: dict[str, str], question: str, history: Path | None = None) -> dict[str, Any]:
    """Run ``gpu-advisor ask QUESTION --json --engine offline`` as a user would; return the Answer JSON."""
    argv = [sys.executable, "-m", "ui", "ask", question, "--json", "--engine", "offline"]
    argv += ["--history", str(history)] if history else []
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def ask_cli_follow_up(env: dict[str, str], tmp_path: Path, first: str, first_text: str, follow: str) -> dict[str, Any]:
    """Ask ``follow`` through the CLI as the second turn after ``first`` (answered ``first_text``)."""
    history = tmp_path / "history.json"
    turns = [{"role": "user", "content": first}, {"role": "assistant", "content": first_text}]
    history.write_text(json.dumps(turns, ensure_ascii=False), encoding="utf-8")
    return ask_cli(env, follow, history)


def ask_api(client: httpx.Client, question: str, session_id: str | None = None) -> dict[str, Any]:
    """Ask ``question`` through ``POST /v1/ask`` (in the session ``session_id``) and return the JSON answer."""
    body: dict[str, str] = {"question": question} | ({"session_id": session_id} if session_id else {})
    response = client.post("/v1/ask", json=body)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def ask_api_follow_up(client: httpx.Client, first: str, follow: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ask ``first`` then ``follow`` in the same API session; return both answers."""
    before = ask_api(client, first)
    return before, ask_api(client, follow, before["session_id"])
