"""A local fake of the Slack Web API, plus request signing as Slack does it.

``fake_slack()`` serves ``/api/<method>`` on 127.0.0.1 (a random port) for the real ``WebClient``
(``WebClient(token=..., base_url=fake.api_url)``) and records every call: method, parameters (from the
query string, a form or a JSON body; ``blocks`` decoded), and the bearer token. It implements what the
bot and Bolt call: ``auth.test``, ``chat.postMessage``, ``chat.update``, ``conversations.replies`` and
``apps.connections.open`` (returning ``ws_url`` for Socket Mode tests). ``errors`` scripts an error reply
per method; message blocks are checked against Slack's limits (``invalid_blocks`` as Slack answers), and
``rejects_blocks`` refuses any blocks, as a workspace would refuse a block type it does not know.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .loopback import JsonHandler, serve

BOT_USER_ID = "UBOT0001"
BOT_ID = "BBOT0001"
TEAM_ID = "T0000001"
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


@dataclass
class SlackCall:
    """One Web API call as the fake received it."""

    method: str
    params: dict[str, Any]
    token: str | None


@dataclass
class FakeSlack:
    """State of the fake: recorded calls, scripted threads and errors."""

    url: str = ""
    calls: list[SlackCall] = field(default_factory=list)
    threads: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    rejects_blocks: bool = False
    ws_url: str | None = None
    _changed: threading.Condition = field(default_factory=threading.Condition)
    _ts: int = 0

    @property
    def api_url(self) -> str:
        """Base URL for ``WebClient(base_url=...)``."""
        return self.url + "/api/"

    def calls_to(self, method: str) -> list[SlackCall]:
        """Recorded calls of one method, in order."""
        with self._changed:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, method: str, count: int = 1, timeout: float = 20.0) -> list[SlackCall]:
        """Block until ``method`` was called ``count`` times; return those calls (AssertionError on timeout)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(found := [c for c in self.calls if c.method == method]) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    names = [c.method for c in self.calls]
                    raise AssertionError(f"{method} called {len(found)} times, wanted {count}; calls: {names}")
                self._changed.wait(left)
            return found

    def _record(self, call: SlackCall) -> None:
        with self._changed:
            self.calls.append(call)
            self._changed.notify_all()

    def _next_ts(self) -> str:
        with self._changed:
            self._ts += 1
            return f"{1_800_000_000 + self._ts}.{self._ts:06d}"

    def _answer(self, call: SlackCall) -> dict[str, Any]:
        if error := self.errors.get(call.method):
            return {"ok": False, "error": error}
        handler = _METHODS.get(call.method)
        if handler is None:
            return {"ok": False, "error": "unknown_method"}
        return handler(self, call.params)


def _auth_test(fake: FakeSlack, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "ok": True,
        "url": "https://fake.slack.test/",
        "team": "Fake team",
        "user": "gpu-advisor",
        "team_id": TEAM_ID,
        "user_id": BOT_USER_ID,
        "bot_id": BOT_ID,
        "is_enterprise_install": False,
    }


def _post_message(fake: FakeSlack, params: dict[str, Any]) -> dict[str, Any]:
    if problem := _block_problem(fake, params):
        return {"ok": False, "error": problem}
    ts = fake._next_ts()
    message = {"type": "message", "user": BOT_USER_ID, "bot_id": BOT_ID, "text": params.get("text", ""), "ts": ts}
    return {"ok": True, "channel": params.get("channel"), "ts": ts, "message": message}


def _update(fake: FakeSlack, params: dict[str, Any]) -> dict[str, Any]:
    if problem := _block_problem(fake, params):
        return {"ok": False, "error": problem}
    return {"ok": True, "channel": params.get("channel"), "ts": params.get("ts"), "text": params.get("text", "")}


def _replies(fake: FakeSlack, params: dict[str, Any]) -> dict[str, Any]:
    messages = fake.threads.get((str(params.get("channel")), str(params.get("ts"))))
    if messages is None:
        return {"ok": False, "error": "thread_not_found"}
    return {"ok": True, "messages": messages, "has_more": False}


