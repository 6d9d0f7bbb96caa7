"""Bounds on what reaches the assistant from outside: the question, each earlier turn, all earlier turns.

Every face checks its input here before any understanding, retrieval or embedding runs, so the work per
request is bounded by the caps whatever the client sends. Lone UTF-16 surrogates (valid in JSON, not in
text) are replaced, so they never reach the tokenizers or the embedder. The user-facing refusals, in
both languages, live in :data:`MESSAGES`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assistant.answer import Language, Message
from assistant.assistant import MAX_QUESTION_CHARS

_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


@dataclass(frozen=True)
class InputCaps:
    """Character limits on a request's text.

    Attributes:
        question: Longest question.
        turn: Longest earlier message (user or assistant).
        history: Most characters of earlier messages together.
    """

    question: int = MAX_QUESTION_CHARS
    turn: int = 8_000
    history: int = 16_000


MESSAGES: dict[str, dict[Language, str]] = {
    "too_complex": {
        "en": "This question needs more work than one request may use. Please ask about one model and one "
        "workload at a time.",
        "zh": "这个问题的计算量超出了单次请求的上限。请每次只问一个模型和一种负载。",
    },
    "rate_limited": {
        "en": "Too many questions in a short time; please wait {seconds} s and ask again.",
        "zh": "提问过于频繁，请 {seconds} 秒后再试。",
    },
}


def clean_text(text: str) -> str:
    """Replace lone surrogates (which no encoder accepts) with U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def history_problem(history: Sequence[Message], caps: InputCaps) -> str | None:
    """Say what is wrong with client-sent earlier turns (for a 422), or None when they fit the caps."""
    for n, turn in enumerate(history):
        if len(turn.content) > caps.turn:
            return f"messages[{n}]: an earlier message is longer than {caps.turn:,} characters"
    total = sum(len(t.content) for t in history)
    if total > caps.history:
        return f"messages: the earlier messages add up to more than {caps.history:,} characters; start a new chat"
    return None


def fit_history(history: Sequence[Message], caps: InputCaps) -> list[Message]:
    """Keep the newest turns that fit the caps (each cut to ``caps.turn``): for histories we hold ourselves."""
    kept: list[Message] = []
    total = 0
    for turn in reversed(history):
        content = clean_text(turn.content[: caps.turn])
        if total + len(content) > caps.history:
            break
        total += len(content)
        kept.append(Message(role=turn.role, content=content))
    return kept[::-1]
