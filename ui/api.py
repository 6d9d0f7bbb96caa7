"""The HTTP API: ask (JSON or SSE), an OpenAI-compatible chat endpoint, health; one JSON error shape.

Every error is ``{"error": {"type", "message", "code"}}`` (the shape OpenAI clients parse); no response
ever carries a traceback, those go to the log. The routes read their services from ``app.state``
(see :func:`ui.server.create_app`), so nothing here is a module-level mutable object.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.exceptions import HTTPException as StarletteHTTPException

from assistant.answer import Answer, Message
from assistant.assistant import MAX_QUESTION_CHARS, Assistant
from ui.budget import AnswerBudget, TooComplexError
from ui.feedback import MAX_COMMENT_CHARS, FeedbackStore, Rating, UnknownAnswerError
from ui.input_caps import MESSAGES, InputCaps, clean_text, fit_history, history_problem
from ui.render_web import answer_text_with_sources
from ui.sessions import SESSION_ID, SessionStore, new_session_id
from ui.store import StoreError

log = logging.getLogger(__name__)

MODEL_NAME = "gpu-advisor"
MAX_CHAT_MESSAGES = 100
_CHUNK_CHARS = 64

_SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


@dataclass(frozen=True)
class Services:
    """What the routes need; built once per app by :func:`ui.server.create_app`."""

    assistant: Assistant
    sessions: SessionStore
    feedback: FeedbackStore
    budget: AnswerBudget
    caps: InputCaps = InputCaps()
    health_checks: Sequence[Callable[[], str | None]] = field(default_factory=tuple)
    """Each returns None when its part works, else the reason (``/healthz`` reports ``degraded``)."""

    def record(self, session: str, question: str, answer: Answer) -> str | None:
        """Record an answer the API gave; None when the store failed (the answer is still returned)."""
        try:
            return self.feedback.record_answer(
                face="api", session=session, question=question, answer=answer.text, engine=answer.engine
            )
        except StoreError:
            log.exception("could not record an answer; returning it without an id")
            return None

    def history(self, session_id: str) -> list[Message]:
        """Return the session's earlier turns within the caps; none when the store is down (answers still go out)."""
        try:
            return fit_history(self.sessions.history(session_id), self.caps)
        except StoreError:
            log.exception("could not read session %s; answering without its history", session_id)
            return []

    def remember(self, session_id: str, question: str, answer: Answer) -> None:
        """Add the exchange to the session; a store failure is logged, the answer still goes out."""
        if answer.kind == "error":
            return
        try:
            self.sessions.append(session_id, question, answer.text)
        except StoreError:
            log.exception("could not save session %s; the answer is returned anyway", session_id)


def services(request: Request) -> Services:
    """FastAPI dependency: the app's services."""
    return request.app.state.services


ServicesDep = Annotated[Services, Depends(services)]


class APIInputError(Exception):
    """A request that parsed but cannot be answered as sent (HTTP 422)."""


# ---------------------------------------------------------------------------------------------- models


class AskRequest(BaseModel):
    """A question, optionally continuing an earlier conversation."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS, description="Chinese or English")
    session_id: str | None = Field(
        default=None,
        pattern=SESSION_ID.pattern,
        description="continue this conversation; omit to start one (the response gives its id)",
    )

    @field_validator("question", mode="before")
    @classmethod
    def _no_lone_surrogates(cls, value: object) -> object:
        return clean_text(value) if isinstance(value, str) else value

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("question must not be blank")
        return value


class AskResponse(Answer):
    """The assistant's Answer plus the session id to send with a follow-up question."""

    session_id: str
    answer_id: str | None = Field(default=None, description="send with POST /v1/feedback to rate this answer")


class FeedbackRequest(BaseModel):
    """A rating of an answer this server gave; question and answer are taken from the server's record."""

    model_config = ConfigDict(extra="forbid")

    answer_id: str = Field(pattern=r"^[0-9a-f]{32}$", description="the answer_id of an answer")
    rating: Rating
    comment: str = Field(default="", max_length=MAX_COMMENT_CHARS)


class FeedbackResponse(BaseModel):
    """The stored rating's id."""

    id: int


class Health(BaseModel):
    """Liveness, the engine answering first, and why the service is degraded if it is."""

    status: Literal["ok", "degraded"] = "ok"
    engine: str
    reasons: list[str] = Field(default_factory=list)


