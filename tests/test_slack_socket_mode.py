"""Socket Mode offline: a loopback websocket plays Slack's socket server, the fake Web API the rest."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.fake_slack import FakeSlack, event_callback, fake_slack, mention
from llm_helpers import hashing_kb
from slack_sdk import WebClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.server import ServerConnection, serve

from assistant.assistant import Assistant, build_assistant
from assistant.settings import Settings
from ui.slack_bot import build_socket_mode_handler


def envelope(envelope_id: str, body: dict[str, Any], retry_attempt: int = 0) -> str:
    return json.dumps(
        {
            "envelope_id": envelope_id,
            "type": "events_api",
            "accepts_response_payload": False,
            "retry_attempt": retry_attempt,
            "retry_reason": "timeout" if retry_attempt else "",
            "payload": body,
        }
    )


class SocketServer:
    """Sends ``hello`` and the scripted envelopes to each connection; collects what the client sends."""

    def __init__(self, envelopes: list[str]) -> None:
        self.envelopes = envelopes
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        self.paths: list[str] = []

    def handle(self, conn: ServerConnection) -> None:
        self.paths.append(conn.request.path if conn.request else "")
        conn.send(json.dumps({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A0000001"}}))
        for message in self.envelopes:
            conn.send(message)
        try:
            for raw in conn:
                self.received.put(json.loads(raw))
        except ConnectionClosed:  # the client went away without a close frame: the test is over
            pass


@pytest.fixture(scope="module")
def assistant(tmp_path_factory: pytest.TempPathFactory) -> Assistant:
    data_dir = tmp_path_factory.mktemp("kb")
    settings = Settings(_env_file=None, GPU_ADVISOR_ENGINE="offline", GPU_ADVISOR_DATA_DIR=data_dir)  # type: ignore[call-arg]
    built = build_assistant(settings, knowledge_base=hashing_kb(data_dir))
    built.answer("Qwen2.5-7B inference")  # build the index once, outside the test
    return built


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with fake_slack() as fake:
        yield fake


def run_socket_mode(slack: FakeSlack, assistant: Assistant, server: SocketServer, tmp_path: Path) -> Any:
    ws = serve(server.handle, "127.0.0.1", 0)
    threading.Thread(target=ws.serve_forever, daemon=True).start()
    slack.ws_url = f"ws://127.0.0.1:{ws.socket.getsockname()[1]}/link/?ticket=t1"
    settings = Settings(_env_file=None, SLACK_APP_TOKEN="xapp-test", GPU_ADVISOR_DATA_DIR=tmp_path)  # type: ignore[call-arg]
    handler = build_socket_mode_handler(
        settings, assistant, client=WebClient(token="xoxb-test", base_url=slack.api_url)
    )
    handler.connect()
    return handler, ws


def test_socket_mode_acks_the_envelope_and_answers_in_the_thread(
    slack: FakeSlack, assistant: Assistant, tmp_path: Path
) -> None:
    body = event_callback(mention("Qwen2.5-7B inference, which instance?", ts="1700000030.000100"), event_id="EvWs1")
    server = SocketServer([envelope("env-1", body), envelope("env-2", body, retry_attempt=1)])
    handler, ws = run_socket_mode(slack, assistant, server, tmp_path)
    try:
        acks = [server.received.get(timeout=20), server.received.get(timeout=20)]
        [update] = slack.wait_for("chat.update")
    finally:
        ws.shutdown()  # first, so the client's blocking read ends now rather than at its 3 s timeout
        handler.close()

    assert sorted(a["envelope_id"] for a in acks) == ["env-1", "env-2"]  # both acked over the socket
    [opened] = slack.calls_to("apps.connections.open")
    assert opened.token == "xapp-test"  # the app-level token asks for the socket URL
    assert server.paths == ["/link/?ticket=t1"]
    posts = slack.calls_to("chat.postMessage")
    assert len(posts) == 1, "the retried envelope carries the same event_id and gets no second answer"
    assert posts[0].params["thread_ts"] == "1700000030.000100"
    assert any(b.get("fields") for b in update.params["blocks"])
