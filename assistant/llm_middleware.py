"""What wraps every model call of an LLM run: limits, time budget, tool choice and the checks of a reply.

Before a call: the per-answer time budget (``GPU_ADVISOR_LLM_ANSWER_TIMEOUT_S``) is checked and the
call's timeout is cut to what is left of it; ``tool_choice`` is set. After it: the reply's finish
reason (``length``: cut off by ``max_tokens``; ``content_filter``: moderated) and its tool calls
(malformed, unknown) are checked, and the token usage the server reported is added up. A reply that
fails a check raises :class:`LLMFailure`, so the user gets the offline answer, never a cut-off one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from assistant.llm_faults import LLMFailure
from assistant.llm_tools import Run, tool_error_text

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

ToolChoice = Literal["auto", "first-required", "omit"]


@dataclass(frozen=True)
class CallLimits:
    """Bounds of one answer's model calls.

    Attributes:
        max_model_calls: Model calls allowed per run (each tool round trip is one).
        max_tokens: The ``max_tokens`` sent on every call; named in the "cut off" warning.
        call_timeout_s: Seconds for one model request (None: the client's own).
        answer_timeout_s: Seconds for the whole answer (None: unbounded).
        tool_choice: ``auto``, ``first-required`` (the run's first call must call a tool) or ``omit``.
    """

    max_model_calls: int = 8
    max_tokens: int | None = None
    call_timeout_s: float | None = None
    answer_timeout_s: float | None = None
    tool_choice: ToolChoice = "auto"


def check_budget(run: Run, limits: CallLimits) -> float | None:
    """Raise if the answer's time is spent; return the seconds left (None: no budget)."""
    if limits.answer_timeout_s is None:
        return None
    left = limits.answer_timeout_s - (time.monotonic() - run.started)
    if left <= 0:
        raise LLMFailure.of("answer_timeout", f"{limits.answer_timeout_s:g}")
    return left


def budget_callbacks(run: Run, limits: CallLimits) -> list[Any]:
    """Return callbacks that stop a streaming model call as soon as the answer's time is spent.

    A server that trickles tokens never trips the per-read timeout; raising from the token callback
    (``raise_error``) ends the HTTP stream there, where an exception in the consumer would wait for
    the model node to finish.
    """
    if limits.answer_timeout_s is None:
        return []
    from langchain_core.callbacks import BaseCallbackHandler

    class AnswerBudget(BaseCallbackHandler):
        raise_error = True

        def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
            check_budget(run, limits)

    return [AnswerBudget()]


def middleware(run: Run, limits: CallLimits, tool_names: set[str]) -> list[Any]:
    """Return the middleware of one run's agent: call limit, tool errors as text, :func:`_wrap_call`."""
    from langchain.agents.middleware import AgentMiddleware, ModelCallLimitMiddleware, ToolErrorMiddleware

    class ModelCallChecks(AgentMiddleware):  # type: ignore[type-arg]
        """Budget and tool choice before each model call; finish reason and tool calls after it."""

        def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            return _wrap_call(request, handler, run, limits, tool_names)

    return [
        ModelCallLimitMiddleware(run_limit=limits.max_model_calls, exit_behavior="error"),
        ToolErrorMiddleware(on_error=tool_error_text),
        ModelCallChecks(),
    ]


def _wrap_call(request: Any, handler: Callable[[Any], Any], run: Run, limits: CallLimits, tool_names: set[str]) -> Any:
    left = check_budget(run, limits)
    settings = dict(request.model_settings)
    if left is not None:
        settings["timeout"] = min(left, limits.call_timeout_s or left)
    changes: dict[str, Any] = {"model_settings": settings}
    if limits.tool_choice != "omit":
        first = run.usage["calls"] == 0
        changes["tool_choice"] = "required" if limits.tool_choice == "first-required" and first else "auto"
    run.usage["calls"] += 1
    response = handler(request.override(**changes))
    for message in response.result:
        _add_usage(message, run)
        _check_finish(message, limits)
        _check_tool_calls(message, tool_names)
    return response


def _add_usage(message: BaseMessage, run: Run) -> None:
    usage = getattr(message, "usage_metadata", None) or {}
    run.usage["input"] += int(usage.get("input_tokens") or 0)
    run.usage["output"] += int(usage.get("output_tokens") or 0)


def _check_finish(message: BaseMessage, limits: CallLimits) -> None:
    finish = (getattr(message, "response_metadata", None) or {}).get("finish_reason")
    if finish == "length":
        raise LLMFailure.of("cut_off", limits.max_tokens or "?")
    if finish == "content_filter":
        raise LLMFailure.of("moderation")


def check_raw_args(raw_args: dict[tuple[Any, Any], str]) -> None:
    """Raise unless every streamed tool-call argument string is complete JSON; then forget them.

    LangChain parses streamed arguments leniently ('{"model": "x", "task": ' becomes {"model": "x"}),
    so the raw text is checked here: a call the model did not finish is not executed as if it had.
    """
    for raw in raw_args.values():
        try:
            json.loads(raw or "{}")
        except ValueError:
            raise LLMFailure.of("malformed_args") from None
    raw_args.clear()


def _check_tool_calls(message: BaseMessage, tool_names: set[str]) -> None:
    invalid = getattr(message, "invalid_tool_calls", None) or []
    if invalid:
        raise LLMFailure.of("malformed_call", invalid[0].get("name"))
    for call in getattr(message, "tool_calls", None) or []:
        if call["name"] not in tool_names:
            raise LLMFailure.of("unknown_tool", call["name"])
