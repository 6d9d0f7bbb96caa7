"""Shared set-up for the web and API tests: the real app on a loopback port, offline engine, temp data.

The assistant is the real one (offline engine) over the shipped guidance indexed with the hashing
embedder (:func:`engine_helpers.shared_kb`, built once per process). Each app gets its own data
directory, so feedback and session databases never leak between tests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from engine_helpers import shared_kb
from fastapi import FastAPI

from assistant.assistant import build_assistant
from assistant.settings import Settings


def web_settings(data_dir: Path, **env: Any) -> Settings:
    """Settings as the environment would give them: ``env`` keys are variable names."""
    return Settings(GPU_ADVISOR_DATA_DIR=str(data_dir), GPU_ADVISOR_ENGINE="offline", **env)


def web_app(data_dir: Path, **env: Any) -> FastAPI:
    """The whole web face (chat page, widget, API) over the real offline engine."""
    from ui.server import create_app

    settings = web_settings(data_dir, **env)
    kb = shared_kb()
    return create_app(settings, assistant=build_assistant(settings, knowledge_base=kb), knowledge_base=kb)


@contextmanager
def running(app: FastAPI, timeout_s: float = 30.0) -> Iterator[str]:
    """Serve ``app`` with uvicorn on 127.0.0.1 (a free port) in a thread; yield its base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
