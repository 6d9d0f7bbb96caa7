"""Fakes for the knowledge tests: a loopback OpenAI-compatible embeddings server and fixture paths."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fakes.loopback import JsonHandler, serve

FIXTURE_DOCS = Path(__file__).parent / "fixtures" / "docs"

_WORDS = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")


def fake_vector(text: str, dim: int) -> list[float]:
    """Deterministic bag-of-words vector: texts sharing words point the same way."""
    vec = [0.0] * dim
    for word in _WORDS.findall(text.lower()):
        h = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "little")
        vec[h % dim] += 1.0
    return vec


@dataclass
class FakeEmbeddingServer:
    """Records every request; ``fail_with`` makes the next responses an HTTP error."""

    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    fail_with: int | None = None


@contextmanager
def fake_embedding_server() -> Iterator[FakeEmbeddingServer]:
    """Serve ``POST /v1/embeddings`` on 127.0.0.1 (a random port) like an OpenAI-compatible endpoint."""
    state = FakeEmbeddingServer()

    class Handler(JsonHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append({"path": self.path, "authorization": self.headers.get("Authorization"), "body": body})
            if state.fail_with is not None:
                self._reply(state.fail_with, {"error": {"message": "scripted failure", "type": "invalid_request"}})
                return
            if self.path != "/v1/embeddings":
                self._reply(404, {"error": {"message": "not found"}})
                return
            inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
            dim = body.get("dimensions", 64)
            # Answer out of order: clients must sort by "index".
            data = [
                {"object": "embedding", "index": i, "embedding": fake_vector(text, dim)}
                for i, text in reversed(list(enumerate(inputs)))
            ]
            self._reply(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": body["model"],
                    "usage": {"prompt_tokens": 1, "total_tokens": 1},
                },
            )

        def _reply(self, status: int, payload: dict[str, Any]) -> None:
            self.send_json(status, payload)

    with serve(Handler) as url:
        state.url = url + "/v1"
        yield state
