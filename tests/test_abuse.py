"""Probing the server as an attacker would: every request is bounded, refused clearly, never a 500.

One real app (offline engine, loopback, Slack events on a fake Slack) with a small answer budget and a
small rate limit; each request is bounded in size and count, so the whole suite stays short.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Iterator

import httpx
import pytest
from web_helpers import running, web_app

pytestmark = pytest.mark.slow

BUDGET_S = 2.0
REPEATED_NAMES = ("Qwen2.5-72B " * 330)[:3990]
LIMIT = 40


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from fakes.fake_slack import SIGNING_SECRET, fake_slack
    from slack_sdk import WebClient

    with fake_slack() as slack, pytest.MonkeyPatch.context() as patch:
        patch.setattr("ui.slack_bot.WebClient", functools.partial(WebClient, base_url=slack.api_url))
        app = web_app(
            tmp_path_factory.mktemp("abuse"),
            GPU_ADVISOR_RATE_LIMIT_PER_MIN=LIMIT,
            GPU_ADVISOR_ANSWER_BUDGET_S=BUDGET_S,
            GPU_ADVISOR_API_KEYS="sk-known",
            SLACK_BOT_TOKEN="xoxb-test",
            SLACK_SIGNING_SECRET=SIGNING_SECRET,
        )
        with running(app) as url:
            yield url


@pytest.fixture
def client(base_url: str) -> Iterator[httpx.Client]:
    # Each test is its own client IP budget's worth: the key is configured, so it has its own bucket.
    with httpx.Client(base_url=base_url, timeout=60, headers={"X-API-Key": "sk-known"}) as c:
        yield c


def _chat(*contents: str) -> dict[str, object]:
    messages = [{"role": "user" if n % 2 == 0 else "assistant", "content": c} for n, c in enumerate(contents)]
    return {"model": "gpu-advisor", "messages": messages}


def test_a_question_repeating_a_name_is_answered_or_refused_within_the_budget(client: httpx.Client) -> None:
    started = time.monotonic()
    response = client.post("/v1/ask", json={"question": REPEATED_NAMES})
    elapsed = time.monotonic() - started
    assert response.status_code in (200, 422)
    if response.status_code == 422:
        assert response.json()["error"]["type"] == "too_complex"
    assert elapsed < BUDGET_S + 5  # the budget bounds the wait whatever the understanding costs


@pytest.mark.parametrize(
    ("contents", "problem"),
    [
        (("x" * 9000, "ok", "gn7i?"), "longer than 8,000 characters"),
        (("a" * 5000, "b" * 5000, "c" * 5000, "d" * 5000, "gn7i?"), "add up to more than 16,000"),
    ],
)
def test_long_openai_histories_are_refused_with_422(
    client: httpx.Client, contents: tuple[str, ...], problem: str
) -> None:
    response = client.post("/v1/chat/completions", json=_chat(*contents))
    assert response.status_code == 422 and problem in response.json()["error"]["message"]


def test_a_lone_surrogate_is_answered_not_a_500(client: httpx.Client) -> None:
    body = '{"model": "gpu-advisor", "messages": [{"role": "user", "content": "gn7i \\ud800 \\udfff GPU?"}]}'
    response = client.post("/v1/chat/completions", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 200
    asked = client.post("/v1/ask", content='{"question": "A10 \\udc00?"}', headers={"Content-Type": "application/json"})
    assert asked.status_code == 200


def test_forged_feedback_is_refused(client: httpx.Client) -> None:
    unknown = client.post("/v1/feedback", json={"answer_id": "0" * 32, "rating": "up"})
    assert unknown.status_code == 404
    forged = client.post(
        "/v1/feedback", json={"answer_id": "0" * 32, "rating": "up", "question": "q", "answer": "fake praise"}
    )
    assert forged.status_code == 422  # question and answer come from the server, never the client
    answer_id = client.post("/v1/ask", json={"question": "gn7i 是什么 GPU?"}).json()["answer_id"]
    too_long = client.post("/v1/feedback", json={"answer_id": answer_id, "rating": "down", "comment": "x" * 1001})
    assert too_long.status_code == 422
    rated = client.post("/v1/feedback", json={"answer_id": answer_id, "rating": "down", "comment": "[red]hi[/]"})
    assert rated.status_code == 201


def test_rotating_made_up_keys_do_not_bypass_the_limit(base_url: str) -> None:
    codes = []
    with httpx.Client(base_url=base_url, timeout=60) as anonymous:
        for n in range(LIMIT + 2):
            response = anonymous.get("/v1/models", headers={"Authorization": f"Bearer made-up-{n}"})
            codes.append(response.status_code)
    assert codes[:LIMIT] == [200] * LIMIT and codes[LIMIT:] == [429, 429]


def test_body_limits_hold_on_every_route_before_the_handler(base_url: str) -> None:
    big = b"{" + b" " * (300 * 1024) + b"}"
    slack = httpx.post(f"{base_url}/slack/events", content=big, headers={"Content-Type": "application/json"})
    assert slack.status_code == 413  # refused before the signature check reads it
    api = httpx.post(f"{base_url}/v1/ask", content=b"{" + b" " * (40 * 1024) + b"}", headers={"X-API-Key": "sk-known"})
    assert api.status_code == 413
    page = httpx.post(f"{base_url}/gradio_api/queue/join", content=b"x" * (2 * 1024 * 1024))
    assert page.status_code == 413


def test_gradio_uploads_are_refused(base_url: str) -> None:
    response = httpx.post(f"{base_url}/gradio_api/upload", files={"files": ("a.txt", b"hello")})
    assert response.status_code == 403


def test_a_malformed_slack_timestamp_is_a_400(base_url: str) -> None:
    from fakes.fake_slack import event_callback, mention, signed_headers

    body = json.dumps(event_callback(mention("gn7i?")))
    headers = signed_headers(body) | {"X-Slack-Request-Timestamp": "soon"}
    response = httpx.post(f"{base_url}/slack/events", content=body, headers=headers)
    assert response.status_code == 400


def test_the_chat_pages_api_counts_against_the_same_limit(base_url: str) -> None:
    """Gradio's own API route computes answers too: it must not be a way around the /v1/ limit."""
    with httpx.Client(base_url=base_url, timeout=60) as http:
        for _ in range(LIMIT + 1):  # spend this IP's answer budget (cheap requests count the same)
            http.get("/v1/models")
        started = http.post("/gradio_api/call/chat", json={"data": ["Which GPU does gn7i have?", [], {}]})
        assert started.status_code == 200
        result = http.get(f"/gradio_api/call/chat/{started.json()['event_id']}").text
    assert "Too many questions" in result


