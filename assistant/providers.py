"""The chat model behind the LLM engine, built from ``Settings``.

The model is named by one ``provider:model`` string (``GPU_ADVISOR_LLM_MODEL``): ``dashscope:qwen-plus``
for Qwen through DashScope's OpenAI-compatible mode, ``openai:gpt-4o-mini`` (or a vLLM/Ollama model) for
any OpenAI-compatible endpoint, ``local:qwen2.5-7b-instruct`` for a model server on this machine
(llama.cpp's ``llama-server``, Ollama, vLLM at ``GPU_ADVISOR_LOCAL_BASE_URL``) with the preset small
CPU servers need: a 300 s timeout and compact tool schemas. A bare model name takes its provider from the
credentials that are set; the provider is never guessed from the model name itself.

Every call sends ``max_tokens`` (``GPU_ADVISOR_LLM_MAX_TOKENS``): without it a small model may generate
until the server is stopped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import SecretStr

from assistant.settings import DASHSCOPE_BASE_URLS, Settings

if TYPE_CHECKING:
    from langchain_openai import ChatOpenAI

    from assistant.llm_middleware import CallLimits

Provider = Literal["dashscope", "openai", "local"]
EngineName = Literal["llm", "offline"]

PROVIDERS: tuple[Provider, ...] = ("dashscope", "openai", "local")
DEFAULT_TIMEOUT_S = 60.0
# A CPU llama-server reads the ~2.5k-token tool schemas at ~60 tokens/s before its first token.
LOCAL_TIMEOUT_S = 300.0
# The whole answer: the first call, a tool round trip and a rewrite at the per-call timeout each.
ANSWER_TIMEOUT_CALLS = 3
# vLLM and Ollama ignore the key but the OpenAI client refuses to start without one.
PLACEHOLDER_API_KEY = "EMPTY"


class ConfigurationError(Exception):
    """The LLM configuration cannot work as given; the message says which variable to set."""


def _key(secret: SecretStr | None) -> SecretStr | None:
    # An empty value (``DASHSCOPE_API_KEY=`` in a .env) means unset, not an empty key.
    return secret if secret is not None and secret.get_secret_value().strip() else None


def llm_configured(settings: Settings) -> bool:
    """Whether some LLM is configured: DASHSCOPE_API_KEY, OPENAI_BASE_URL or a ``local:`` model."""
    if split_model_spec(settings.llm_model)[0] == "local":
        return True
    return _key(settings.dashscope_api_key) is not None or bool(settings.openai_base_url)


def engine_for(settings: Settings) -> EngineName:
    """Return the engine ``GPU_ADVISOR_ENGINE`` asks for; ``auto``: the LLM whenever one is configured."""
    if settings.engine == "auto":
        return "llm" if llm_configured(settings) else "offline"
    return settings.engine


def split_model_spec(spec: str) -> tuple[Provider | None, str]:
    """Split ``provider:model`` into its parts; ``(None, spec)`` when no known provider prefixes it.

    Only the known provider names count as a prefix, so Ollama tags such as ``qwen2.5:7b`` stay
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


def timeout_s(settings: Settings) -> float:
    """Seconds for one model request: ``GPU_ADVISOR_LLM_TIMEOUT_S``, else 60 (300 for ``local:``)."""
    if settings.llm_timeout_s is not None:
        return settings.llm_timeout_s
    return LOCAL_TIMEOUT_S if split_model_spec(settings.llm_model)[0] == "local" else DEFAULT_TIMEOUT_S


def compact_tools(settings: Settings) -> bool:
    """Whether the model sees compact tool schemas: ``GPU_ADVISOR_LLM_COMPACT_TOOLS``, else for ``local:``."""
    if settings.llm_compact_tools is not None:
        return settings.llm_compact_tools
    return split_model_spec(settings.llm_model)[0] == "local"


def call_limits(settings: Settings) -> CallLimits:
    """Return the bounds of one answer's model calls the settings ask for.

    DashScope documents ``tool_choice`` as auto, none or one named function, not "required", so
    ``first-required`` is sent as auto there.
    """
    from assistant.llm_middleware import CallLimits

    per_call = timeout_s(settings)
    tool_choice = settings.llm_tool_choice
    if tool_choice == "first-required" and resolve_provider(settings)[0] == "dashscope":
        tool_choice = "auto"
    return CallLimits(
        max_model_calls=settings.llm_max_model_calls,
        max_tokens=settings.llm_max_tokens,
        call_timeout_s=per_call,
        answer_timeout_s=settings.llm_answer_timeout_s or ANSWER_TIMEOUT_CALLS * per_call,
        tool_choice=tool_choice,
    )


def build_chat_model(settings: Settings) -> ChatOpenAI:
    """Build the streaming chat model for the configured provider.

    Streaming is always on (Qwen's thinking models reject non-streaming calls) and usage is requested
    in the stream (``stream_options.include_usage``). On DashScope, thinking is switched off (Qwen3 on
    the compatible endpoint thinks by default: slow first tokens, and tool calls need it off) and
    ``parallel_tool_calls`` is on (DashScope's default is one call per turn). ``max_tokens`` is sent
    under that name to DashScope and local or self-hosted servers (llama.cpp reads no other), and as
    ``max_completion_tokens`` to OpenAI itself.

    Raises:
        ConfigurationError: The settings cannot produce a working client; the message names the fix.
    """
    from langchain_openai import ChatOpenAI

    provider, model = resolve_provider(settings)
    common: dict[str, Any] = {
        "model": model,
        "streaming": True,
        "stream_usage": True,
        "timeout": timeout_s(settings),
        "max_retries": settings.llm_max_retries,
    }
    max_tokens = {"max_tokens": settings.llm_max_tokens}
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
                extra_body={"enable_thinking": False, "parallel_tool_calls": True, **max_tokens},
                **common,
            )
        case "local":
            return ChatOpenAI(
                base_url=settings.local_base_url,
                api_key=_key(settings.openai_api_key) or PLACEHOLDER_API_KEY,
                extra_body=max_tokens,
                **common,
            )
        case "openai":
            if not settings.openai_base_url and _key(settings.openai_api_key) is None:
                raise ConfigurationError(
                    f"GPU_ADVISOR_LLM_MODEL={settings.llm_model!r} uses an OpenAI-compatible endpoint: set "
                    "OPENAI_BASE_URL (e.g. http://localhost:8000/v1 for vLLM) and, if it needs one, "
                    "OPENAI_API_KEY."
                )
            if settings.openai_base_url:  # vLLM, Ollama, a proxy: the name every server reads
                common["extra_body"] = max_tokens
            else:
                common["max_tokens"] = settings.llm_max_tokens
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
