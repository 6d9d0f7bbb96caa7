"""Token-bucket rate limiting and its middleware (429 + Retry-After, JSON error)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from ui.rate_limit import RateLimitMiddleware, TokenBucketLimiter, client_key


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_bucket_allows_a_burst_then_refills_at_the_rate() -> None:
    clock = Clock()
    limiter = TokenBucketLimiter(per_minute=6, clock=clock)  # one token every 10 s
    assert [limiter.acquire("a") for _ in range(6)] == [0.0] * 6
    assert limiter.acquire("a") == pytest.approx(10.0)
    assert limiter.acquire("b") == 0.0  # keys are independent
    clock.now = 5.0
    assert limiter.acquire("a") == pytest.approx(5.0)
    clock.now = 10.0
    assert limiter.acquire("a") == 0.0


def test_idle_keys_are_forgotten_beyond_the_cap() -> None:
    clock = Clock()
    limiter = TokenBucketLimiter(per_minute=1, max_keys=2, clock=clock)
    assert limiter.acquire("a") == 0.0
    limiter.acquire("b")
    limiter.acquire("c")  # evicts "a"
    assert limiter.acquire("a") == 0.0  # a fresh bucket


def test_zero_rate_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        TokenBucketLimiter(per_minute=0)


def test_client_key_prefers_the_api_key_and_never_keeps_it_in_clear() -> None:
    by_key = client_key({"authorization": "Bearer sk-secret"}, "10.0.0.1")
    assert by_key.startswith("key:") and "sk-secret" not in by_key
    assert client_key({"x-api-key": "sk-secret"}, "10.0.0.2") == by_key
    assert client_key({}, "10.0.0.1") == "ip:10.0.0.1"


def _app(limiter: TokenBucketLimiter) -> RateLimitMiddleware:
    async def ok(request: object) -> PlainTextResponse:
        return PlainTextResponse("ok")

    inner = Starlette(routes=[Route("/v1/ask", ok, methods=["POST"]), Route("/page", ok)])
    return RateLimitMiddleware(inner, limiter)


def test_middleware_answers_429_with_retry_after_on_limited_paths_only() -> None:
    limiter = TokenBucketLimiter(per_minute=2, clock=Clock())

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=_app(limiter))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            asks = [await client.post("/v1/ask") for _ in range(3)]
            pages = [await client.get("/page") for _ in range(3)]
            return asks + pages

    responses = asyncio.run(run())
    assert [r.status_code for r in responses] == [200, 200, 429, 200, 200, 200]
    refused = responses[2]
    assert refused.headers["retry-after"] == "30"
    assert refused.json() == {
        "error": {"type": "rate_limited", "message": "Too many requests; try again in 30 s.", "code": 429}
    }
