"""The assistant facade: engine choice, input limits, and the offline fallback on every LLM failure."""

from __future__ import annotations

from typing import Any

import pytest
from fakes.fake_openai import (
    delay,
    fake_openai,
    malformed_tool_call,
    status,
    text,
    tool_call,
)
from llm_helpers import hashing_kb, llm_settings

from assistant.assistant import MAX_QUESTION_CHARS, Assistant, build_assistant
from assistant.providers import ConfigurationError
from assistant.settings import Settings
from knowledge.base import KnowledgeBase

QUESTION = "Which instance for Qwen2.5-7B-Instruct inference with 8 concurrent users?"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    kb = hashing_kb(tmp_path_factory.mktemp("kb"))
    kb.ensure_index()
    return kb


def _assistant(url: str, kb: KnowledgeBase, **extra: Any) -> Assistant:
    return build_assistant(llm_settings(url, **extra), knowledge_base=kb)


FAULTS = [
    pytest.param([status(500)], {}, "HTTP 500", id="http-500"),
    pytest.param([status(429)], {}, "HTTP 429", id="http-429"),
    pytest.param([delay(3.0)], {"GPU_ADVISOR_LLM_TIMEOUT_S": 0.5}, "timeout", id="timeout"),
    pytest.param([malformed_tool_call("plan_gpu_deployment")], {}, "malformed", id="malformed-args"),
    pytest.param([tool_call("launch_instances", {"count": 8})], {}, "unknown tool", id="unknown-tool"),
    pytest.param(
        [tool_call("gpu_specs", {"name": "A10"}), tool_call("gpu_specs", {"name": "L20"})],
        {"GPU_ADVISOR_LLM_MAX_CALLS": 2},
        "too many model calls",
        id="call-limit",
    ),
    pytest.param([text("")], {}, "empty answer", id="empty-answer"),
]


@pytest.mark.parametrize(("script", "extra", "reason"), FAULTS)
def test_llm_failure_falls_back_to_the_offline_engine(
    kb: KnowledgeBase, script: list[dict[str, Any]], extra: dict[str, Any], reason: str
) -> None:
    with fake_openai(*script) as server:
        answer = _assistant(server.url, kb, **extra).answer(QUESTION)

    assert answer.engine == "offline"
    assert answer.warnings[0].startswith("LLM unavailable (") and reason in answer.warnings[0]
    assert answer.warnings[0].endswith("answered by the offline engine.")
    assert answer.text and "Traceback" not in answer.text
    assert answer.kind != "error"
    assert server.chat_requests  # the LLM was really tried first


def test_fallback_warning_is_in_the_users_language(kb: KnowledgeBase) -> None:
    with fake_openai(status(503)) as server:
        answer = _assistant(server.url, kb).answer("Qwen2.5-7B-Instruct 推理，8 个并发，用什么实例？")

    assert answer.language == "zh" and answer.engine == "offline"
    assert answer.warnings[0] == "大模型暂不可用（HTTP 503），本回答由离线引擎生成。"


def test_retry_recovers_from_one_server_error(kb: KnowledgeBase) -> None:
    with fake_openai(status(500), text("Ask me about GPU instances.")) as server:
        answer = _assistant(server.url, kb, GPU_ADVISOR_LLM_MAX_RETRIES=1).answer("hello")

    assert answer.engine == "llm" and answer.text == "Ask me about GPU instances."
    assert len(server.chat_requests) == 2


def test_stream_switches_to_offline_events_after_a_failure(kb: KnowledgeBase) -> None:
    script = [tool_call("gpu_specs", {"name": "A10"}), status(500)]
    with fake_openai(*script) as server:
        events = list(_assistant(server.url, kb).stream(QUESTION))

    kinds = [e.type for e in events]
    assert kinds[:2] == ["tool_start", "tool_end"]  # the LLM's first turn had streamed
    assert kinds[-1] == "answer" and kinds.count("answer") == 1
    final = events[-1].answer
    assert final is not None and final.engine == "offline" and "HTTP 500" in final.warnings[0]


@pytest.mark.parametrize(
    ("question", "expected"),
    [("", "Please ask a question"), ("   \n", "Please ask a question"), ("x" * (MAX_QUESTION_CHARS + 1), "too long")],
)
def test_empty_or_overlong_question_gets_a_clear_message(kb: KnowledgeBase, question: str, expected: str) -> None:
    with fake_openai() as server:
        answer = _assistant(server.url, kb).answer(question)

    assert answer.kind == "error" and expected in answer.text
    assert server.chat_requests == []


def test_overlong_chinese_question_is_refused_in_chinese(kb: KnowledgeBase) -> None:
    answer = build_assistant(Settings(_env_file=None), knowledge_base=kb).answer("显存" * MAX_QUESTION_CHARS)
    assert answer.kind == "error" and answer.language == "zh" and "问题太长" in answer.text


def test_engine_offline_overrides_configured_llm(kb: KnowledgeBase) -> None:
    with fake_openai() as server:
        assistant = _assistant(server.url, kb, GPU_ADVISOR_ENGINE="offline")
        answer = assistant.answer(QUESTION)

    assert assistant.engine == "offline" and answer.engine == "offline"
    assert answer.warnings == [] or not answer.warnings[0].startswith("LLM unavailable")
    assert server.chat_requests == []


def test_no_provider_means_offline(kb: KnowledgeBase) -> None:
    assistant = build_assistant(Settings(_env_file=None), knowledge_base=kb)
    assert assistant.engine == "offline"


def test_llm_engine_without_provider_is_a_configuration_error(kb: KnowledgeBase) -> None:
    settings = Settings(_env_file=None, GPU_ADVISOR_ENGINE="llm")  # type: ignore[call-arg]
    with pytest.raises(ConfigurationError, match="DASHSCOPE_API_KEY.*OPENAI_BASE_URL"):
        build_assistant(settings, knowledge_base=kb)


def test_history_dicts_are_accepted(kb: KnowledgeBase) -> None:
    history = [{"role": "user", "content": "Qwen2.5-7B-Instruct?"}, {"role": "assistant", "content": "How many users?"}]
    with fake_openai(text("Thanks, noted.")) as server:
        answer = _assistant(server.url, kb).answer("8 users", history)
    assert answer.engine == "llm"
    assert [m["role"] for m in server.chat_requests[0].body["messages"]] == ["system", "user", "assistant", "user"]
