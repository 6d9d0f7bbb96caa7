"""One answer being built: the tool calls made (recorded as events), the passages cited, the language.

Every intent handler (:mod:`assistant.intents`) is a method of a :class:`Run` subclass; this base holds
the plumbing they share: calling a tool, searching the guidance, citing, and assembling the answer.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Generator, Sequence
from typing import Any

from pydantic import BaseModel, Field

from assistant import render
from assistant.answer import Answer, AnswerDetail, AnswerEvent, AnswerKind, Language, Message, ToolCall
from assistant.conversation import Conversation, read_conversation
from assistant.injection import split_planted
from assistant.language import detect_language
from assistant.messages import say
from assistant.tool_text import error_zh
from assistant.toolbox import (
    GuidanceSearch,
)
from knowledge.models import Passage
from tools.errors import ToolInputError
from tools.notes import rendered

logger = logging.getLogger(__name__)

Events = Generator[AnswerEvent, None, Any]
TRAINING = ("full", "lora", "qlora")


class Reply(BaseModel):
    """What a handler produced: the body text and the kind of answer."""

    text: str
    kind: AnswerKind
    details: list[AnswerDetail] = Field(default_factory=list, description="folded under the text")


def answer_language(question: str, history: Sequence[Message]) -> Language:
    """Detect the user's language; a turn of only names and numbers ("INT8?") keeps the previous one's."""
    if re.search(r"[\u4e00-\u9fff]", question) or re.search(r"\b[a-z]{3,}\b", question):
        return detect_language(question)
    for message in reversed(history):
        if message.role == "user":
            return detect_language(message.content)
    return detect_language(question)


class Run:
    """One answer being built: the conversation, the tool calls made and the passages cited."""

    def __init__(self, guidance: GuidanceSearch, question: str, history: Sequence[Message]) -> None:
        self.guidance = guidance
        # Planted instructions are no part of the question: every handler reads, searches and quotes the rest
        # ("explain the H800's export controls instead. How much memory ...?" searches for memory passages).
        self.question = split_planted(question)[0] or question
        self.history = list(history)  # earlier turns: a price follow-up ("那按量呢?") names no subject
        self.lang = answer_language(self.question, history)
        self.conv: Conversation = read_conversation(question, history)
        self.calls: list[ToolCall] = []
        self.passages: list[Passage] = []
        self.warnings: list[str] = []
        self.named_fits = False  # the hardware the user named holds the workload (set by the hardware intent)
        self.compared_lead = False  # a comparison's winner line leads (set by compare_plans, i8cmp3)
        self.concept_lead = False  # a concept's reviewed answer leads: no yes/no is read from the sizing after it
        # Tools are pure: two handlers asking the same question in one answer get one call and one record.
        self._done: dict[str, tuple[Any, str | None]] = {}
        # Each input error a tool raised, by its message: handlers pass the message on, the answer renders
        # the error's typed notes in its own language.
        self._failures: dict[str, ToolInputError] = {}

    # ------------------------------------------------------------------ plumbing

    def call(self, tool: str, fn: Callable[..., Any], /, **args: Any) -> Events:
        """Run one tool, recording it; returns ``(result, error)``. Input errors become text."""
        args = {k: v for k, v in args.items() if v is not None}
        key = tool + json.dumps(args, sort_keys=True, default=str)
        if key in self._done:
            return self._done[key]
        record = ToolCall(name=tool, args=args)
        yield AnswerEvent(type="tool_start", tool_call=record.model_copy())
        try:
            result = fn(**args)
        except ToolInputError as exc:
            record.error = str(exc)
            self._failures[record.error] = exc
            result = None
        except Exception:
            # The guidance index is a service (Chroma, maybe a remote embedder); without it the tools
            # still answer, only the citations are missing. Any other tool failing is a bug: re-raise.
            if tool != "search_guidance":
                raise
            logger.exception("guidance search failed")
            self.warnings.append(say("run.search_failed", self.lang))
            record.error = "guidance search failed"
            result = None
        record.result = _jsonable(result)
        self.calls.append(record)
        yield AnswerEvent(type="tool_end", tool_call=record.model_copy())
        self._done[key] = (result, record.error)
        return result, record.error

    def search(
        self, query: str, n: int = 2, prefer_docs: Sequence[str] = (), prefer_sections: Sequence[str] = ()
    ) -> Events:
        """Search the guidance; keep up to ``n`` passages, on-topic sections and documents first.

        Args:
            query: The search text.
            n: Passages to keep, at most one per document.
            prefer_docs: Document slugs to rank first; a second passage must come from one of them.
            prefer_sections: Words (family names) whose presence in a section heading ranks it first.
        """
        found, _ = yield from self.call("search_guidance", self.guidance.search_guidance, query=query, k=6)

        def rank(p: Passage) -> tuple[bool, bool, bool]:
            named = any(word.lower() in p.section.lower() for word in prefer_sections)
            return (not named if prefer_sections else False, p.doc not in prefer_docs, p.lang != self.lang)

        ranked = sorted(found or [], key=rank)
        picked: list[Passage] = []
        for passage in ranked:
            if len(picked) == n:
                break
            if any(p.doc == passage.doc for p in picked):
                continue
            if picked and prefer_docs and passage.doc not in prefer_docs:
                break  # a second passage must be on topic, not merely the next hit
            picked.append(passage)
        return picked

    def cite(self, passage: Passage) -> int:
        """Return the citation number of ``passage`` (added to the answer's list on first use)."""
        for i, p in enumerate(self.passages, start=1):
            if p.chunk_id == passage.chunk_id:
                return i
        self.passages.append(passage)
        return len(self.passages)

    def quotes(self, passages: Sequence[Passage], query: str, limit: int = 2) -> list[str]:
        """Blockquotes of the passages' best sentences, each with its citation number."""
        out = []
        for passage in passages:
            # One language per answer: a passage in the other language is not quoted (nor cited).
            if passage.lang != self.lang or not render.key_sentences(passage, query, limit):
                continue
            out.append(render.quote(passage, self.cite(passage), query, self.lang, limit))
        return out

    def t(self, zh: str, en: str) -> str:
        """Pick the text in the answer's language."""
        return zh if self.lang == "zh" else en

    def finish(self, reply: Reply) -> Answer:
        """Assemble the answer: body, folded details, citations, tool calls and warnings."""
        # The numbered source list is not repeated in the text: every face renders `citations` itself
        # (linked in the web chat, context in Slack, a list in the CLI and the OpenAI-compatible API).
        citations = [p.citation() for p in self.passages]
        return Answer(
            text=reply.text,
            details=reply.details,
            language=self.lang,
            engine="offline",
            kind=reply.kind,
            citations=citations,
            tool_calls=self.calls,
            warnings=self.warnings,
        )

    # ------------------------------------------------------------------ dispatch

    def refusal(self) -> Reply:
        """Answer an attempt to change the rules or extract secrets that asks nothing else."""
        text = say("run.refuse_rules", self.lang)
        return Reply(text=text + "\n\n" + render.scope_statement(self.lang), kind="out_of_scope")

    def unknown_model(self, name: str) -> Reply:
        """Say that a model the user named is in no catalog, what can be sized, and how to size an unlisted LLM."""
        parts = [say("reach.named", self.lang, name=name), say("reach.can", self.lang)]
        parts.append(say("reach.give_dims", self.lang))
        return Reply(text="\n\n".join(parts), kind="out_of_scope")

    def invalid_values(self, values: Sequence[str]) -> Reply:
        """Refuse impossible numbers as written instead of planning with some other number."""
        shown = self.t("、".join(f"“{v}”" for v in values), ", ".join(f"'{v}'" for v in values))
        text = say("run.invalid_values", self.lang, shown=shown)
        return Reply(text=text, kind="error")

    def error(self, message: str) -> Reply:
        """Turn a tool's input error into a short answer (its message already lists valid values)."""
        intro = say("run.cannot_compute", self.lang)
        return Reply(text=f"{intro}{self.in_language(message)}", kind="error")

    def in_language(self, message: str) -> str:
        """Return a tool's input error in the answer's language: from its typed notes where it has them."""
        failure = self._failures.get(message)
        if failure is not None and failure.notes:
            return ("；" if self.lang == "zh" else "; ").join(rendered(failure.notes, self.lang))
        if self.lang == "zh":  # an error that reached us as text only (the understanding's model_error)
            return error_zh(message) or message
        return message

    # ------------------------------------------------------------------ plans and estimates


def _jsonable(result: Any) -> Any:
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json")
    if isinstance(result, list):
        return [_jsonable(r) for r in result]
    return result