def _connections_open(fake: FakeSlack, params: dict[str, Any]) -> dict[str, Any]:
    if fake.ws_url is None:
        return {"ok": False, "error": "not_allowed_token_type"}
    return {"ok": True, "url": fake.ws_url}


_METHODS: dict[str, Callable[[FakeSlack, dict[str, Any]], dict[str, Any]]] = {
    "auth.test": _auth_test,
    "chat.postMessage": _post_message,
    "chat.update": _update,
    "conversations.replies": _replies,
    "apps.connections.open": _connections_open,
}


def _block_problem(fake: FakeSlack, params: dict[str, Any]) -> str | None:
    """Slack's own limits on message blocks (https://docs.slack.dev/reference/block-kit/blocks)."""
    blocks = params.get("blocks") or []
    if blocks and fake.rejects_blocks:
        return "invalid_blocks"
    if not isinstance(blocks, list) or len(blocks) > 50:
        return "invalid_blocks"
    for block in blocks:
        texts = [block.get("text", {}).get("text", "")] + [e.get("text", "") for e in block.get("elements", [])]
        fields = block.get("fields", [])
        if any(len(t) > 3000 for t in texts) or len(fields) > 10 or any(len(f["text"]) > 2000 for f in fields):
            return "invalid_blocks"
    return None


@contextmanager
def fake_slack() -> Iterator[FakeSlack]:
    """Run the fake Web API on a loopback port for the duration of the block."""
    state = FakeSlack()

    class Handler(JsonHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self._handle()

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            self._handle()

        def _handle(self) -> None:
            parts = urlsplit(self.path)
            params: dict[str, Any] = dict(parse_qsl(parts.query))
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if raw:
                if "json" in (self.headers.get("Content-Type") or ""):
                    params |= json.loads(raw)
                else:
                    params |= dict(parse_qsl(raw.decode()))
            if isinstance(params.get("blocks"), str):
                params["blocks"] = json.loads(params["blocks"])
            auth = self.headers.get("Authorization") or ""
            call = SlackCall(parts.path.removeprefix("/api/"), params, auth.removeprefix("Bearer ") or None)
            state._record(call)
            self.send_json(200, state._answer(call))

    with serve(Handler) as url:
        state.url = url
        yield state


def signed_headers(
    body: str, *, secret: str = SIGNING_SECRET, timestamp: int | None = None, retry_num: int | None = None
) -> dict[str, str]:
    """Headers Slack sends with an Events API request: ``v0=HMAC-SHA256(secret, "v0:<ts>:<body>")``."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    digest = hmac.new(secret.encode(), f"v0:{ts}:{body}".encode(), hashlib.sha256).hexdigest()
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": f"v0={digest}",
    }
    if retry_num is not None:
        headers |= {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"}
    return headers


def event_callback(event: dict[str, Any], *, event_id: str = "Ev0001") -> dict[str, Any]:
    """Wrap an event in the ``event_callback`` envelope of the Events API."""
    return {
        "token": "legacy-verification-token",
        "team_id": TEAM_ID,
        "api_app_id": "A0000001",
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "authorizations": [{"team_id": TEAM_ID, "user_id": BOT_USER_ID, "is_bot": True}],
    }


def mention(text: str, *, ts: str = "1700000000.000100", channel: str = "C0000001", **extra: Any) -> dict[str, Any]:
    """An ``app_mention`` event: ``text`` is prefixed with the bot's mention."""
    return {
        "type": "app_mention",
        "user": "U0000USER",
        "text": f"<@{BOT_USER_ID}> {text}",
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
    } | extra


def direct_message(
    text: str, *, ts: str = "1700000000.000200", channel: str = "D0000001", **extra: Any
) -> dict[str, Any]:
    """A ``message`` event in a DM with the bot (``channel_type`` ``im``)."""
    return {
        "type": "message",
        "channel_type": "im",
        "user": "U0000USER",
        "text": text,
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
    } | extra