class ChatContentPart(BaseModel):
    """One part of an OpenAI message's content; only text parts are read."""

    model_config = ConfigDict(extra="ignore")

    type: str
    text: str | None = None

    @field_validator("text", mode="before")
    @classmethod
    def _no_lone_surrogates(cls, value: object) -> object:
        return clean_text(value) if isinstance(value, str) else value


class ChatMessageIn(BaseModel):
    """One OpenAI chat message."""

    # OpenAI clients send fields we do not use (name, tool_call_id, ...): ignored, not refused.
    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[ChatContentPart] | None = None

    @field_validator("content", mode="before")
    @classmethod
    def _no_lone_surrogates(cls, value: object) -> object:
        return clean_text(value) if isinstance(value, str) else value


class ChatCompletionRequest(BaseModel):
    """The subset of OpenAI's chat-completions request gpu-advisor reads."""

    # Sampling parameters (temperature, top_p, ...) mean nothing to a deterministic engine: ignored.
    model_config = ConfigDict(extra="ignore")

    model: str = MODEL_NAME
    messages: list[ChatMessageIn] = Field(min_length=1, max_length=MAX_CHAT_MESSAGES)
    stream: bool = False


# ---------------------------------------------------------------------------------------------- errors


def error_response(
    status: int, error_type: str, message: str, *, headers: dict[str, str] | None = None
) -> JSONResponse:
    """Build the one error shape of the API: ``{"error": {"type", "message", "code"}}``."""
    body = {"error": {"type": error_type, "message": message, "code": status}}
    return JSONResponse(body, status_code=status, headers=headers)


def validation_message(errors: Sequence[Any]) -> str:
    """Summarise pydantic errors as ``field: problem; ...`` (the body location prefix dropped)."""
    parts = []
    for err in errors:
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        where = ".".join(loc) or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def install_error_handlers(app: FastAPI) -> None:
    """Make every error of ``app``'s own routes a JSON error without internals."""

    async def on_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        bad_json = [e for e in errors if e.get("type") == "json_invalid"]
        if bad_json:
            detail = bad_json[0].get("ctx", {}).get("error", "")
            return error_response(400, "invalid_json", f"The request body is not valid JSON ({detail}).")
        return error_response(422, "invalid_request", validation_message(errors))

    async def on_input(request: Request, exc: APIInputError) -> JSONResponse:
        return error_response(422, "invalid_request", str(exc))

    async def on_too_complex(request: Request, exc: TooComplexError) -> JSONResponse:
        return error_response(422, "too_complex", MESSAGES["too_complex"]["en"])

    async def on_unknown_answer(request: Request, exc: UnknownAnswerError) -> JSONResponse:
        return error_response(404, "not_found", "answer_id: no answer with this id was given by this service")

    async def on_store(request: Request, exc: StoreError) -> JSONResponse:
        log.error("store unavailable on %s %s: %s", request.method, request.url.path, exc)
        return error_response(503, "unavailable", "Storage is unavailable; please try again shortly.")

    async def on_http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_response(exc.status_code, kind, str(exc.detail), headers=getattr(exc, "headers", None))

    async def on_crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(500, "internal_error", "Internal error; it was logged. Please try again.")

    app.add_exception_handler(RequestValidationError, on_validation)  # type: ignore[arg-type]
    app.add_exception_handler(APIInputError, on_input)  # type: ignore[arg-type]
    app.add_exception_handler(TooComplexError, on_too_complex)  # type: ignore[arg-type]
    app.add_exception_handler(UnknownAnswerError, on_unknown_answer)  # type: ignore[arg-type]
    app.add_exception_handler(StoreError, on_store)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, on_http)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, on_crash)


# ---------------------------------------------------------------------------------------------- pure helpers


