"""'8 users on 2 x L20 with a 32B model: how long can each context be?' answered first, from the K/V budget.

The named hardware's K/V budget is shared by the users (:func:`tools.capacity.longest_context`); the first
line gives the longest context each gets, and says when the model's own window is the limit instead.
"""

from __future__ import annotations

from typing import Any

from assistant import render
from assistant.intents.arguments import task_of
from assistant.messages import say
from assistant.run import Events, Run
from assistant.toolbox import longest_context_per_user
from assistant.understanding import Slots
from tools.capacity import ContextBudget


class LongestContext(Run):
    """The longest context per user on the hardware the user named."""

    def longest_context_lines(self, s: Slots, hardware: dict[str, Any], label: Any) -> Events:
        """Return the first line on how long each user's context may be (empty when it is not asked)."""
        if task_of(s) != "inference" or not s.asks_longest_context:
            return []
        args = {"model": s.model, "users": s.concurrency or s.batch or 1, "architecture": s.architecture}
        args |= hardware | {"precision": s.precision, "quant": s.quant}
        budget, err = yield from self.call("longest_context_per_user", longest_context_per_user, **args)
        if err or not isinstance(budget, ContextBudget):
            return []
        figures = {"hardware": label(budget.hardware), "users": budget.users, "model": budget.model}
        figures |= {"context": render.fig(budget.context), "kv": render.fig(budget.kv_gib_per_sequence)}
        figures |= {"budget": render.fig(budget.kv_budget_gib_per_gpu), "window": render.fig(budget.model_max_context)}
        code = "context.none" if budget.context == 0 else f"context.{budget.limited_by}"
        return [say(code, self.lang, **figures)]
