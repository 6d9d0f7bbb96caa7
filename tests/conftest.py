"""Suite-wide guards: no test may reach a real LLM provider or read the developer's settings."""

from __future__ import annotations

import os
from collections.abc import Iterator

import httpx
import pytest

# Every variable Settings reads starts with one of these; clearing by prefix keeps new ones covered.
_SETTINGS_PREFIXES = ("GPU_ADVISOR_", "DASHSCOPE_", "OPENAI_", "CHROMA_", "SLACK_")


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    for var in list(os.environ):
        if var.startswith(_SETTINGS_PREFIXES):
            monkeypatch.delenv(var)
    # A .env in the working directory must not leak into tests either.
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


# The faces of the offline engine: each test module that asks through them gets its own data dir and server.
@pytest.fixture(scope="module")
def cli_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Environment for ``gpu-advisor ask`` subprocesses: a fresh data dir per test module."""
    return {**os.environ, "GPU_ADVISOR_DATA_DIR": str(tmp_path_factory.mktemp("cli-data"))}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """An HTTP client on a real uvicorn server of the web app (loopback), one per test module."""
    from web_helpers import running, web_app  # fastapi and uvicorn: only for the modules that use it

    app = web_app(tmp_path_factory.mktemp("api"), GPU_ADVISOR_RATE_LIMIT_PER_MIN=10_000)
    with running(app) as url, httpx.Client(base_url=url, timeout=120) as c:
        yield c