def sse(event: str, data: Any) -> str:
    """Format one server-sent event; ``data`` is JSON-encoded unless it is already a string."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return f"event: {event}\ndata: {payload}\n\n"


def conversation_from_openai(
    messages: Sequence[ChatMessageIn], caps: InputCaps | None = None
) -> tuple[str, list[Message]]:
    """Split OpenAI messages into the question (the last user message) and the earlier turns.

    System, developer and tool messages are dropped: the assistant has its own instructions, and text
    in them must not be able to change them.

    Raises:
        APIInputError: The last message is not a non-empty user message, or the question, an earlier
            message or all earlier messages together are longer than ``caps`` allow.
    """
    caps = caps or InputCaps()
    turns = [(m.role, clean_text(_openai_text(m.content))) for m in messages if m.role in ("user", "assistant")]
    if not turns or turns[-1][0] != "user" or not turns[-1][1].strip():
        raise APIInputError("messages: the last message must be a user message with text")
    question = turns[-1][1]
    if len(question) > min(caps.question, MAX_QUESTION_CHARS):
        raise APIInputError(f"messages: the question is longer than {MAX_QUESTION_CHARS} characters")
    history = [Message(role=role, content=text) for role, text in turns[:-1] if text.strip()]  # type: ignore[arg-type]
    if (problem := history_problem(history, caps)) is not None:
        raise APIInputError(problem)
    return question, history


def _openai_text(content: str | list[ChatContentPart] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(p.text for p in content if p.type == "text" and p.text)


def answer_extension(answer: Answer) -> dict[str, Any]:
    """Collect what OpenAI's format has no field for (engine, citations, warnings), sent as ``gpu_advisor``."""
    return {
        "engine": answer.engine,
        "language": answer.language,
        "kind": answer.kind,
        "citations": [c.model_dump(mode="json") for c in answer.citations],
        "warnings": answer.warnings,
    }


def completion_body(answer: Answer, completion_id: str, created: int) -> dict[str, Any]:
    """Build the non-streamed ``chat.completion`` object for ``answer``."""
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": MODEL_NAME,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": answer_text_with_sources(answer)},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        "gpu_advisor": answer_extension(answer),
    }


def completion_chunk(
    completion_id: str, created: int, delta: dict[str, Any], finish_reason: str | None = None
) -> dict[str, Any]:
    """Build one ``chat.completion.chunk`` of a streamed completion."""
    return {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": MODEL_NAME,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}],
    }


# ---------------------------------------------------------------------------------------------- routes


def api_router() -> APIRouter:
    """Build the API routes (a fresh router per app)."""
    router = APIRouter()
    router.add_api_route(
        "/healthz", healthz, methods=["GET"], response_model=Health, tags=["ops"], summary="Health check"
    )
    router.add_api_route(
        "/v1/ask", ask, methods=["POST"], response_model=AskResponse, tags=["ask"], summary="Ask a question"
    )
    router.add_api_route(
        "/v1/ask/stream",
        ask_stream,
        methods=["POST"],
        tags=["ask"],
        summary="Ask a question, answer streamed as server-sent events",
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}, "description": "server-sent events"}},
    )
    router.add_api_route(
        "/v1/feedback",
        give_feedback,
        methods=["POST"],
        status_code=201,
        response_model=FeedbackResponse,
        tags=["ask"],
        summary="Rate an answer (👍/👎 and an optional comment)",
    )
    router.add_api_route("/v1/models", list_models, methods=["GET"], tags=["openai"], summary="List models")
    router.add_api_route(
        "/v1/chat/completions",
        chat_completions,
        methods=["POST"],
        tags=["openai"],
        summary="OpenAI-compatible chat completion",
        responses={200: {"content": {"application/json": {}, "text/event-stream": {}}}},
    )
    # Last: the API owns /v1/, so an unknown endpoint there is our JSON 404, not the chat page's.
    router.add_api_route(
        "/v1/{path:path}", unknown_endpoint, methods=["GET", "POST", "PUT", "PATCH", "DELETE"], include_in_schema=False
    )
    return router


def unknown_endpoint(request: Request) -> JSONResponse:
    """Answer any other ``/v1/`` request with a JSON 404 that points at the docs."""
    return error_response(404, "not_found", f"No endpoint {request.method} {request.url.path}; see /docs.")


def healthz(svc: ServicesDep) -> Health:
    """Liveness probe: ``ok``, or ``degraded`` with reasons (retrieval, database, rate-limit store).

    Also says which engine answers first (``llm`` or ``offline``). Degraded still answers 200: the
    service answers questions, with less (no citations, no saved sessions).
    """
    reasons = [r for check in svc.health_checks if (r := check()) is not None]
    return Health(status="degraded" if reasons else "ok", engine=svc.assistant.engine, reasons=reasons)


def ask(body: AskRequest, svc: ServicesDep) -> AskResponse:
    """Answer one question. Send the returned ``session_id`` with a follow-up to continue the conversation."""
    session_id = body.session_id or new_session_id()
    history = svc.history(session_id)
    answer = svc.budget.run(lambda: svc.assistant.answer(body.question, history))
    svc.remember(session_id, body.question, answer)
    answer_id = svc.record(session_id, body.question, answer)
    return AskResponse(**answer.model_dump(), session_id=session_id, answer_id=answer_id)


