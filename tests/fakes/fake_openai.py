"""A loopback OpenAI-compatible chat server with scripted turns, for driving the real client offline.

Serves ``POST /v1/chat/completions`` (JSON or SSE streaming) and ``GET /v1/models`` on 127.0.0.1 with a
random port. Each chat request takes the next scripted reply:

* ``text("...")``: an assistant message (streamed in small content deltas);
* ``tool_call(name, args)`` / ``tool_calls(...)``: tool calls, arguments streamed in 7-character fragments;
* ``status(500)`` / ``status(429)``: an HTTP error in the OpenAI error format;
* ``delay(seconds, reply)``: wait before answering (beyond the client timeout to script a timeout);
* ``malformed_tool_call(name)``: a tool call whose arguments are not JSON;
* a callable ``reply(body) -> reply``: computed from the request (e.g. quote the last tool result);
* ``replay(exchange)``: a recorded real exchange (``recording(...)``) sent back as the server sent it,
  SSE event by event (optionally slowed down: a late first byte, a delay between events), or its
  HTTP error status and body.

Every request is recorded (path, headers, parsed JSON body) for assertions. When the script runs out
the server answers HTTP 500 "script exhausted", which a test sees as an unexpected fallback.

Recordings live in ``tests/fixtures/recordings/``: ``llama-server/`` holds real llama.cpp traffic
(see its README), ``derived.jsonl`` holds exchanges derived from those chunk shapes and from DashScope's
documented error bodies (regenerate with ``python tests/fixtures/recordings/derive.py``).

Usage::

    with FakeOpenAI([tool_call("gpu_specs", {"name": "A10"}), text("The A10 has 24 GB.")]) as server:
        settings = Settings(OPENAI_BASE_URL=server.url, ...)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from .loopback import JsonHandler, serve

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]

_FRAGMENT_CHARS = 7
_TEXT_CHUNK_CHARS = 6
RECORDINGS = Path(__file__).parents[1] / "fixtures" / "recordings"


def text(content: str) -> dict[str, Any]:
    """An assistant message with this content."""
    return {"kind": "text", "content": content}


def tool_call(name: str, args: dict[str, Any] | str, call_id: str | None = None) -> dict[str, Any]:
    """One tool call; ``args`` as a dict (sent as JSON) or a raw string (sent as is)."""
    return tool_calls((name, args, call_id))


def tool_calls(*calls: tuple[str, dict[str, Any] | str, str | None]) -> dict[str, Any]:
    """Several tool calls in one assistant turn: ``(name, args, call_id or None)`` each."""
    rendered = []
    for i, (name, args, call_id) in enumerate(calls):
        arguments = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        rendered.append(
            {"id": call_id or f"call_{name}_{i}_{time.monotonic_ns() % 10**8}", "name": name, "arguments": arguments}
        )
    return {"kind": "tool_calls", "calls": rendered}


def malformed_tool_call(name: str) -> dict[str, Any]:
    """A tool call whose arguments are broken JSON, as weaker models sometimes produce."""
    return tool_call(name, '{"model": "Qwen2.5-72B-Instruct", "task": ')


def status(code: int, message: str = "scripted failure", retry_after_ms: int | None = 10) -> dict[str, Any]:
    """An HTTP error reply in the OpenAI error format; ``retry-after-ms`` keeps client retries fast."""
    return {"kind": "status", "code": code, "message": message, "retry_after_ms": retry_after_ms}


def delay(seconds: float, then: Reply | None = None) -> dict[str, Any]:
    """Wait ``seconds`` before sending ``then`` (default: a short text)."""
    return {"kind": "delay", "seconds": seconds, "then": then or text("late")}


def recording(name: str, index: int | str = 0) -> dict[str, Any]:
    """Exchange ``index`` of ``tests/fixtures/recordings/<name>.jsonl`` (``"llama-server/plain"``, ``"derived"``).

    For ``derived`` the index may also be the exchange's ``id``.
    """
    lines = (RECORDINGS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    exchanges = [json.loads(line) for line in lines if line.strip()]
    if isinstance(index, str):
        return next(e for e in exchanges if e.get("id") == index)
    return exchanges[index]


def replay(exchange: dict[str, Any], *, first_byte_s: float = 0.0, event_gap_s: float = 0.0) -> dict[str, Any]:
    """Send a recorded exchange back as recorded: its status, and its body event by event.

    Args:
        exchange: One line of a recording (``status``, ``response``).
        first_byte_s: Seconds before the response starts (a slow prompt read on a CPU server).
        event_gap_s: Seconds between two SSE events (a slow generator).
    """
    return {
        "kind": "replay",
        "status": exchange["status"],
        "body": exchange["response"],
        "first_byte_s": first_byte_s,
        "event_gap_s": event_gap_s,
    }


def sse_events(body: str) -> list[str]:
    """The events of a recorded SSE body, each without its blank-line terminator (comments kept)."""
    return [event for event in body.split("\n\n") if event.strip()]


def streamed_text(body: str) -> str:
    """The assistant content a recorded SSE body streams, joined."""
    parts = []
    for event in sse_events(body):
        for line in event.splitlines():
            if line.startswith("data: ") and line != "data: [DONE]":
                for choice in json.loads(line[6:]).get("choices", []):
                    parts.append(choice.get("delta", {}).get("content") or "")
    return "".join(parts)


@dataclass
class Recorded:
    """One request as the server saw it; header names are lower-cased."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class FakeOpenAI:
    """The scripted server; use as a context manager."""

    script: list[Reply] = field(default_factory=list)
    model: str = "fake-model"
    url: str = ""
    requests: list[Recorded] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _serving: AbstractContextManager[str] | None = None

    def push(self, *replies: Reply) -> None:
        """Append replies to the script."""
        with self._lock:
            self.script.extend(replies)

    @property
    def chat_requests(self) -> list[Recorded]:
        """The chat-completion requests, in order."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def __enter__(self) -> FakeOpenAI:
        self._serving = serve(_handler_for(self))
        self.url = self._serving.__enter__() + "/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._serving is not None
        self._serving.__exit__(None, None, None)

    def _next(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            reply = self.script.pop(0) if self.script else status(500, "fake server: script exhausted", None)
        return reply(body) if callable(reply) else reply


@contextmanager
def fake_openai(*script: Reply) -> Iterator[FakeOpenAI]:
    """Start a :class:`FakeOpenAI` with ``script`` for the duration of a ``with`` block."""
    with FakeOpenAI(list(script)) as server:
        yield server


def _handler_for(state: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(JsonHandler):
        protocol_version = "HTTP/1.1"
        # SSE events are small writes; with Nagle's algorithm each could wait for a delayed ACK (40 ms).
        disable_nagle_algorithm = True

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            state.requests.append(Recorded(self.path, _headers(self), {}))
            if self.path.rstrip("/").endswith("/models"):
                self._json(200, {"object": "list", "data": [{"id": state.model, "object": "model"}]})
            else:
                self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = json.loads(raw or b"{}")
            state.requests.append(Recorded(self.path, _headers(self), body))
            if not self.path.endswith("/chat/completions"):
                self._json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            self._answer(state._next(body), body)

        def _answer(self, reply: dict[str, Any], body: dict[str, Any]) -> None:
            match reply["kind"]:
                case "replay":
                    self._replay(reply)
                case "delay":
                    time.sleep(reply["seconds"])
                    then = reply["then"]
                    self._answer(then(body) if callable(then) else then, body)
                case "status":
                    headers = {}
                    if reply["retry_after_ms"] is not None:
                        headers["retry-after-ms"] = str(reply["retry_after_ms"])
                    self._json(
                        reply["code"],
                        {"error": {"message": reply["message"], "type": "scripted", "code": reply["code"]}},
                        headers,
                    )
                case "text" | "tool_calls":
                    if body.get("stream"):
                        self._stream(reply, body)
                    else:
                        self._json(200, _completion(reply, body.get("model", state.model)))

        def _stream(self, reply: dict[str, Any], body: dict[str, Any]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            model = body.get("model", state.model)
            try:
                for delta, finish in _deltas(reply):
                    self._event(_chunk(model, delta, finish))
                if (body.get("stream_options") or {}).get("include_usage"):
                    usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
                    self._event({**_chunk(model, None, None), "choices": [], "usage": usage})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                pass
            self.close_connection = True

        def _replay(self, reply: dict[str, Any]) -> None:
            time.sleep(reply["first_byte_s"])
            if reply["status"] != 200:
                raw = reply["body"].encode()
                self.send_response(reply["status"])
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                for event in sse_events(reply["body"]):
                    self.wfile.write(event.encode() + b"\n\n")
                    self.wfile.flush()
                    time.sleep(reply["event_gap_s"])
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (budget, timeout)
                pass
            self.close_connection = True

        def _event(self, payload: dict[str, Any]) -> None:
            self.wfile.write(b"data: " + json.dumps(payload, ensure_ascii=False).encode() + b"\n\n")
            self.wfile.flush()

        def _json(self, code: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self.send_json(code, payload, headers)

    return Handler


def _headers(handler: BaseHTTPRequestHandler) -> dict[str, str]:
    return {key.lower(): value for key, value in handler.headers.items()}


def _deltas(reply: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str | None]]:
    yield {"role": "assistant", "content": ""}, None
    if reply["kind"] == "text":
        content = reply["content"]
        for i in range(0, len(content), _TEXT_CHUNK_CHARS):
            yield {"content": content[i : i + _TEXT_CHUNK_CHARS]}, None
        yield {}, "stop"
        return
    for index, call in enumerate(reply["calls"]):
        head = {"index": index, "id": call["id"], "type": "function"}
        yield {"tool_calls": [{**head, "function": {"name": call["name"], "arguments": ""}}]}, None
        args = call["arguments"]
        for i in range(0, len(args), _FRAGMENT_CHARS):
            fragment = {"arguments": args[i : i + _FRAGMENT_CHARS]}
            yield {"tool_calls": [{"index": index, "function": fragment}]}, None
    yield {}, "tool_calls"


def _chunk(model: str, delta: dict[str, Any] | None, finish: str | None) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    meta = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model}
    return {**meta, "choices": choices}


def _completion(reply: dict[str, Any], model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if reply["kind"] == "text":
        message["content"] = reply["content"]
        finish = "stop"
    else:
        message["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in reply["calls"]
        ]
        finish = "tool_calls"
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


def last_tool_result(body: dict[str, Any]) -> Any:
    """The content of the last ``role: tool`` message in a request, parsed as JSON when it is JSON."""
    for message in reversed(body.get("messages", [])):
        if message.get("role") == "tool":
            content = message.get("content")
            if isinstance(content, list):
                content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
            try:
                return json.loads(content)
            except (TypeError, ValueError):
                return content
    raise AssertionError("the request carries no tool result")
