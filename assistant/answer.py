"""What the assistant returns, whichever engine produced it: text plus the evidence behind it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from knowledge.models import Citation

Language = Literal["zh", "en"]
Engine = Literal["llm", "offline"]
AnswerKind = Literal["recommendation", "estimate", "guidance", "clarification", "out_of_scope", "error"]


class ToolCall(BaseModel):
    """One call of a deterministic tool, with its input and JSON-able output (or the error it raised)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    args: dict[str, Any]
    result: Any = None
    error: str | None = None


class AnswerDetail(BaseModel):
    """A folded part of an answer (rejections, all assumptions, passages): shown collapsed under the text."""

    model_config = ConfigDict(extra="forbid")

    title: str
    markdown: str


class Answer(BaseModel):
    """A finished answer: markdown text, the tool calls its numbers come from, the passages it cites."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(
        description="markdown; the first line answers the question; citations as [n] markers matching `citations`"
    )
    details: list[AnswerDetail] = Field(
        default_factory=list, description="folded sections shown collapsed after `text` (same [n] markers)"
    )
    language: Language
    engine: Engine = Field(description="the engine that produced the final text")
    kind: AnswerKind = "recommendation"
    citations: list[Citation] = Field(default_factory=list, description="numbered [1], [2], ... in order")
    tool_calls: list[ToolCall] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class AnswerEvent(BaseModel):
    """A streaming event: a text delta, a tool call starting or finishing, or the final answer."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["token", "tool_start", "tool_end", "answer"]
    text: str | None = None
    tool_call: ToolCall | None = None
    answer: Answer | None = None


class Message(BaseModel):
    """One earlier turn of the conversation; engines derive all state from these (no server memory)."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: str
