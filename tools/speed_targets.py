"""Speed targets a workload may set, and how the planner honours them.

"each user needs at least 30 tokens/s", "首 token 延迟要在 1 秒内", "about 200 tok/s in total": a target
is a constraint like a budget. The planner (:mod:`tools.plan`) asks this module, per tensor-parallel
layout of an instance type:

* per-stream decode tokens/s: the largest batch per replica at which every stream still decodes that
  fast (decode slows as the batch grows: more K/V read, more FLOPs per step), so the load spreads over
  more replicas; a layout too slow even at one sequence is turned away with the figure it reaches;
* time to first token: the prompt's prefill on one replica plus one decode step at its running batch,
  assuming the prompt is not queued behind others (a floor under load); a layout above it is turned away;
* total output tokens/s: enough sequences in flight, over enough replicas, to reach it.

The figures are :mod:`tools.throughput`'s planning estimates (±30%); the speed functions are passed in, so
this module depends on no planner internals.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from tools.notes import Note, note
from tools.throughput import DecodeSpeed
from tools.workload import Workload

SpeedAt = Callable[[int], DecodeSpeed]
"""Decode speed of one replica running ``batch`` sequences."""


def stream_batch_cap(target: float | None, most: int, speed_at: SpeedAt, gpus: int = 1) -> tuple[int, Note | None]:
    """Return the largest batch (at most ``most``) whose streams each decode ``target`` tokens/s or faster.

    Args:
        target: Per-stream decode tokens/s asked for; None = no target (``most`` is returned).
        most: The replica's memory ceiling on concurrent sequences (>= 1).
        speed_at: Decode speed of the replica at a batch.
        gpus: GPUs of one replica (named in the rejection).

    Returns:
        The batch, and None; or 0 and a rejection note with the speed one sequence alone reaches.
    """
    if target is None:
        return most, None
    alone = speed_at(1).tokens_per_s_per_stream
    if alone < target:
        return 0, note("reject.speed_per_stream", reached=round(alone, 1), target=target, gpus=gpus)
    low, high = 1, max(1, most)
    if speed_at(high).tokens_per_s_per_stream >= target:
        return high, None
    while high - low > 1:  # per-stream speed falls with the batch: bisect for the last batch that meets it
        mid = (low + high) // 2
        if speed_at(mid).tokens_per_s_per_stream >= target:
            low = mid
        else:
            high = mid
    return low, None


def concurrency_for_total(
    target: float | None, concurrency: int | None, batch_cap: int, speed_at: SpeedAt
) -> int | None:
    """Return the sequences in flight that reach ``target`` total output tokens/s (or the stated concurrency).

    Each replica runs full (``batch_cap`` sequences, its fastest total); the fewest replicas that reach the
    target together are used. A stated concurrency above that stays.
    """
    if target is None:
        return concurrency
    replicas = max(1, math.ceil(target / speed_at(batch_cap).tokens_per_s_total))
    return max(concurrency or 0, replicas * batch_cap)


def time_to_first_token_s(prompt_tokens: int, prefill_tokens_s: float, step: DecodeSpeed) -> float:
    """Seconds to the first output token: one replica prefills the prompt, then runs one decode step."""
    return prompt_tokens / prefill_tokens_s + step.step_ms / 1e3


def request_seconds(ttft_s: float, output_tokens: int, step: DecodeSpeed) -> float:
    """Seconds one whole request takes: its first token, then the rest of its output at the per-stream speed."""
    return ttft_s + max(0, output_tokens - 1) / step.tokens_per_s_per_stream


def ttft_problem(target_s: float | None, ttft_s: float) -> Note | None:
    """Return a rejection note when the first token comes later than ``target_s`` seconds, else None."""
    if target_s is None or ttft_s <= target_s:
        return None
    return note("reject.ttft", reached=round(ttft_s, 2), target=target_s)


def target_notes(w: Workload) -> list[Note]:
    """Return the speed targets the plan was held to, as assumptions (none when the workload sets none)."""
    notes = []
    if w.min_tokens_per_s_per_stream is not None:
        notes.append(note("plan.target_stream", target=w.min_tokens_per_s_per_stream))
    if w.max_ttft_s is not None:
        notes.append(note("plan.target_ttft", target=w.max_ttft_s))
    if w.min_tokens_per_s_total is not None:
        notes.append(note("plan.target_total", target=w.min_tokens_per_s_total))
    return notes