def test_an_unreachable_slack_at_start_up_disables_slack_and_the_rest_serves(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from fakes.fake_slack import SIGNING_SECRET
    from slack_sdk import WebClient

    # Nothing listens on port 9: auth.test at start-up fails like a Slack outage or a blocked network.
    monkeypatch.setattr("ui.slack_bot.WebClient", functools.partial(WebClient, base_url="http://127.0.0.1:9/api/"))
    app = web_app(tmp_path_factory.mktemp("no-slack"), SLACK_BOT_TOKEN="xoxb-test", SLACK_SIGNING_SECRET=SIGNING_SECRET)
    assert "Slack is disabled" in caplog.text
    with running(app) as url:
        assert httpx.get(f"{url}/healthz").json()["status"] == "ok"
        assert httpx.post(f"{url}/v1/ask", json={"question": "gn7i 是什么 GPU?"}, timeout=60).status_code == 200
        assert httpx.post(f"{url}/slack/events", content=b"{}").status_code != 200


def test_an_unreachable_database_degrades_health_but_answers_still_go_out(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    app = web_app(tmp_path_factory.mktemp("no-db"), GPU_ADVISOR_DATABASE_URL="postgresql://u:pw@127.0.0.1:9/gone")
    with running(app) as url:
        health = httpx.get(f"{url}/healthz").json()
        asked = httpx.post(f"{url}/v1/ask", json={"question": "gn7i 是什么 GPU?"}, timeout=60)
    assert health["status"] == "degraded" and health["reasons"][0].startswith("database")
    assert "pw" not in json.dumps(health)
    assert asked.status_code == 200 and "A10" in asked.json()["text"] and asked.json()["answer_id"] is None
