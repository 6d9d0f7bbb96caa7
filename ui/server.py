"""One server, one port: the chat page at ``/``, the widget script, the HTTP API, OpenAPI docs, Slack.

``create_app(settings)`` builds the FastAPI app; ``gpu-advisor serve`` runs it with uvicorn. Order
matters: the app's own routes are registered before the chat page is mounted at ``/``, so they keep
precedence. Middleware, outermost first: security headers, CORS, rate limit, body size limit.
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
from ui.feedback import FeedbackStore
from ui.rate_limit import RateLimitMiddleware, TokenBucketLimiter
from ui.sessions import SessionStore

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from assistant.assistant import Assistant
    from assistant.settings import Settings

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 32 * 1024
"""Largest API request body; a question is at most 4,000 characters, chat histories fit easily."""

_WIDGET_FILES = {"widget.js": "text/javascript; charset=utf-8", "widget.css": "text/css; charset=utf-8"}


def create_app(settings: Settings, *, assistant: Assistant | None = None) -> FastAPI:
    """Build the whole web face.

    Args:
        settings: Application settings (embed origins, rate limit, concurrency, data_dir, Slack).
        assistant: The assistant to serve; built from ``settings`` when None. It is shared by every
            request and must be thread-safe (both engines are).

    Returns:
        The FastAPI app: ``/`` chat page (``/?embed=1`` for the widget), ``/widget.js``,
        ``/widget.css``, ``/v1/...`` API, ``/healthz``, ``/docs``, ``/slack/events`` when Slack tokens
        are set.
    """
    if assistant is None:
        from assistant.assistant import build_assistant

        assistant = build_assistant(settings)
    app = FastAPI(
        title="gpu-advisor",
        summary="Which Alibaba Cloud GPU instance, how many cards, what it costs: computed and cited answers.",
        version="0.1.0",
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.services = Services(assistant=assistant, sessions=SessionStore.in_dir(settings.data_dir))
    app.state.feedback = FeedbackStore.in_dir(settings.data_dir)
    install_error_handlers(app)
    app.include_router(api_router())
    app.include_router(_widget_router())
    if settings.slack_bot_token and settings.slack_signing_secret:
        from ui.slack_bot import mount_slack_http

        mount_slack_http(app, settings, assistant)

    from ui.mcp_server import mount_mcp  # the toolbox for MCP clients (streamable HTTP) at /mcp

    mount_mcp(app, settings)

    from ui.chat import mount_chat  # Gradio takes seconds to import: only when a server is built

    mount_chat(app, assistant, app.state.feedback, concurrency=settings.web_concurrency)

    origins = list(settings.embed_origins)
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=MAX_BODY_BYTES, prefixes=("/v1/",))
    if settings.rate_limit_per_min > 0:
        app.add_middleware(RateLimitMiddleware, limiter=TokenBucketLimiter(settings.rate_limit_per_min))
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
    """Refuse request bodies over ``max_bytes`` on the given path prefixes with 413 and a JSON error."""

    def __init__(self, app: ASGIApp, *, max_bytes: int, prefixes: Sequence[str]) -> None:
        """Wrap ``app``; only paths starting with one of ``prefixes`` are limited."""
        self.app = app
        self.max_bytes = max_bytes
        self.prefixes = tuple(prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the declared length, or read a body of unknown length up to the limit, then pass on."""
        if scope["type"] != "http" or not scope.get("path", "").startswith(self.prefixes):
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None:
            if declared.isdigit() and int(declared) <= self.max_bytes:
                await self.app(scope, receive, send)
                return
            await self._too_large(scope, receive, send)
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
            if size > self.max_bytes:
                await self._too_large(scope, receive, send)
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

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        kib = self.max_bytes // 1024
        response = error_response(413, "request_too_large", f"The request body is larger than {kib} KiB.")
        await response(scope, receive, send)
