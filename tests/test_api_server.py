"""The HTTP API against the running server (uvicorn on loopback, real offline engine), with httpx and openai."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from web_helpers import running, web_app

pytestmark = pytest.mark.slow

DOCS_ORIGIN = "http://127.0.0.1:9"
PLAN_QUESTION = "Qwen2.5-72B 推理, INT4, 32k 上下文, 20 并发, 选什么实例?"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    app = web_app(
        tmp_path_factory.mktemp("api"),
        GPU_ADVISOR_EMBED_ORIGINS=DOCS_ORIGIN,
        GPU_ADVISOR_RATE_LIMIT_PER_MIN=10_000,
    )
    with running(app) as url:
        yield url


@pytest.fixture
def client(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=60) as c:
        yield c


def _events(body: str) -> list[tuple[str, Any]]:
    events = []
    for frame in body.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in frame.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


def test_health(client: httpx.Client) -> None:
    response = client.get("/healthz")
    assert response.json() == {"status": "ok", "engine": "offline", "reasons": []}


def test_ask_returns_the_answer_json_with_tool_calls_and_citations(client: httpx.Client) -> None:
    response = client.post("/v1/ask", json={"question": PLAN_QUESTION})
    assert response.status_code == 200
    body = response.json()
    assert body["language"] == "zh" and body["engine"] == "offline" and body["kind"] == "recommendation"
    assert "plan_gpu_deployment" in [c["name"] for c in body["tool_calls"]]
    assert body["citations"] and body["citations"][0]["sources"]
    assert len(body["session_id"]) == 32


def test_the_same_session_id_continues_the_conversation(client: httpx.Client) -> None:
    first = client.post("/v1/ask", json={"question": "How much GPU memory to LoRA fine-tune Llama-3.1-8B?"}).json()
    follow = client.post("/v1/ask", json={"question": "what about QLoRA?", "session_id": first["session_id"]}).json()
    assert follow["session_id"] == first["session_id"]
    estimate = next(c for c in follow["tool_calls"] if c["name"] == "estimate_gpu_memory")
    assert estimate["args"]["model"] == "Llama-3.1-8B-Instruct" and estimate["args"]["task"] == "qlora"
    fresh = client.post("/v1/ask", json={"question": "what about QLoRA?"}).json()
    assert fresh["kind"] == "clarification"  # without the session there is no model to reuse


def test_stream_sends_tool_events_tokens_then_the_answer(client: httpx.Client) -> None:
    response = client.post("/v1/ask/stream", json={"question": "gn7i 是什么 GPU?"})
    assert response.headers["content-type"].startswith("text/event-stream")
    events = _events(response.text)
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "tool_start" and kinds[-1] == "answer" and "token" in kinds
    answer = events[-1][1]
    assert "".join(data["text"] for kind, data in events if kind == "token") == answer["text"]
    assert "A10" in answer["text"] and answer["citations"] and answer["session_id"]


@pytest.mark.parametrize(
    ("body", "status", "error_type", "message"),
    [
        (b"{not json", 400, "invalid_json", "not valid JSON"),
        (b'{"question": ""}', 422, "invalid_request", "question: String should have at least 1 character"),
        (json.dumps({"question": "x" * 4001}).encode(), 422, "invalid_request", "at most 4000 characters"),
        (b'{"question": "ok", "extra": 1}', 422, "invalid_request", "extra: Extra inputs are not permitted"),
        (json.dumps({"question": "x" * 40_000}).encode(), 413, "request_too_large", "larger than 32 KiB"),
    ],
)
def test_bad_requests_get_a_clear_json_error(
    client: httpx.Client, body: bytes, status: int, error_type: str, message: str
) -> None:
    response = client.post("/v1/ask", content=body, headers={"content-type": "application/json"})
    assert response.status_code == status
    error = response.json()["error"]
    assert error["type"] == error_type and message in error["message"] and error["code"] == status
    assert "Traceback" not in response.text


def test_oversize_chunked_body_is_refused_too(client: httpx.Client) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"question": "'
        for _ in range(40):
            yield b"x" * 1024
        yield b'"}'

    response = client.post("/v1/ask", content=chunks(), headers={"content-type": "application/json"})
    assert response.status_code == 413


def test_unknown_route_is_a_json_404(client: httpx.Client) -> None:
    response = client.post("/v1/nothing", json={})
    assert response.status_code == 404 and response.json()["error"]["type"] == "not_found"


def test_openai_client_non_stream(base_url: str) -> None:
    ai = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
    assert [m.id for m in ai.models.list()] == ["gpu-advisor"]
    completion = ai.chat.completions.create(
        model="gpu-advisor",
        messages=[
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "How much GPU memory to LoRA fine-tune Llama-3.1-8B?"},
            {"role": "assistant", "content": "About 21 GiB."},
            {"role": "user", "content": "what about QLoRA?"},
        ],
    )
    content = completion.choices[0].message.content or ""
    assert completion.choices[0].finish_reason == "stop"
    assert "qlora" in content.lower() and "**Sources:**" in content
    extension = completion.model_extra["gpu_advisor"]  # type: ignore[index]
    assert extension["engine"] == "offline" and extension["citations"]


def test_openai_client_stream(base_url: str) -> None:
    ai = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
    stream = ai.chat.completions.create(
        model="gpu-advisor", messages=[{"role": "user", "content": "H800 vs A100 for training?"}], stream=True
    )
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "stop"
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert "H800" in text and "A100" in text and "**Sources:**" in text


def test_openai_client_sees_input_errors_as_422(base_url: str) -> None:
    ai = openai.OpenAI(base_url=f"{base_url}/v1", api_key="unused", max_retries=0)
    with pytest.raises(openai.UnprocessableEntityError, match="last message must be a user message"):
        ai.chat.completions.create(model="gpu-advisor", messages=[{"role": "assistant", "content": "hi"}])


def test_embed_origin_gets_cors_and_every_page_says_who_may_frame_it(client: httpx.Client) -> None:
    preflight = client.options(
        "/v1/ask",
        headers={
            "Origin": DOCS_ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == DOCS_ORIGIN
    stranger = client.options(
        "/v1/ask", headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}
    )
    assert "access-control-allow-origin" not in stranger.headers
    page = client.get("/?embed=1")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert page.headers["content-security-policy"] == f"frame-ancestors 'self' {DOCS_ORIGIN}"


def test_widget_assets_are_served_from_the_package(client: httpx.Client) -> None:
    script = client.get("/widget.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    assert "data-gpu-advisor-url" in script.text and "/?embed=1" in script.text
    assert "http" not in script.text.split("*/", 1)[1].replace("location.href", "")  # no CDN, no fixed host
    assert client.get("/widget.css").headers["content-type"].startswith("text/css")


def test_openapi_docs_list_the_routes(client: httpx.Client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/healthz", "/v1/ask", "/v1/ask/stream", "/v1/models", "/v1/chat/completions"} <= set(paths)
    assert client.get("/docs").status_code == 200


def test_rate_limit_answers_429_with_retry_after(tmp_path: Path) -> None:
    app = web_app(tmp_path, GPU_ADVISOR_RATE_LIMIT_PER_MIN=2, GPU_ADVISOR_API_KEYS="sk-configured")
    question = {"question": "gn7i 是什么 GPU?"}
    with running(app) as url, httpx.Client(base_url=url, timeout=60) as client:
        codes = [client.post("/v1/ask", json=question).status_code for _ in range(3)]
        refused = client.post("/v1/ask", json=question)
        made_up = client.post("/v1/ask", json=question, headers={"Authorization": "Bearer made-up"})
        configured = client.post("/v1/ask", json=question, headers={"Authorization": "Bearer sk-configured"})
        health = client.get("/healthz")
    assert codes == [200, 200, 429]
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert refused.json()["error"]["type"] == "rate_limited"
    assert made_up.status_code == 429  # a key nobody configured counts as its IP: rotating keys gains nothing
    assert configured.status_code == 200  # a configured key has its own budget
    assert health.status_code == 200  # health checks are never limited


def test_slack_events_share_the_port_when_configured(
    tmp_path: Path, base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fakes.fake_slack import SIGNING_SECRET, event_callback, fake_slack, mention, signed_headers
    from slack_sdk import WebClient

    body = json.dumps(event_callback(mention("gn7i 是什么 GPU?")))
    unconfigured = httpx.post(f"{base_url}/slack/events", content=body, headers=signed_headers(body))
    assert unconfigured.status_code != 200  # no Slack tokens there: no Slack route
    with fake_slack() as slack:
        # The real WebClient, pointed at the loopback fake of the Slack Web API.
        monkeypatch.setattr("ui.slack_bot.WebClient", functools.partial(WebClient, base_url=slack.api_url))
        app = web_app(tmp_path, SLACK_BOT_TOKEN="xoxb-test", SLACK_SIGNING_SECRET=SIGNING_SECRET)
        with running(app) as url:
            forged = httpx.post(f"{url}/slack/events", content=body, headers=signed_headers(body, secret="wrong"))
            accepted = httpx.post(f"{url}/slack/events", content=body, headers=signed_headers(body))
            [placeholder] = slack.wait_for("chat.postMessage")
            [answer] = slack.wait_for("chat.update")
    assert forged.status_code == 401 and accepted.status_code == 200
    assert placeholder.params["thread_ts"] == "1700000000.000100"  # answered in the thread
    assert "A10" in json.dumps(answer.params, ensure_ascii=False)
