"""Suite-wide guards: no test may reach a real LLM provider or read the developer's settings."""

from __future__ import annotations

import pytest

_PROVIDER_VARS = (
    "DASHSCOPE_API_KEY",
    "DASHSCOPE_REGION",
    "DASHSCOPE_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GPU_ADVISOR_ENGINE",
    "GPU_ADVISOR_LLM_MODEL",
    "GPU_ADVISOR_LLM_MAX_RETRIES",
    "GPU_ADVISOR_LLM_MAX_CALLS",
    "GPU_ADVISOR_LLM_TIMEOUT_S",
    "GPU_ADVISOR_DATA_DIR",
    "GPU_ADVISOR_EMBEDDING",
    "GPU_ADVISOR_EMBEDDING_MODEL",
    "CHROMA_HOST",
    "CHROMA_PORT",
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
)


@pytest.fixture(autouse=True)
def _no_provider_keys(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    for var in _PROVIDER_VARS:
        monkeypatch.delenv(var, raising=False)
    # A .env in the working directory must not leak into tests either.
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))
