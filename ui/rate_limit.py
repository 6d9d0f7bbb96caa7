"""Per-client rate limits through the ``limits`` library: in memory by default, Redis for replicas.

A client is a configured API key (``GPU_ADVISOR_API_KEYS``) when it sends one, else its IP address: a
made-up key gets no bucket of its own, so rotating keys does not bypass the limit. With
``GPU_ADVISOR_REDIS_URL`` every replica counts in the same Redis, so the limit holds across a load
balancer. If the limit store fails, requests are let through (and ``/healthz`` says why): a rate limit
must not take the service down. Run uvicorn with ``--proxy-headers`` behind a proxy so the IP is the
user's, not the proxy's.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Iterable, Mapping, Sequence

from limits import RateLimitItemPerMinute
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter
from starlette.types import ASGIApp, Receive, Scope, Send

from ui.api import error_response

log = logging.getLogger(__name__)

LIMITED_API_PREFIX = "/v1/"
GRADIO_ANSWER_PATHS = (
    "/gradio_api/queue/join",
    "/gradio_api/call/",
    "/gradio_api/run/",
    "/gradio_api/api/",
    "/gradio_api/stream/",
)
"""Gradio routes that start work (each chat message is a few such requests: the page budget is larger)."""
REFUSED_PATHS = ("/gradio_api/upload", "/gradio_api/component_server")
"""Gradio routes the chat page never needs; they would accept files or run component code for anyone."""
PAGE_REQUESTS_PER_ANSWER = 6


def key_digest(key: str) -> str:
    """Hash an API key short: keys are compared and counted in this form, never kept in clear."""
    return hashlib.sha256(key.encode()).hexdigest()[:16]


class RateLimiter:
    """``per_minute`` requests per client in any 60-second window, counted in memory or in Redis."""

    def __init__(
        self,
        per_minute: int,
        *,
        storage_url: str | None = None,
        api_keys: Iterable[str] = (),
        namespace: str = "api",
    ) -> None:
        """Configure the limiter.

        Args:
            per_minute: Requests per client per minute; must be positive.
            storage_url: ``redis://host:port/db`` to share counts between replicas; None keeps them in memory.
            api_keys: Keys that count on their own; any other key counts as its client's IP.
            namespace: Prefix that keeps different limits (API, feedback, page) apart in one storage.
        """
        if per_minute <= 0:
            raise ValueError("per_minute must be positive (disable the limiter instead of passing 0)")
        self.per_minute = per_minute
        self.storage = storage_from_string(storage_url or "memory://")
        self._limiter = MovingWindowRateLimiter(self.storage)
        self._item = RateLimitItemPerMinute(per_minute, namespace=f"gpu-advisor-{namespace}")
        self._keys = frozenset(key_digest(k) for k in api_keys)

    def client_key(self, headers: Mapping[str, str], client_host: str | None) -> str:
        """Identify the client: a configured API key (hashed) if it sent one, else its IP.

        Args:
            headers: Request headers, lower-case names.
            client_host: The peer address as the server sees it.
        """
        key = headers.get("x-api-key", "")
        auth = headers.get("authorization", "")
        if not key and auth.lower().startswith("bearer "):
            key = auth[7:].strip()
        if key and (digest := key_digest(key)) in self._keys:
            return "key:" + digest
        return "ip:" + (client_host or "unknown")

    def acquire(self, client: str) -> float:
        """Count one request of ``client``.

        Returns:
            0.0 when the request may proceed, else the seconds until it would be allowed.
        """
        try:
            if self._limiter.hit(self._item, client):
                return 0.0
            reset_at, _remaining = self._limiter.get_window_stats(self._item, client)
        except Exception as exc:  # noqa: BLE001 - a limit store outage must not refuse every request
            log.warning("rate-limit store failed (%s); letting the request through", exc)
            return 0.0
        return max(1.0, reset_at - time.time())

    def check(self) -> str | None:
        """Return None when the limit store answers, else why not (for ``/healthz``)."""
        try:
            if self.storage.check():
                return None
        except Exception as exc:  # noqa: BLE001 - any failure of the store is a reason
            return f"rate-limit store: {type(exc).__name__}: {exc}"[:300]
        return "rate-limit store: not reachable"


def refusal(wait_s: float) -> tuple[int, dict[str, str], str]:
    """Status, headers and message of a rate-limit refusal after ``wait_s`` seconds."""
    retry = max(1, math.ceil(wait_s))
    return 429, {"Retry-After": str(retry)}, f"Too many requests; try again in {retry} s."


class RateLimitMiddleware:
    """ASGI middleware: limits the API and Gradio's answer routes, refuses Gradio's upload route.

    ``/v1/`` requests count against ``api``; Gradio's queue and API routes against ``page`` (a larger
    budget: one chat message is several requests). The chat handlers also count each answer against
    ``api`` themselves (see :mod:`ui.chat`), so Gradio's API cannot compute more answers than ``/v1/``.
    Page assets, the widget script and health checks are never limited.
    """

    def __init__(
        self,
        app: ASGIApp,
        api: RateLimiter | None,
        *,
        page: RateLimiter | None = None,
        prefixes: Sequence[str] = (LIMITED_API_PREFIX,),
    ) -> None:
        """Wrap ``app``; a None limiter leaves its routes unlimited."""
        self.app = app
        self.api = api
        self.page = page
        self.prefixes = tuple(prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse the request with 429 when the client's budget is spent, 403 for refused routes."""
        path = scope.get("path", "")
        if scope["type"] != "http" or scope.get("method") == "OPTIONS":
            await self.app(scope, receive, send)
            return
        if path.rstrip("/").startswith(REFUSED_PATHS):
            response = error_response(403, "forbidden", "This server does not accept uploads or component calls.")
            await response(scope, receive, send)
            return
        limiter = self._limiter_for(path, scope.get("method", "GET"))
        if limiter is None:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        client = scope.get("client")
        wait_s = limiter.acquire(limiter.client_key(headers, client[0] if client else None))
        if wait_s <= 0:
            await self.app(scope, receive, send)
            return
        status, retry_headers, message = refusal(wait_s)
        await error_response(status, "rate_limited", message, headers=retry_headers)(scope, receive, send)

    def _limiter_for(self, path: str, method: str) -> RateLimiter | None:
        if path.startswith(self.prefixes):
            return self.api
        if method == "POST" and path.startswith(GRADIO_ANSWER_PATHS):
            return self.page
        return None
