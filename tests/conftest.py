"""Suite-wide guards: no test may reach a real LLM provider or read the developer's settings."""

from __future__ import annotations

import os

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
