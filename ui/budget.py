"""A time budget per answer: past it the caller gets a clean "too complex" reply instead of waiting.

Answers are computed on a bounded pool of worker threads. The budget counts from when a worker starts
the answer, so waiting in line under load never turns into a refusal. A thread cannot be stopped from
outside, so an answer over budget finishes in the background, but it holds one worker while it does:
at most ``workers`` answers use the CPU at once, however many clients send expensive questions.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

_QUEUE_WAIT_S = 600.0
_END = object()


class TooComplexError(Exception):
    """The answer did not finish within the budget."""


class AnswerBudget:
    """Runs answers on ``workers`` threads, each allowed ``seconds`` of wall time."""

    def __init__(self, seconds: float, *, workers: int = 8) -> None:
        """Set the budget; ``workers`` bounds how many answers compute at once."""
        self.seconds = seconds
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="answer")

    def run(self, work: Callable[[], T]) -> T:
        """Return ``work()``; raise :class:`TooComplexError` when it runs longer than the budget."""
        started = threading.Event()

        def job() -> T:
            started.set()
            return work()

        future = self._pool.submit(job)
        if not started.wait(_QUEUE_WAIT_S):
            future.cancel()
            raise TooComplexError("no worker became free")
        try:
            return future.result(timeout=self.seconds)
        except TimeoutError:
            log.warning("an answer ran over its %.0f s budget; it finishes in the background", self.seconds)
            raise TooComplexError(f"over {self.seconds:.0f} s") from None

    def stream(self, events: Callable[[], Iterator[T]]) -> Iterator[T]:
        """Yield the items of ``events()`` (computed on a worker) until done or the budget is spent.

        Raises:
            TooComplexError: The budget ran out before the last item.
        """
        items: queue.Queue[object] = queue.Queue()
        started = threading.Event()
        stop = threading.Event()

        def job() -> None:
            started.set()
            try:
                for item in events():
                    if stop.is_set():
                        return
                    items.put(item)
            except BaseException as exc:  # noqa: BLE001 - handed to the consumer, raised there
                items.put(exc)
            finally:
                items.put(_END)

        self._pool.submit(job)
        if not started.wait(_QUEUE_WAIT_S):
            raise TooComplexError("no worker became free")
        deadline = time.monotonic() + self.seconds
        try:
            while True:
                try:
                    item = items.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    log.warning("a streamed answer ran over its %.0f s budget", self.seconds)
                    raise TooComplexError(f"over {self.seconds:.0f} s") from None
                if item is _END:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item  # type: ignore[misc]
        finally:
            stop.set()
