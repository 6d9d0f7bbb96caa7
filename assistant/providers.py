"""The chat model behind the LLM engine, built from ``Settings``.

The model is named by one ``provider:model`` string (``GPU_ADVISOR_LLM_MODEL``): ``dashscope:qwen-plus``
for Qwen through DashScope's OpenAI-compatible mode, ``openai:gpt-4o-mini`` (or a vLLM/Ollama model) for
any OpenAI-compatible endpoint. A bare model name takes its provider from the credentials that are set;
the provider is never guessed from the model name itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import SecretStr

from assistant.settings import DASHSCOPE_BASE_URLS, Settings

if TYPE_CHECKING:
    from langchain_openai import ChatOpenAI

Provider = Literal["dashscope", "openai"]
EngineName = Literal["llm", "offline"]

PROVIDERS: tuple[Provider, ...] = ("dashscope", "openai")
# vLLM and Ollama ignore the key but the OpenAI client refuses to start without one.
PLACEHOLDER_API_KEY = "EMPTY"


class ConfigurationError(Exception):
    """The LLM configuration cannot work as given; the message says which variable to set."""


def _key(secret: SecretStr | None) -> SecretStr | None:
    # An empty value (``DASHSCOPE_API_KEY=`` in a .env) means unset, not an empty key.
    return secret if secret is not None and secret.get_secret_value().strip() else None


def llm_configured(settings: Settings) -> bool:
    """Whether credentials for some LLM provider are present (DASHSCOPE_API_KEY or OPENAI_BASE_URL)."""
    return _key(settings.dashscope_api_key) is not None or bool(settings.openai_base_url)


def engine_for(settings: Settings) -> EngineName:
    """Return the engine ``GPU_ADVISOR_ENGINE`` asks for; ``auto``: the LLM whenever one is configured."""
    if settings.engine == "auto":
        return "llm" if llm_configured(settings) else "offline"
    return settings.engine


def split_model_spec(spec: str) -> tuple[Provider | None, str]:
    """Split ``provider:model`` into its parts; ``(None, spec)`` when no known provider prefixes it.

    Only the two known provider names count as a prefix, so Ollama tags such as ``qwen2.5:7b`` stay
    whole model names.
    """
    head, sep, tail = spec.partition(":")
    if sep and head in PROVIDERS:
        if not tail.strip():
            raise ConfigurationError(f"GPU_ADVISOR_LLM_MODEL={spec!r} names no model; e.g. {head}:qwen-plus")
        return head, tail.strip()  # type: ignore[return-value]  # narrowed by the PROVIDERS check
    return None, spec.strip()


def resolve_provider(settings: Settings) -> tuple[Provider, str]:
    """Return the provider and model name the settings select.

    Raises:
        ConfigurationError: No provider is configured, or the named one lacks its credentials.
    """
    provider, model = split_model_spec(settings.llm_model)
    if provider is None:
        if _key(settings.dashscope_api_key) is not None:
            provider = "dashscope"
        elif settings.openai_base_url or _key(settings.openai_api_key) is not None:
            provider = "openai"
        else:
            raise ConfigurationError(
                "No LLM is configured: set DASHSCOPE_API_KEY (Qwen on DashScope) or OPENAI_BASE_URL "
                "(any OpenAI-compatible endpoint), or use the offline engine (GPU_ADVISOR_ENGINE=offline)."
            )
    return provider, model


def build_chat_model(settings: Settings) -> ChatOpenAI:
    """Build the streaming chat model for the configured provider.

    Streaming is always on (Qwen's thinking models reject non-streaming calls) and usage is requested
    in the stream. Thinking is switched off on DashScope: tool calling with ``tool_choice`` and a fast
    first token both need it off.

    Raises:
        ConfigurationError: The settings cannot produce a working client; the message names the fix.
    """
    from langchain_openai import ChatOpenAI

    provider, model = resolve_provider(settings)
    common = {
        "model": model,
        "streaming": True,
        "stream_usage": True,
        "timeout": settings.llm_timeout_s,
        "max_retries": settings.llm_max_retries,
    }
    match provider:
        case "dashscope":
            if _key(settings.dashscope_api_key) is None:
                raise ConfigurationError(
                    f"GPU_ADVISOR_LLM_MODEL={settings.llm_model!r} uses DashScope: set DASHSCOPE_API_KEY "
                    "(a key from the region in DASHSCOPE_REGION)."
                )
            return ChatOpenAI(
                base_url=settings.dashscope_base_url or DASHSCOPE_BASE_URLS[settings.dashscope_region],
                api_key=settings.dashscope_api_key,
                extra_body={"enable_thinking": False},
                **common,
            )
        case "openai":
            if not settings.openai_base_url and _key(settings.openai_api_key) is None:
                raise ConfigurationError(
                    f"GPU_ADVISOR_LLM_MODEL={settings.llm_model!r} uses an OpenAI-compatible endpoint: set "
                    "OPENAI_BASE_URL (e.g. http://localhost:8000/v1 for vLLM) and, if it needs one, "
                    "OPENAI_API_KEY."
                )
            return ChatOpenAI(
                base_url=settings.openai_base_url or None,
                api_key=_key(settings.openai_api_key) or PLACEHOLDER_API_KEY,
                **common,
            )
    raise AssertionError(f"unhandled provider {provider}")  # pragma: no cover - Literal is exhaustive


def secret_values(settings: Settings) -> list[str]:
    """Every secret in the settings (API keys, tokens), for the answer leak filter."""
    found = []
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr) and value.get_secret_value():
            found.append(value.get_secret_value())
    return found
