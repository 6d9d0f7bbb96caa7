"""Shared set-up for the LLM tests: settings pointing at the fake server, a fast knowledge base."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assistant.settings import Settings
from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig

FIXTURE_DOCS = Path(__file__).parent / "fixtures" / "docs"
API_KEY = "sk-test-0123456789abcdef0123"


def hashing_kb(data_dir: Path) -> KnowledgeBase:
    """A knowledge base over the fixture documents with the deterministic hashing embedder (fast)."""
    return KnowledgeBase(KnowledgeConfig(data_dir=data_dir, docs_dir=FIXTURE_DOCS, embedding="hashing"))


def llm_settings(
    url: str, *, provider: str = "openai", data_dir: Path | None = None, **extra: Any
) -> Settings:
    """Settings for the LLM engine against the fake server at ``url``; no retries, short timeout.

    Args:
        url: Base URL of the fake server (ends in ``/v1``).
        provider: ``openai`` (OPENAI_BASE_URL) or ``dashscope`` (DASHSCOPE_BASE_URL + key).
        data_dir: Knowledge data directory, when the assistant builds its own knowledge base.
        extra: More settings by environment-variable name, e.g. ``GPU_ADVISOR_LLM_MAX_CALLS=3``.
    """
    values: dict[str, Any] = {
        "GPU_ADVISOR_LLM_MODEL": f"{provider}:fake-model",
        "GPU_ADVISOR_LLM_MAX_RETRIES": 0,
        "GPU_ADVISOR_LLM_TIMEOUT_S": 5,
    }
    if provider == "dashscope":
        values |= {"DASHSCOPE_API_KEY": API_KEY, "DASHSCOPE_BASE_URL": url}
    else:
        values |= {"OPENAI_BASE_URL": url, "OPENAI_API_KEY": API_KEY}
    if data_dir is not None:
        values["GPU_ADVISOR_DATA_DIR"] = data_dir
    return Settings(_env_file=None, **(values | extra))  # type: ignore[call-arg]
