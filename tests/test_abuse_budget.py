"""The per-answer time budget and the input caps, without a server."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from assistant.answer import Message
from ui.api import APIInputError, ChatMessageIn, conversation_from_openai
from ui.budget import AnswerBudget, TooComplexError
from ui.input_caps import InputCaps, clean_text, fit_history


def test_work_within_the_budget_returns_its_result() -> None:
    assert AnswerBudget(5.0, workers=2).run(lambda: 42) == 42


def test_work_over_the_budget_is_refused_on_time() -> None:
    release = threading.Event()
    started = time.monotonic()
    with pytest.raises(TooComplexError):
        AnswerBudget(0.2, workers=1).run(lambda: release.wait(5))
    assert time.monotonic() - started < 2
    release.set()


def test_waiting_for_a_worker_does_not_count_against_the_budget() -> None:
    budget = AnswerBudget(0.5, workers=1)
    results: list[str] = []

    def ask() -> None:
        results.append(budget.run(lambda: time.sleep(0.3) or "ok"))

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == ["ok"] * 3  # 0.9 s in all, each within its own 0.5 s


def test_a_stream_passes_items_and_errors_through_and_stops_at_the_budget() -> None:
    def slow() -> Iterator[int]:
        yield 1
        time.sleep(5)
        yield 2

    def broken() -> Iterator[int]:
        yield 1
        raise ValueError("boom")

    budget = AnswerBudget(0.3, workers=2)
    got: list[int] = []
    with pytest.raises(TooComplexError):
        got.extend(budget.stream(slow))
    assert got == [1]
    with pytest.raises(ValueError, match="boom"):
        list(budget.stream(broken))
    assert list(budget.stream(lambda: iter([1, 2, 3]))) == [1, 2, 3]


def test_lone_surrogates_are_replaced_and_pairs_kept() -> None:
    assert clean_text("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    assert clean_text("emoji 😀") == "emoji 😀"
    assert clean_text("x\ud800").encode("utf-8")


def test_openai_histories_over_the_caps_are_refused() -> None:
    caps = InputCaps(turn=100, history=250)

    def messages(*texts: str) -> list[ChatMessageIn]:
        return [ChatMessageIn(role="user" if n % 2 == 0 else "assistant", content=t) for n, t in enumerate(texts)]

    question, history = conversation_from_openai(messages("a" * 100, "b" * 100, "gn7i?"), caps)
    assert question == "gn7i?" and len(history) == 2
    with pytest.raises(APIInputError, match="longer than 100"):
        conversation_from_openai(messages("a" * 101, "ok", "gn7i?"), caps)
    with pytest.raises(APIInputError, match="more than 250"):
        conversation_from_openai(messages("a" * 100, "b" * 100, "c" * 100, "d", "gn7i?"), caps)


def test_held_histories_keep_the_newest_turns_that_fit() -> None:
    turns = [Message(role="user", content="u" * 90), Message(role="assistant", content="a" * 500)]
    turns += [Message(role="user", content="newest")]
    kept = fit_history(turns, InputCaps(turn=100, history=150))
    assert [m.content for m in kept] == ["a" * 100, "newest"]
