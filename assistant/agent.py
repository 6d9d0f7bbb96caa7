"""The LLM engine: a LangChain agent over the toolbox, with guarded, cited, streamed answers.

One run per question. The agent (``langchain.agents.create_agent``) is built for each run because its
search tool numbers passages for that run's citations; compiling it costs about a millisecond.
The run:

1. streams the agent (``stream_mode=["messages", "updates"]``): token deltas, tool starts and ends;
   every model call is bounded (``max_tokens``, a per-call timeout cut to the answer's time budget)
   and its reply checked (cut off, moderated, malformed or unknown tool calls: see ``llm_middleware``);
2. renumbers the answer's citation markers in order of first use and keeps only passages it cites;
3. checks every number against the tool results, the cited passages and the conversation; if some are
   ungrounded (or the language is wrong) it asks the model once to rewrite, reviews the rewrite again
   (lines that copy the check's own wording are dropped), then replaces what is still ungrounded by
   "—"; an answer still in the wrong language is a failure;
4. redacts secrets and quoted system-prompt text.

Failures the user should not see as such (HTTP errors and provider error codes, errors in the middle
of a stream, timeouts, a cut-off answer, malformed or unknown tool calls, a tool call written as text,
the model-call limit, an empty answer) raise :class:`LLMFailure`; the assistant then answers offline.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Generator, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assistant import guards
from assistant.answer import Answer, AnswerEvent, Language, Message, ToolCall
from assistant.llm_faults import LLMFailure, failure_from
from assistant.llm_middleware import CallLimits, budget_callbacks, check_raw_args, middleware
from assistant.llm_review import (
    LANGUAGE_NAMES,
    evidence,
    kind,
    markers,
    problems,
    renumber_citations,
    rewrite_instructions,
    rewrite_request,
    say,
    tool_call_as_text,
)
from assistant.llm_tools import Run, build_tools, compact_result, timed, tool_error_text
from knowledge.models import Passage

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage, ToolMessage

    from assistant.settings import Settings
    from knowledge.base import KnowledgeBase

__all__ = [
    "CallLimits",
    "LLMEngine",
    "LLMFailure",
    "build_tools",
    "compact_result",
    "failure_from",
    "system_prompt",
    "tool_error_text",
]

log = logging.getLogger(__name__)

MAX_HISTORY_MESSAGES = 20
UNCITED_SOURCES_SHOWN = 3


@cache
def system_prompt_template() -> str:
    """Return the system prompt as written in ``assistant/prompts/system.md``."""
    return (Path(__file__).parent / "prompts" / "system.md").read_text(encoding="utf-8")


def system_prompt(language: Language) -> str:
    """Return the system prompt for an answer in ``language``."""
    return system_prompt_template().replace("{{answer_language}}", LANGUAGE_NAMES[language])


class LLMEngine:
    """Answers with a tool-calling chat model; raises :class:`LLMFailure` when it cannot."""

    def __init__(
        self,
        model: BaseChatModel,
        kb: KnowledgeBase,
        *,
        secrets: Sequence[str] = (),
        max_model_calls: int = 8,
        timeout_s: float | None = None,
        limits: CallLimits | None = None,
        compact_tools: bool = False,
    ) -> None:
        """Wire the engine.

        Args:
            model: A chat model with tool calling (see :func:`assistant.providers.build_chat_model`).
            kb: Knowledge base behind ``search_guidance``.
            secrets: Values that must never appear in an answer (API keys, tokens).
            max_model_calls: Model calls allowed per run (each tool round trip is one); ignored with ``limits``.
            timeout_s: The client's per-call timeout, for the warning text; ignored with ``limits``.
            limits: Every bound of a run's model calls (see :class:`CallLimits`).
            compact_tools: Show the model compact tool schemas (small local servers).
        """
        self._model = model
        self._kb = kb
        self._secrets = [s for s in secrets if s]
        self._limits = limits or CallLimits(max_model_calls=max_model_calls, call_timeout_s=timeout_s)
        self._compact = compact_tools

    @classmethod
    def from_settings(cls, settings: Settings, kb: KnowledgeBase) -> LLMEngine:
        """Build the engine the settings describe: provider, model, limits and tool schemas.

        Raises:
            assistant.providers.ConfigurationError: The settings cannot produce a working client.
        """
        from assistant.providers import build_chat_model, call_limits, compact_tools, secret_values

        return cls(
            build_chat_model(settings),
            kb,
            secrets=secret_values(settings),
            limits=call_limits(settings),
            compact_tools=compact_tools(settings),
        )

    def answer(
        self, question: str, history: Sequence[Message] = (), *, timings: dict[str, float] | None = None
    ) -> Answer:
        """Answer ``question`` given the earlier turns; raises :class:`LLMFailure`.

        Args:
            question: The user's question.
            history: Earlier turns, oldest first.
            timings: If given, filled with seconds spent: ``build`` (agent), ``tools``, ``guards``, ``total``.
        """
        final = None
        for event in self.stream(question, history, timings=timings):
            if event.type == "answer":
                final = event.answer
        assert final is not None  # stream always ends with the answer or raises
        return final

    def stream(
        self, question: str, history: Sequence[Message] = (), *, timings: dict[str, float] | None = None
    ) -> Iterator[AnswerEvent]:
        """Yield token, tool and final-answer events; raises :class:`LLMFailure`.

        The token events are a draft: if the guards rewrite the answer, the final ``answer`` event
        carries the text to show. ``timings`` as in :meth:`answer`.
        """
        start = time.perf_counter()
        language = guards.detect_language(question)
        run = Run(question, list(history)[-MAX_HISTORY_MESSAGES:], language)
        try:
            answer = yield from self._run(run)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a fallback, never a traceback
            failure = failure_from(exc, self._limits.call_timeout_s)
            _log_usage(run, f"failed: {failure.reason}")
            raise failure from (None if exc is failure else exc)
        _log_usage(run, "answered")
        if timings is not None:
            timings.update(run.timings, total=time.perf_counter() - start)
        yield AnswerEvent(type="answer", answer=answer)

    def _run(self, run: Run) -> Generator[AnswerEvent, None, Answer]:
        prompt = system_prompt(run.language)
        with timed(run, "build"):
            agent, tool_names = self._agent(run, prompt)
        run.started = time.monotonic()  # the budget is for the model and tools, not first-use imports
        messages = _input_messages(run)
        warnings: list[str] = []
        new = yield from self._pass(agent, messages, run, stream_tokens=True)
        with timed(run, "guards"):
            text, cited = self._finish_text(_final_text(new), run, prompt, tool_names, warnings)
            found = problems(text, cited, run)
        if found:
            messages = [*messages, *new, rewrite_request(found, run.language)]
            try:
                new = yield from self._pass(agent, messages, run, stream_tokens=False)
                with timed(run, "guards"):
                    text, cited = self._finish_text(_final_text(new), run, prompt, tool_names, warnings, rewritten=True)
                warnings.append(found.warning(run.language))
            except LLMFailure as exc:  # keep the first draft; it is reviewed again below
                log.warning("regeneration failed: %s", exc.reason)
            with timed(run, "guards"):
                text = self._remove_ungrounded(text, cited, run, warnings)
            if guards.detect_language(text) != run.language:
                raise LLMFailure.of("wrong_language", LANGUAGE_NAMES[run.language], _ZH_NAMES[run.language])
        return Answer(
            text=text,
            language=run.language,
            engine="llm",
            kind=kind(run, text),
            citations=[p.citation() for p in cited],
            tool_calls=run.calls,
            warnings=warnings,
        )

    def _agent(self, run: Run, prompt: str) -> tuple[Any, set[str]]:
        from langchain.agents import create_agent

        tools = build_tools(self._kb, run, compact=self._compact)
        names = {t.name for t in tools}
        agent = create_agent(self._model, tools, system_prompt=prompt, middleware=middleware(run, self._limits, names))
        return agent, names

    def _pass(
        self, agent: Any, messages: list[BaseMessage], run: Run, *, stream_tokens: bool
    ) -> Generator[AnswerEvent, None, list[BaseMessage]]:
        """Run the agent once; yield events; return the messages it added."""
        from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage

        added: list[BaseMessage] = []
        pending: dict[str, int] = {}
        raw_args: dict[tuple[Any, Any], str] = {}
        redactor = guards.StreamRedactor(self._secrets)
        config = {"callbacks": budget_callbacks(run, self._limits)}
        for mode, data in agent.stream({"messages": messages}, config, stream_mode=["messages", "updates"]):
            if mode == "messages":
                chunk, meta = data
                if not isinstance(chunk, AIMessageChunk) or meta.get("langgraph_node") != "model":
                    continue
                for part in chunk.tool_call_chunks:
                    key = (meta.get("langgraph_step"), part.get("index"))
                    raw_args[key] = raw_args.get(key, "") + (part.get("args") or "")
                if stream_tokens and (safe := redactor.feed(chunk.text)):
                    yield AnswerEvent(type="token", text=safe)
                continue
            for update in data.values():
                for message in (update or {}).get("messages", []) if isinstance(update, dict) else []:
                    added.append(message)
                    if isinstance(message, AIMessage):
                        check_raw_args(raw_args)
                        for call in message.tool_calls:
                            started = ToolCall(name=call["name"], args=dict(call["args"]))
                            # Parallel calls finish in any order; record them in the order asked.
                            pending[call["id"] or ""] = len(run.calls)
                            run.calls.append(started)
                            yield AnswerEvent(type="tool_start", tool_call=started)
                    elif isinstance(message, ToolMessage):
                        done = _finished_call(message, pending, run.calls)
                        yield AnswerEvent(type="tool_end", tool_call=done)
        if stream_tokens and (rest := redactor.flush()):
            yield AnswerEvent(type="token", text=rest)
        return added

    def _finish_text(
        self,
        raw: str,
        run: Run,
        prompt: str,
        tool_names: set[str],
        warnings: list[str],
        *,
        rewritten: bool = False,
    ) -> tuple[str, list[Passage]]:
        if tool_call_as_text(raw, tool_names):
            raise LLMFailure.of("tool_call_as_text")
        if rewritten:
            raw, echoed = guards.remove_echoed_lines(raw, rewrite_instructions())
            if echoed:
                log.warning("the rewrite repeated the check request; those lines were dropped")
                if not raw:
                    raise LLMFailure.of("echoed_check")
                warnings.append(say(run.language, "cut_rewrite"))
        if not raw.strip():
            raise LLMFailure.of("empty")
        text, leaks = guards.redact_leaks(raw, secrets=self._secrets, system_prompt=prompt)
        for leak in leaks:
            warnings.append(say(run.language, leak))
        text, cited, unknown = renumber_citations(text, run)
        if unknown:
            warnings.append(say(run.language, "bad_citation", ", ".join(f"[{n}]" for n in unknown)))
        if not cited and run.passages:
            cited = [run.by_number()[n] for n in sorted(run.by_number())][:UNCITED_SOURCES_SHOWN]
            text = text.rstrip() + "\n\n" + say(run.language, "sources", markers(len(cited)))
        return text, cited

    def _remove_ungrounded(self, text: str, cited: list[Passage], run: Run, warnings: list[str]) -> str:
        missing = guards.ungrounded_numbers(text, evidence(run, cited))
        if not missing:
            return text
        warnings.append(say(run.language, "removed", ", ".join(m.raw for m in missing)))
        return guards.remove_numbers(text, missing)


# ---------------------------------------------------------------------------------------------------
# Helpers of a run.

_ZH_NAMES = {"zh": "中文", "en": "英文"}


def _log_usage(run: Run, outcome: str) -> None:
    # Token counts come from the stream's usage chunk (stream_options.include_usage).
    usage = run.usage
    log.info(
        "LLM %s: %d model calls, %d input + %d output tokens, %.1f s",
        outcome,
        usage["calls"],
        usage["input"],
        usage["output"],
        time.monotonic() - run.started,
    )


def _input_messages(run: Run) -> list[BaseMessage]:
    from langchain_core.messages import AIMessage, HumanMessage

    messages: list[BaseMessage] = [
        HumanMessage(m.content) if m.role == "user" else AIMessage(m.content) for m in run.history
    ]
    messages.append(HumanMessage(run.question))
    return messages


def _finished_call(message: ToolMessage, pending: dict[str, int], calls: list[ToolCall]) -> ToolCall:
    """Fill in the result (or error) of the call ``message`` answers, in its slot in ``calls``."""
    index = pending.pop(message.tool_call_id, None)
    if index is None:  # not announced by the model update: record it at the end
        index = len(calls)
        calls.append(ToolCall(name=message.name or "unknown", args={}))
    started = calls[index]
    if message.status == "error":
        done = ToolCall(name=started.name, args=started.args, error=str(message.content))
    else:
        done = ToolCall(name=started.name, args=started.args, result=message.artifact)
    calls[index] = done
    return done


def _final_text(added: list[BaseMessage]) -> str:
    from langchain_core.messages import AIMessage

    for message in reversed(added):
        if isinstance(message, AIMessage) and not message.tool_calls:
            return message.text
    return ""
