"""The one place that reads the environment: every knob of gpu-advisor, typed.

Built once at an entry point (CLI, server, bot) and passed down; nothing else reads ``os.environ``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

DASHSCOPE_BASE_URLS: dict[str, str] = {
    "cn-beijing": "https://dashscope.aliyuncs.com/compatible-mode/v1",
    "intl": "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    "us": "https://dashscope-us.aliyuncs.com/compatible-mode/v1",
}


def _default_data_dir() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("gpu-advisor", appauthor=False))


class Settings(BaseSettings):
    """gpu-advisor configuration from environment variables and ``.env``."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    # LLM: vendor variable names are accepted as they are.
    dashscope_api_key: SecretStr | None = Field(default=None, validation_alias="DASHSCOPE_API_KEY")
    dashscope_region: Literal["cn-beijing", "intl", "us"] = Field(
        default="cn-beijing", validation_alias="DASHSCOPE_REGION"
    )
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    openai_api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    llm_model: str = Field(default="qwen-plus", validation_alias="GPU_ADVISOR_LLM_MODEL")
    llm_timeout_s: float = Field(default=60.0, gt=0, validation_alias="GPU_ADVISOR_LLM_TIMEOUT_S")
    engine: Literal["auto", "llm", "offline"] = Field(default="auto", validation_alias="GPU_ADVISOR_ENGINE")

    # Knowledge base.
    data_dir: Path = Field(default_factory=_default_data_dir, validation_alias="GPU_ADVISOR_DATA_DIR")
    chroma_host: str | None = Field(default=None, validation_alias="CHROMA_HOST")
    chroma_port: int = Field(default=8000, validation_alias="CHROMA_PORT")
    embedding: Literal["offline", "dashscope", "openai"] = Field(
        default="offline", validation_alias="GPU_ADVISOR_EMBEDDING"
    )
    embedding_model: str | None = Field(default=None, validation_alias="GPU_ADVISOR_EMBEDDING_MODEL")

    # Slack.
    slack_bot_token: SecretStr | None = Field(default=None, validation_alias="SLACK_BOT_TOKEN")
    slack_signing_secret: SecretStr | None = Field(default=None, validation_alias="SLACK_SIGNING_SECRET")
    slack_app_token: SecretStr | None = Field(default=None, validation_alias="SLACK_APP_TOKEN")
