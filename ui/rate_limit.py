"""Per-client rate limiting: a token bucket per API key or client IP, answered with 429 + Retry-After.

The limiter lives on the app (one per server process), not in a module global. Behind a load balancer
each replica limits on its own, so the effective limit is per replica; run uvicorn with
``--proxy-headers`` (and ``--forwarded-allow-ips``) so the client IP is the user's, not the proxy's.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

from ui.api import error_response


@dataclass
class _Bucket:
    tokens: float
    updated: float


class TokenBucketLimiter:
    """Allow ``per_minute`` requests per key on average, with bursts up to ``burst``.

    Thread-safe. Idle keys are forgotten beyond ``max_keys`` (least recently seen first), which bounds
    memory; a forgotten key simply starts with a full bucket again.
    """

    def __init__(
        self,
        per_minute: int,
        *,
        burst: int | None = None,
        max_keys: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Configure the limiter.

        Args:
            per_minute: Sustained requests per minute per key; must be positive.
            burst: Bucket size (requests allowed at once); defaults to ``per_minute``.
            max_keys: Buckets kept in memory.
            clock: Seconds, monotonic (injectable for tests).
        """
        if per_minute <= 0:
            raise ValueError("per_minute must be positive (disable the limiter instead of passing 0)")
        self.rate_per_s = per_minute / 60.0
        self.capacity = float(burst or per_minute)
        self._max_keys = max_keys
        self._clock = clock
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()
        self._lock = threading.Lock()

    def acquire(self, key: str) -> float:
        """Take one token for ``key``.

        Returns:
            0.0 when the request may proceed, else the seconds until a token is available.
        """
        now = self._clock()
        with self._lock:
            bucket = self._buckets.pop(key, None) or _Bucket(self.capacity, now)
            bucket.tokens = min(self.capacity, bucket.tokens + (now - bucket.updated) * self.rate_per_s)
            bucket.updated = now
            self._buckets[key] = bucket
            while len(self._buckets) > self._max_keys:
                self._buckets.popitem(last=False)
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                return 0.0
            return (1.0 - bucket.tokens) / self.rate_per_s


def client_key(headers: Mapping[str, str], client_host: str | None) -> str:
    """Identify the client: its API key (hashed, never stored in clear) if it sent one, else its IP.

    Args:
        headers: Request headers, lower-case names.
        client_host: The peer address as the server sees it.
    """
    key = headers.get("x-api-key", "")
    auth = headers.get("authorization", "")
    if not key and auth.lower().startswith("bearer "):
        key = auth[7:].strip()
    if key:
        return "key:" + hashlib.sha256(key.encode()).hexdigest()[:16]
    return "ip:" + (client_host or "unknown")


class RateLimitMiddleware:
    """ASGI middleware: limits requests whose path matches, answers 429 with ``Retry-After``.

    Only the API (``/v1/``) is limited: page assets, the widget script and health checks are never
    refused, and the chat page is bounded by its queue instead (users behind one NAT share an IP, and a
    browser session makes several queue requests per message).
    """

    def __init__(
        self,
        app: ASGIApp,
        limiter: TokenBucketLimiter,
        *,
        prefixes: Sequence[str] = ("/v1/",),
    ) -> None:
        """Wrap ``app``; requests whose path starts with one of ``prefixes`` are limited."""
        self.app = app
        self.limiter = limiter
        self.prefixes = tuple(prefixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse the request with 429 when the client's bucket is empty."""
        path = scope.get("path", "")
        if scope["type"] != "http" or scope.get("method") == "OPTIONS" or not path.startswith(self.prefixes):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        client = scope.get("client")
        wait_s = self.limiter.acquire(client_key(headers, client[0] if client else None))
        if wait_s <= 0:
            await self.app(scope, receive, send)
            return
        retry = max(1, math.ceil(wait_s))
        response = error_response(
            429,
            "rate_limited",
            f"Too many requests; try again in {retry} s.",
            headers={"Retry-After": str(retry)},
        )
        await response(scope, receive, send)
