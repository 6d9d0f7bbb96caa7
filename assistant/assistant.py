"""The assistant every face uses: ``build_assistant(settings)`` -> ``Assistant.answer()`` / ``.stream()``.

It picks the engine from the settings (the LLM when one is configured, else the deterministic offline
engine) and turns any LLM failure into an offline answer with a warning that says why. It keeps no
conversation state: everything comes from the ``history`` passed in.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from assistant.answer import Answer, AnswerEvent, Language, Message
from assistant.language import detect_language
from assistant.providers import EngineName, engine_for
from assistant.settings import Settings, knowledge_config_from_settings
from tools import prices
from tools.price_snapshot import snapshot_root

if TYPE_CHECKING:
    # The LLM engine (LangChain, the OpenAI client) is imported only when one is configured: the
    # offline path must start fast and work without the `llm` extra.
    from assistant.agent import LLMEngine, LLMFailure
    from knowledge.base import KnowledgeBase

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 4000

HistoryItem = Message | Mapping[str, Any]


class Engine(Protocol):
    """What both engines offer."""

    def answer(self, question: str, history: Sequence[Message]) -> Answer:
        """Answer one question given the earlier turns."""
        ...

    def stream(self, question: str, history: Sequence[Message]) -> Iterator[AnswerEvent]:
        """Stream events ending with the final answer."""
        ...


class Assistant:
    """Answers GPU-sizing questions; falls back to the offline engine when the LLM fails."""

    def __init__(self, offline: Engine, llm: LLMEngine | None = None) -> None:
        """Combine the engines.

        Args:
            offline: The deterministic engine; answers alone when ``llm`` is None, and on LLM failures.
            llm: The LLM engine, if one is configured.
        """
        self._offline = offline
        self._llm = llm

    @property
    def engine(self) -> EngineName:
        """The engine tried first."""
        return "llm" if self._llm is not None else "offline"

    def answer(self, question: str, history: Sequence[HistoryItem] = ()) -> Answer:
        """Answer ``question``; ``history`` holds the earlier turns (oldest first)."""
        final = None
        for event in self.stream(question, history):
            if event.type == "answer":
                final = event.answer
        assert final is not None  # every stream ends with its answer
        return final

    def stream(self, question: str, history: Sequence[HistoryItem] = ()) -> Iterator[AnswerEvent]:
        """Yield token and tool events, then the final ``answer`` event (the text to show)."""
        turns = [m if isinstance(m, Message) else Message.model_validate(m) for m in history]
        if (invalid := _invalid_question(question)) is not None:
            yield AnswerEvent(type="answer", answer=invalid)
            return
        if self._llm is not None:
            from assistant.agent import LLMFailure

            try:
                yield from self._llm.stream(question, turns)
                return
            except LLMFailure as exc:
                log.warning("LLM engine failed (%s); answering offline", exc.reason)
                note = _fallback_warning(exc, detect_language(question))
                yield from self._offline_stream(question, turns, note)
                return
        yield from self._offline_stream(question, turns, None)

    def _offline_stream(self, question: str, history: list[Message], note: str | None) -> Iterator[AnswerEvent]:
        try:
            for event in self._offline.stream(question, history):
                if event.type == "answer" and event.answer is not None:
                    event = _as_offline(event, note)
                yield event
        except Exception:  # a bug in the engine must not reach the chat as a traceback
            log.exception("offline engine failed")
            yield AnswerEvent(type="answer", answer=_error_answer(question, "internal"))


def _as_offline(event: AnswerEvent, note: str | None) -> AnswerEvent:
    assert event.answer is not None
    warnings = [note, *event.answer.warnings] if note else event.answer.warnings
    answer = event.answer.model_copy(update={"engine": "offline", "warnings": warnings})
    return AnswerEvent(type="answer", answer=answer)


def _fallback_warning(exc: LLMFailure, language: Language) -> str:
    if language == "zh":
        return f"大模型暂不可用（{exc.reason_zh}），本回答由离线引擎生成。"
    return f"LLM unavailable ({exc.reason}); answered by the offline engine."


_INPUT_MESSAGES: dict[str, dict[Language, str]] = {
    "empty": {
        "en": 'Please ask a question, e.g. "Which instance for Qwen2.5-72B inference with 32 users?"',
        "zh": "请输入问题，例如：“Qwen2.5-72B 推理、32 个并发用户，用哪种实例？”",
    },
    "too_long": {
        "en": f"The question is too long (over {MAX_QUESTION_CHARS:,} characters). Please shorten it to the "
        "model, the workload and any constraints.",
        "zh": f"问题太长（超过 {MAX_QUESTION_CHARS:,} 个字符）。请精简为模型、负载和约束条件。",
    },
    "internal": {
        "en": "Sorry, something went wrong while answering; the error was logged. Please try again.",
        "zh": "抱歉，回答时出现内部错误，已记录日志。请重试。",
    },
}


def _error_answer(question: str, key: str) -> Answer:
    language = detect_language(question)
    return Answer(text=_INPUT_MESSAGES[key][language], language=language, engine="offline", kind="error")


def _invalid_question(question: str) -> Answer | None:
    if not question or not question.strip():
        return _error_answer(question or "", "empty")
    if len(question) > MAX_QUESTION_CHARS:
        return _error_answer(question, "too_long")
    return None


def build_assistant(settings: Settings, *, knowledge_base: KnowledgeBase | None = None) -> Assistant:
    """Build the assistant the settings describe.

    Args:
        settings: Application settings; ``GPU_ADVISOR_ENGINE`` and the provider keys pick the engine.
        knowledge_base: Use this knowledge base instead of building one from the settings.

    Raises:
        assistant.providers.ConfigurationError: The LLM engine is requested but cannot be configured.
    """
    from assistant.engine import OfflineEngine
    from knowledge.base import KnowledgeBase

    # Every price lookup of this process then includes the newest live snapshot, if a refresh wrote one.
    prices.use_live_prices(None if settings.prices_offline else snapshot_root(settings.data_dir))
    kb = knowledge_base or KnowledgeBase(knowledge_config_from_settings(settings))
    llm = None
    if engine_for(settings) == "llm":
        from assistant.agent import LLMEngine

        llm = LLMEngine.from_settings(settings, kb)
    return Assistant(OfflineEngine(kb, intent_fallback=settings.intent_fallback), llm)
