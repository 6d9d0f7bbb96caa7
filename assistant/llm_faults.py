"""Why an LLM answer failed, in words a user can act on (zh and en); the assistant then answers offline.

Every failure of an LLM run becomes an :class:`LLMFailure` with a short reason in both languages: HTTP
errors and their provider codes (DashScope's rate limits, content moderation, arrears and quota, from
its error-code documentation), errors sent in the middle of a stream (llama.cpp, DashScope output
moderation), timeouts, an answer cut off by the token limit, an answer that is not usable. Only
failures we did not foresee are logged with a traceback; none reaches the user.
"""

from __future__ import annotations

import logging
from typing import Any

from assistant.guards import redact_secrets

log = logging.getLogger(__name__)

# A server's own message is quoted in the warning up to this length (llama.cpp's are one sentence).
SERVER_MESSAGE_CHARS = 160

# Reasons as (en, zh); "{}" takes a detail (seconds, a server message, a setting's value).
REASONS: dict[str, tuple[str, str]] = {
    "timeout": ("timeout{}", "请求超时{}"),
    "answer_timeout": (
        "the answer took longer than {} s (GPU_ADVISOR_LLM_ANSWER_TIMEOUT_S)",
        "回答超过 {} 秒的时限（GPU_ADVISOR_LLM_ANSWER_TIMEOUT_S）",
    ),
    "rate_limited": (
        "rate limited by the model service, HTTP 429; try again in a minute",
        "模型服务限流（HTTP 429），请稍后再试",
    ),
    "moderation": (
        "the model service's content moderation blocked the question or the answer (data_inspection_failed)",
        "模型服务的内容安全审核拦截了问题或回答（data_inspection_failed）",
    ),
    "arrears": (
        "the model account is in arrears (Arrearage); check billing in the Alibaba Cloud console",
        "模型服务账号欠费（Arrearage），请在阿里云控制台检查费用",
    ),
    "quota": (
        "the model quota is used up ({}); check the quota or the free tier in the Model Studio console",
        "模型调用额度已用完（{}），请在百炼控制台检查额度或免费额度",
    ),
    "auth": (
        "the API key was rejected, HTTP 401; check the key and its region",
        "API 密钥无效（HTTP 401），请检查密钥及其地域",
    ),
    "model_not_found": (
        "model not found, HTTP 404; check GPU_ADVISOR_LLM_MODEL",
        "模型不存在（HTTP 404），请检查 GPU_ADVISOR_LLM_MODEL",
    ),
    "http": ("HTTP {}", "HTTP {}"),
    "server_error": ("the model server reported an error: {}", "模型服务报错：{}"),
    "connection": ("connection failed", "无法连接"),
    "call_limit": ("too many model calls", "模型调用次数超过上限"),
    "cut_off": (
        "the answer was cut off at the {}-token limit (GPU_ADVISOR_LLM_MAX_TOKENS)",
        "回答在 {} 个 token 的上限处被截断（GPU_ADVISOR_LLM_MAX_TOKENS）",
    ),
    "tool_call_as_text": (
        "the model wrote a tool call as text instead of calling the tool",
        "模型把工具调用写成了文字，未真正调用工具",
    ),
    "malformed_args": ("malformed tool-call arguments", "工具调用参数格式错误"),
    "malformed_call": ("malformed tool call to {}", "工具调用参数格式错误（{}）"),
    "unknown_tool": ("unknown tool '{}'", "调用了不存在的工具 '{}'"),
    "empty": ("empty answer", "回答为空"),
    "wrong_language": ("the answer was not in {} even after a rewrite", "重写后回答仍不是{}"),
    "echoed_check": ("the answer repeated the assistant's internal check", "回答复述了助手的内部检查指令"),
    "internal": ("internal error ({})", "内部错误（{}）"),
}

# DashScope's codes (OpenAI-compatible mode): the `code` of the error body, or `type`.
_MODERATION_CODES = {"data_inspection_failed", "DataInspectionFailed", "InternalError.Algo.DataInspectionFailed"}
_ARREARS_CODES = {"Arrearage"}
_QUOTA_CODES = {"insufficient_quota", "Throttling.AllocationQuota", "AllocationQuota.FreeTierOnly"}


class LLMFailure(Exception):
    """The LLM could not produce a usable answer.

    Attributes:
        reason: Short English reason for the warning ("HTTP 500", "timeout after 60 s").
        reason_zh: The same in Chinese.
    """

    def __init__(self, reason: str, reason_zh: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.reason_zh = reason_zh or reason

    @classmethod
    def of(cls, key: str, detail: object = "", detail_zh: object | None = None) -> LLMFailure:
        """Return the failure ``key`` of :data:`REASONS`, with ``detail`` in the place of its ``{}``."""
        en, zh = REASONS[key]
        return cls(en.format(detail), zh.format(detail if detail_zh is None else detail_zh))


def _server_message(body: object, fallback: str) -> str:
    message = body.get("message") if isinstance(body, dict) else None
    text = " ".join(str(message or fallback).split())
    text, _ = redact_secrets(text, ())  # a proxy may echo a header; never show a key
    return text if len(text) <= SERVER_MESSAGE_CHARS else text[: SERVER_MESSAGE_CHARS - 1] + "…"


def _codes(exc: Any) -> set[str]:
    return {str(c) for c in (getattr(exc, "code", None), getattr(exc, "type", None)) if c}


def _by_code(exc: Any) -> LLMFailure | None:
    codes = _codes(exc)
    message = str(getattr(exc, "message", ""))
    if codes & _MODERATION_CODES or "DataInspectionFailed" in message:
        return LLMFailure.of("moderation")
    if codes & _ARREARS_CODES:
        return LLMFailure.of("arrears")
    if quota := sorted(codes & _QUOTA_CODES):
        return LLMFailure.of("quota", quota[0])
    return None


def failure_from(exc: BaseException, timeout_s: float | None = None) -> LLMFailure:
    """Classify any exception of an LLM run as a short, user-facing :class:`LLMFailure`."""
    import openai
    from langchain.agents.middleware.model_call_limit import ModelCallLimitExceededError

    if isinstance(exc, LLMFailure):
        return exc
    if isinstance(exc, openai.APITimeoutError):
        if timeout_s:
            return LLMFailure.of("timeout", f" after {timeout_s:g} s", f"（{timeout_s:g} 秒）")
        return LLMFailure.of("timeout")
    if isinstance(exc, openai.APIConnectionError):
        return LLMFailure.of("connection")
    if isinstance(exc, openai.APIError) and (by_code := _by_code(exc)) is not None:
        return by_code
    if isinstance(exc, openai.RateLimitError):
        return LLMFailure.of("rate_limited")
    if isinstance(exc, openai.AuthenticationError):
        return LLMFailure.of("auth")
    if isinstance(exc, openai.NotFoundError):
        return LLMFailure.of("model_not_found")
    if isinstance(exc, openai.APIStatusError):
        return LLMFailure.of("http", exc.status_code)
    if isinstance(exc, openai.APIError):  # an error event in the middle of a stream: quote the server
        message = _server_message(exc.body, exc.message)
        log.warning("model server error in the stream: %s", message)
        return LLMFailure.of("server_error", message)
    if isinstance(exc, ModelCallLimitExceededError):
        return LLMFailure.of("call_limit")
    log.error("LLM run failed unexpectedly", exc_info=exc)
    return LLMFailure.of("internal", type(exc).__name__)