def give_feedback(body: FeedbackRequest, svc: ServicesDep) -> FeedbackResponse:
    """Rate an answer by its ``answer_id``; rating the same answer again replaces the earlier rating."""
    row_id = svc.feedback.add(body.answer_id, body.rating, body.comment, face="api", session="api")
    return FeedbackResponse(id=row_id)


def ask_stream(body: AskRequest, svc: ServicesDep) -> StreamingResponse:
    """Answer as server-sent events.

    Events: ``tool_start`` and ``tool_end`` (a tool call: name, args, result), ``token`` (``{"text"}``,
    a draft), then ``answer`` (the final Answer plus ``session_id``). The ``answer`` event is
    authoritative: the truthfulness checks may change the text after the draft tokens were sent.
    """
    session_id = body.session_id or new_session_id()
    history = svc.history(session_id)

    def events() -> Iterator[str]:
        try:
            for event in svc.budget.stream(lambda: svc.assistant.stream(body.question, history)):
                if event.type == "answer" and event.answer is not None:
                    svc.remember(session_id, body.question, event.answer)
                    answer_id = svc.record(session_id, body.question, event.answer)
                    final = AskResponse(**event.answer.model_dump(), session_id=session_id, answer_id=answer_id)
                    yield sse("answer", final.model_dump_json())
                elif event.type == "token":
                    yield sse("token", {"text": event.text or ""})
                elif event.tool_call is not None:
                    yield sse(event.type, event.tool_call.model_dump(mode="json"))
        except TooComplexError:
            yield sse("error", {"type": "too_complex", "message": MESSAGES["too_complex"]["en"]})
        except Exception:  # headers are sent: report in-band, details to the log
            log.exception("stream failed")
            yield sse("error", {"type": "internal_error", "message": "Internal error; it was logged."})

    return StreamingResponse(events(), media_type="text/event-stream", headers=_SSE_HEADERS)


def list_models() -> dict[str, Any]:
    """OpenAI-compatible model list: the one model, ``gpu-advisor``."""
    return {
        "object": "list",
        "data": [{"id": MODEL_NAME, "object": "model", "created": 0, "owned_by": "gpu-advisor"}],
    }


def chat_completions(body: ChatCompletionRequest, svc: ServicesDep) -> Any:
    """OpenAI-compatible chat completions (``stream`` true or false) over the assistant.

    The earlier messages are the conversation; the last user message is the question. Streamed
    content is sent once the answer passed the truthfulness checks, in chunks, so a client never shows
    text that is later withdrawn. ``gpu_advisor`` (non-stream body, last chunk) carries the engine,
    citations and warnings.
    """
    question, history = conversation_from_openai(body.messages, svc.caps)
    completion_id = f"chatcmpl-{uuid.uuid4().hex[:24]}"
    created = int(time.time())
    if not body.stream:
        answer = svc.budget.run(lambda: svc.assistant.answer(question, history))
        body_out = completion_body(answer, completion_id, created)
        body_out["gpu_advisor"]["answer_id"] = svc.record(completion_id, question, answer)
        return JSONResponse(body_out)

    def chunks() -> Iterator[str]:
        yield _data(completion_chunk(completion_id, created, {"role": "assistant", "content": ""}))
        try:
            answer = svc.budget.run(lambda: svc.assistant.answer(question, history))
        except TooComplexError:
            yield _data({"error": {"type": "too_complex", "message": MESSAGES["too_complex"]["en"]}})
            return
        except Exception:
            log.exception("chat completion failed")
            yield _data({"error": {"type": "internal_error", "message": "Internal error; it was logged."}})
            return
        text = answer_text_with_sources(answer)
        for start in range(0, len(text), _CHUNK_CHARS):
            yield _data(completion_chunk(completion_id, created, {"content": text[start : start + _CHUNK_CHARS]}))
        last = completion_chunk(completion_id, created, {}, "stop")
        last["gpu_advisor"] = {**answer_extension(answer), "answer_id": svc.record(completion_id, question, answer)}
        yield _data(last)
        yield "data: [DONE]\n\n"

    return StreamingResponse(chunks(), media_type="text/event-stream", headers=_SSE_HEADERS)


def _data(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"
