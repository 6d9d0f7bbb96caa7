"""One server, one port: the chat page at ``/``, the widget script, the HTTP API, OpenAPI docs, Slack.

``create_app(settings)`` builds the FastAPI app; ``gpu-advisor serve`` runs it with uvicorn. Order
matters: the app's own routes are registered before the chat page is mounted at ``/``, so they keep
precedence. Middleware, outermost first: security headers, CORS, rate limit, body size limit (on every
route: Slack events and Gradio's routes too, before anything reads or verifies the body).
"""

from __future__ import annotations

import logging
from importlib.resources import files
from typing import TYPE_CHECKING

from fastapi import APIRouter, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ui.api import Services, api_router, error_response, install_error_handlers
from ui.budget import AnswerBudget
from ui.feedback import FeedbackStore
from ui.input_caps import InputCaps
from ui.rate_limit import PAGE_REQUESTS_PER_ANSWER, RateLimiter, RateLimitMiddleware
from ui.sessions import SessionStore
from ui.store import Database, StoreError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from assistant.assistant import Assistant
    from assistant.settings import Settings
    from knowledge.base import KnowledgeBase

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 32 * 1024
"""Largest API request body; a question is at most 4,000 characters, chat histories fit easily."""
BODY_LIMITS: tuple[tuple[str, int], ...] = (
    ("/v1/", MAX_BODY_BYTES),
    ("/slack/", 256 * 1024),  # Slack's events are small; a long message with blocks stays well under this
    ("/", 1024 * 1024),  # the chat page sends its conversation with each message
)
"""Largest request body by path prefix, first match wins."""

_WIDGET_FILES = {"widget.js": "text/javascript; charset=utf-8", "widget.css": "text/css; charset=utf-8"}


def create_app(
    settings: Settings, *, assistant: Assistant | None = None, knowledge_base: KnowledgeBase | None = None
) -> FastAPI:
    """Build the whole web face.

    Args:
        settings: Application settings (embed origins, rate limit, concurrency, data_dir, Slack).
        assistant: The assistant to serve; built from ``settings`` when None. It is shared by every
            request and must be thread-safe (both engines are).
        knowledge_base: The assistant's knowledge base, checked by ``/healthz``; built from ``settings``
            (and given to the new assistant) when both are None.

    Returns:
        The FastAPI app: ``/`` chat page (``/?embed=1`` for the widget), ``/widget.js``,
        ``/widget.css``, ``/v1/...`` API, ``/healthz``, ``/docs``, ``/slack/events`` when Slack tokens
        are set.
    """
    if assistant is None:
        from assistant.assistant import build_assistant
        from assistant.settings import knowledge_config_from_settings
        from knowledge.base import KnowledgeBase

        knowledge_base = knowledge_base or KnowledgeBase(knowledge_config_from_settings(settings))
        assistant = build_assistant(settings, knowledge_base=knowledge_base)
    app = FastAPI(
        title="gpu-advisor",
        summary="Which Alibaba Cloud GPU instance, how many cards, what it costs: computed and cited answers.",
        version="0.1.0",
        docs_url="/docs",
        redoc_url=None,
    )
    db = open_database(settings)
    limiters = Limiters.from_settings(settings)
    checks: list[Callable[[], str | None]] = [db.check, *limiters.checks()]
    if knowledge_base is not None:
        checks.insert(0, knowledge_base.health)
    services = Services(
        assistant=assistant,
        sessions=SessionStore(db),
        feedback=FeedbackStore(db),
        budget=AnswerBudget(settings.answer_budget_s, workers=settings.web_concurrency),
        caps=InputCaps(turn=settings.max_turn_chars, history=settings.max_history_chars),
        health_checks=tuple(checks),
    )
    app.state.settings = settings
    app.state.services = services
    app.state.database = db
    install_error_handlers(app)
    app.include_router(api_router())
    app.include_router(_widget_router())
    if settings.slack_bot_token and settings.slack_signing_secret:
        _mount_slack(app, settings, assistant, db)

    from ui.chat import ChatGuards, mount_chat  # Gradio takes seconds to import: only when a server is built
    from ui.mcp_server import mount_mcp  # the toolbox for MCP clients (streamable HTTP) at /mcp

    mount_mcp(app, settings)
    guards = ChatGuards(limiter=limiters.api, feedback_limiter=limiters.feedback, budget=services.budget,
                        caps=services.caps)
    mount_chat(app, assistant, services.feedback, concurrency=settings.web_concurrency, guards=guards)

    origins = list(settings.embed_origins)
    app.add_middleware(BodySizeLimitMiddleware, limits=BODY_LIMITS)
    app.add_middleware(RateLimitMiddleware, api=limiters.api, page=limiters.page)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=origins,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "X-API-Key"],
        expose_headers=["Retry-After"],
        max_age=600,
    )
    app.add_middleware(SecurityHeadersMiddleware, frame_ancestors=frame_ancestors(origins))
    return app


def open_database(settings: Settings) -> Database:
    """Open and migrate the shared store; a database that cannot be reached now is logged, not fatal."""
    url = settings.database_url.get_secret_value() if settings.database_url else None
    db = Database.for_data_dir(settings.data_dir, url)
    try:
        db.migrate()
    except StoreError as exc:  # /healthz says degraded; requests retry the migration on first use
        log.error("the database is not available at start-up: %s", exc)
    return db


