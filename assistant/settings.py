"""The one place that reads the environment: every knob of gpu-advisor, typed.

Built once at an entry point (CLI, server, bot) and passed down; nothing else reads ``os.environ``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from knowledge.config import KnowledgeConfig

DASHSCOPE_BASE_URLS: dict[str, str] = {
    "cn-beijing": "https://dashscope.aliyuncs.com/compatible-mode/v1",
    "intl": "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    "us": "https://dashscope-us.aliyuncs.com/compatible-mode/v1",
}


_ORIGIN = re.compile(r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$")


def _default_data_dir() -> Path:
    from tools.user_dirs import user_data_dir

    return user_data_dir()


class Settings(BaseSettings):
    """gpu-advisor configuration from environment variables and ``.env``."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True)

    # LLM: vendor variable names are accepted as they are.
    dashscope_api_key: SecretStr | None = Field(default=None, validation_alias="DASHSCOPE_API_KEY")
    dashscope_region: Literal["cn-beijing", "intl", "us"] = Field(
        default="cn-beijing", validation_alias="DASHSCOPE_REGION"
    )
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    openai_api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    llm_model: str = Field(default="qwen-plus", validation_alias="GPU_ADVISOR_LLM_MODEL")
    # Seconds for one model request; None: 60, or 300 for the `local:` provider (CPU servers read the
    # ~2.5k-token tool schemas slowly on the first call).
    llm_timeout_s: float | None = Field(default=None, gt=0, validation_alias="GPU_ADVISOR_LLM_TIMEOUT_S")
    dashscope_base_url: str | None = Field(default=None, validation_alias="DASHSCOPE_BASE_URL")
    llm_max_retries: int = Field(default=1, ge=0, le=5, validation_alias="GPU_ADVISOR_LLM_MAX_RETRIES")
    llm_max_model_calls: int = Field(default=8, ge=2, le=50, validation_alias="GPU_ADVISOR_LLM_MAX_CALLS")
    # LLM against real model servers: bounded output and time, tool_choice, the local-server preset.
    # Sent as max_tokens on every call: without it a small model can generate until the server is killed.
    llm_max_tokens: int = Field(default=1024, ge=64, le=32768, validation_alias="GPU_ADVISOR_LLM_MAX_TOKENS")
    # Seconds for one whole answer (every model call, tool and rewrite); None: 3 x the per-call timeout.
    llm_answer_timeout_s: float | None = Field(default=None, gt=0, validation_alias="GPU_ADVISOR_LLM_ANSWER_TIMEOUT_S")
    # auto: send tool_choice "auto"; first-required: the first call of a question must call a tool (servers
    # that honour "required": OpenAI, vLLM, llama.cpp); omit: send no tool_choice (servers that reject it).
    llm_tool_choice: Literal["auto", "first-required", "omit"] = Field(
        default="auto", validation_alias="GPU_ADVISOR_LLM_TOOL_CHOICE"
    )
    # Tool descriptions cut to their first sentence (about half the prompt tokens); None: on for `local:`.
    llm_compact_tools: bool | None = Field(default=None, validation_alias="GPU_ADVISOR_LLM_COMPACT_TOOLS")
    # Base URL of the `local:` provider (llama.cpp's llama-server default; Ollama :11434/v1, vLLM :8000/v1).
    local_base_url: str = Field(default="http://127.0.0.1:8080/v1", validation_alias="GPU_ADVISOR_LOCAL_BASE_URL")
    engine: Literal["auto", "llm", "offline"] = Field(default="auto", validation_alias="GPU_ADVISOR_ENGINE")

    # Knowledge base.
    data_dir: Path = Field(default_factory=_default_data_dir, validation_alias="GPU_ADVISOR_DATA_DIR")
    chroma_host: str | None = Field(default=None, validation_alias="CHROMA_HOST")
    chroma_port: int = Field(default=8000, validation_alias="CHROMA_PORT")
    embedding: Literal["offline", "dashscope", "openai"] = Field(
        default="offline", validation_alias="GPU_ADVISOR_EMBEDDING"
    )
    embedding_model: str | None = Field(default=None, validation_alias="GPU_ADVISOR_EMBEDDING_MODEL")

    # Offline engine, intent fallback (issue 8, i8emb): where the intent rules are unsure, the bundled
    # embedder decides against labelled exemplars (only with GPU_ADVISOR_EMBEDDING=offline).
    intent_fallback: bool = Field(default=True, validation_alias="GPU_ADVISOR_INTENT_FALLBACK")

    # Slack.
    slack_bot_token: SecretStr | None = Field(default=None, validation_alias="SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = Field(default=None, validation_alias="SLACK_SIGNING_SECRET")
    slack_app_token: SecretStr | None = Field(default=None, validation_alias="SLACK_APP_TOKEN")

    # Web server: chat page, embeddable widget, HTTP API.
    embed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        validation_alias="GPU_ADVISOR_EMBED_ORIGINS",
        description="comma-separated origins allowed to embed the widget and call the API from a browser "
        "(CORS and CSP frame-ancestors), e.g. https://docs.example.com; * allows any",
    )
    # Requests per minute per client (API key, else IP) on the HTTP API (/v1/); 0 turns the limit off.
    rate_limit_per_min: int = Field(default=30, ge=0, validation_alias="GPU_ADVISOR_RATE_LIMIT_PER_MIN")
    # Chat answers computed at once across all users (Gradio's own default, 1, makes users wait in line).
    web_concurrency: int = Field(default=16, ge=1, le=256, validation_alias="GPU_ADVISOR_WEB_CONCURRENCY")

    # Prices (issue 9): live snapshots from `gpu-advisor prices refresh` live under data_dir/prices.
    prices_offline: bool = Field(
        default=False,
        validation_alias="GPU_ADVISOR_PRICES_OFFLINE",
        description="ignore live price snapshots and use only the shipped price list",
    )

    # Public-internet safety and replicas (issue 10): shared store, shared limits, bounded work per request.
    database_url: SecretStr | None = Field(
        default=None,
        validation_alias="GPU_ADVISOR_DATABASE_URL",
        description="sessions, answer records, feedback and Slack event ids; default: a SQLite file in the data "
        "dir; postgresql://user:pass@host/db for replicas",
    )
    redis_url: SecretStr | None = Field(
        default=None,
        validation_alias="GPU_ADVISOR_REDIS_URL",
        description="rate-limit counters shared by replicas, e.g. redis://host:6379/0; default: in memory",
    )
    api_keys: Annotated[list[SecretStr], NoDecode] = Field(
        default_factory=list,
        validation_alias="GPU_ADVISOR_API_KEYS",
        description="comma-separated API keys that get their own rate-limit bucket; other clients count per IP",
    )
    feedback_per_min: int = Field(default=20, ge=0, validation_alias="GPU_ADVISOR_FEEDBACK_PER_MIN")
    max_history_chars: int = Field(
        default=16_000, ge=1000, le=200_000, validation_alias="GPU_ADVISOR_MAX_HISTORY_CHARS"
    )
    max_turn_chars: int = Field(default=8_000, ge=500, le=100_000, validation_alias="GPU_ADVISOR_MAX_TURN_CHARS")
    answer_budget_s: float = Field(default=30.0, gt=0, le=600, validation_alias="GPU_ADVISOR_ANSWER_BUDGET_S")

    @field_validator("redis_url")
    @classmethod
    def _redis_scheme(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("must start with redis://, rediss:// or unix://")
        return value

    @field_validator("database_url")
    @classmethod
    def _database_scheme(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().startswith(("sqlite:", "postgresql:", "postgresql+")):
            raise ValueError("must be sqlite:///path or postgresql://user:pass@host/db")
        return value

    @field_validator("api_keys", mode="before")
    @classmethod
    def _split_keys(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("embed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list):
            value = [str(v).rstrip("/") for v in value]
            for origin in value:
                if origin != "*" and not _ORIGIN.match(origin):
                    raise ValueError(
                        f"GPU_ADVISOR_EMBED_ORIGINS: {origin!r} is not an origin like https://docs.example.com"
                    )
        return value


def knowledge_config_from_settings(settings: Settings) -> KnowledgeConfig:
    """Translate the application's settings into the knowledge package's own config.

    Lives here, not in the assistant module, so the CLI's ``index``/``search`` need not import LangChain.
    """
    return KnowledgeConfig(
        data_dir=settings.data_dir,
        chroma_host=settings.chroma_host,
        chroma_port=settings.chroma_port,
        embedding=settings.embedding,
        embedding_model=settings.embedding_model,
        dashscope_api_key=settings.dashscope_api_key,
        dashscope_base_url=settings.dashscope_base_url or DASHSCOPE_BASE_URLS[settings.dashscope_region],
        openai_api_key=settings.openai_api_key,
        openai_base_url=settings.openai_base_url,
    )
