"""Rate limiting through ``limits`` (in memory here) and its middleware: 429 + Retry-After, refused routes."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from ui.rate_limit import RateLimiter, RateLimitMiddleware


def test_a_client_gets_its_budget_then_waits() -> None:
    limiter = RateLimiter(per_minute=3)
    assert [limiter.acquire("ip:a") for _ in range(3)] == [0.0] * 3
    wait = limiter.acquire("ip:a")
    assert 1.0 <= wait <= 60.0
    assert limiter.acquire("ip:b") == 0.0  # clients are independent


def test_zero_rate_is_refused() -> None:
    with pytest.raises(ValueError, match="positive"):
        RateLimiter(per_minute=0)


def test_only_configured_keys_count_on_their_own_and_never_in_clear() -> None:
    limiter = RateLimiter(per_minute=1, api_keys=["sk-secret"])
    by_key = limiter.client_key({"authorization": "Bearer sk-secret"}, "10.0.0.1")
    assert by_key.startswith("key:") and "sk-secret" not in by_key
    assert limiter.client_key({"x-api-key": "sk-secret"}, "10.0.0.2") == by_key
    assert limiter.client_key({"authorization": "Bearer made-up"}, "10.0.0.1") == "ip:10.0.0.1"
    assert limiter.client_key({}, "10.0.0.1") == "ip:10.0.0.1"


def test_rotating_made_up_keys_share_the_ip_budget() -> None:
    limiter = RateLimiter(per_minute=2)
    keys = [limiter.client_key({"x-api-key": f"k{n}"}, "10.0.0.9") for n in range(5)]
    assert [limiter.acquire(k) for k in keys][2:] != [0.0, 0.0, 0.0]
    assert len(set(keys)) == 1


def test_a_failing_store_lets_requests_through_and_reports_why() -> None:
    limiter = RateLimiter(per_minute=1, storage_url="redis://127.0.0.1:9/0")  # nothing listens on port 9
    assert limiter.acquire("ip:a") == 0.0
    assert limiter.check() is not None


def _app(api: RateLimiter, page: RateLimiter | None = None) -> RateLimitMiddleware:
    async def ok(request: object) -> PlainTextResponse:
        return PlainTextResponse("ok")

    inner = Starlette(
        routes=[
            Route("/v1/ask", ok, methods=["POST"]),
            Route("/page", ok),
            Route("/gradio_api/queue/join", ok, methods=["POST"]),
            Route("/gradio_api/upload", ok, methods=["POST"]),
        ]
    )
    return RateLimitMiddleware(inner, api, page=page)


def _send(app: RateLimitMiddleware, calls: list[tuple[str, str]]) -> list[httpx.Response]:
    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return [await client.request(method, path) for method, path in calls]

    return asyncio.run(run())


def test_middleware_answers_429_with_retry_after_on_limited_paths_only() -> None:
    responses = _send(_app(RateLimiter(per_minute=2)), [("POST", "/v1/ask")] * 3 + [("GET", "/page")] * 3)
    assert [r.status_code for r in responses] == [200, 200, 429, 200, 200, 200]
    refused = responses[2]
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert refused.json()["error"]["type"] == "rate_limited"


def test_gradio_answer_routes_are_limited_and_uploads_refused() -> None:
    app = _app(RateLimiter(per_minute=5), page=RateLimiter(per_minute=2, namespace="page"))
    responses = _send(app, [("POST", "/gradio_api/queue/join")] * 3 + [("POST", "/gradio_api/upload")])
    assert [r.status_code for r in responses] == [200, 200, 429, 403]