class Limiters:
    """The rate limits of one app: API answers, the chat page's Gradio routes, feedback."""

    def __init__(self, api: RateLimiter | None, page: RateLimiter | None, feedback: RateLimiter | None) -> None:
        """Hold the limiters; None means unlimited."""
        self.api, self.page, self.feedback = api, page, feedback

    @classmethod
    def from_settings(cls, settings: Settings) -> Limiters:
        """Build the limiters in memory, or in Redis when ``GPU_ADVISOR_REDIS_URL`` is set."""
        url = settings.redis_url.get_secret_value() if settings.redis_url else None
        keys = [k.get_secret_value() for k in settings.api_keys]

        def limiter(per_minute: int, namespace: str) -> RateLimiter | None:
            if per_minute <= 0:
                return None
            return RateLimiter(per_minute, storage_url=url, api_keys=keys, namespace=namespace)

        per_min = settings.rate_limit_per_min
        return cls(
            limiter(per_min, "api"),
            limiter(per_min * PAGE_REQUESTS_PER_ANSWER, "page"),
            limiter(settings.feedback_per_min, "feedback"),
        )

    def checks(self) -> list[Callable[[], str | None]]:
        """Health checks of the limit storage (one per storage)."""
        first = next((x for x in (self.api, self.page, self.feedback) if x is not None), None)
        return [first.check] if first is not None else []


def _mount_slack(app: FastAPI, settings: Settings, assistant: Assistant, db: Database) -> None:
    """Add Slack events; when Slack cannot be reached or refuses the token, serve everything else."""
    from ui.slack_bot import SharedSeenEvents, mount_slack_http

    try:
        mount_slack_http(app, settings, assistant, seen=SharedSeenEvents(db))
    except Exception as exc:  # noqa: BLE001 - any Slack failure at start-up: the chat and API still serve
        log.warning("Slack is disabled: it could not be set up (%s: %s)", type(exc).__name__, exc)


def frame_ancestors(origins: Sequence[str]) -> str:
    """CSP ``frame-ancestors`` value: this server plus the allowed embedding origins (``*``: any)."""
    if "*" in origins:
        return "*"
    return " ".join(["'self'", *origins])


def _widget_router() -> APIRouter:
    router = APIRouter(include_in_schema=False)
    for name, media_type in _WIDGET_FILES.items():
        router.add_api_route(f"/{name}", _static(name, media_type), methods=["GET"])
    return router


def _static(name: str, media_type: str) -> Callable[[], Response]:
    body = files("ui.widget").joinpath(name).read_bytes()

    def serve() -> Response:
        return Response(body, media_type=media_type, headers={"Cache-Control": "public, max-age=3600"})

    serve.__name__ = f"widget_{name.replace('.', '_')}"
    return serve


class SecurityHeadersMiddleware:
    """Add ``Content-Security-Policy: frame-ancestors`` (who may embed the pages) and ``nosniff``."""

    def __init__(self, app: ASGIApp, *, frame_ancestors: str) -> None:
        """Wrap ``app``; ``frame_ancestors`` is the CSP directive's value."""
        self.app = app
        self.headers = [
            (b"content-security-policy", f"frame-ancestors {frame_ancestors}".encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"strict-origin-when-cross-origin"),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on; add the headers to the response start."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in self.headers if k not in names]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodySizeLimitMiddleware:
    """Refuse request bodies over the limit of their path with 413 and a JSON error, before any handler."""

    def __init__(self, app: ASGIApp, *, limits: Sequence[tuple[str, int]]) -> None:
        """Wrap ``app``; ``limits`` maps path prefixes to their largest body in bytes (first match wins)."""
        self.app = app
        self.limits = tuple(limits)

    def limit_for(self, path: str) -> int | None:
        """Return the largest body allowed on ``path``; None when no prefix matches."""
        return next((size for prefix, size in self.limits if path.startswith(prefix)), None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the declared length, or read a body of unknown length up to the limit, then pass on."""
        max_bytes = self.limit_for(scope.get("path", "")) if scope["type"] == "http" else None
        if max_bytes is None:
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None:
            if declared.isdigit() and int(declared) <= max_bytes:
                await self.app(scope, _capped(receive, max_bytes), send)
                return
            await _too_large(max_bytes, scope, receive, send)
            return
        # No Content-Length (chunked): buffer up to the limit, then replay the body to the app.
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > max_bytes:
                await _too_large(max_bytes, scope, receive, send)
                return
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


def _capped(receive: Receive, max_bytes: int) -> Receive:
    """Wrap ``receive`` so it stops a body longer than its declared Content-Length at the limit."""
    seen = 0

    async def capped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > max_bytes:
                return {"type": "http.disconnect"}
        return message

    return capped


async def _too_large(max_bytes: int, scope: Scope, receive: Receive, send: Send) -> None:
    kib = max_bytes // 1024
    response = error_response(413, "request_too_large", f"The request body is larger than {kib} KiB.")
    await response(scope, receive, send)
