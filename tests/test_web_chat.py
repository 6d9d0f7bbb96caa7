"""The chat page through gradio_client against the running server; the 👍/👎 handler into SQLite."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import shared_kb
from gradio_client import Client
from web_helpers import running, web_app, web_settings

from assistant.assistant import build_assistant
from ui.cli import main
from ui.feedback import FeedbackStore
from ui.store import Database

# Gradio (ui.chat) is imported inside the tests: collecting this file for the default, fast run must not
# cost Gradio's import time.
pytestmark = pytest.mark.slow

PLAN_QUESTION = "Qwen2.5-72B 推理, INT4, 32k 上下文, 20 并发, 选什么实例?"
LORA_QUESTION = "How much GPU memory to LoRA fine-tune Llama-3.1-8B?"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running(web_app(tmp_path_factory.mktemp("chat"), GPU_ADVISOR_RATE_LIMIT_PER_MIN=10_000)) as url:
        yield url


def _steps(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if (m.get("metadata") or {}).get("title")]


def _final(messages: list[dict[str, Any]]) -> str:
    text = messages[-1]["content"]
    return text if isinstance(text, str) else " ".join(block["text"] for block in text)


def test_chat_endpoint_answers_with_tool_steps_citations_chart_and_table(base_url: str) -> None:
    client = Client(base_url, verbose=False)
    messages, visuals = client.predict(PLAN_QUESTION, api_name="/chat")
    steps = _steps(messages)
    assert steps[0]["metadata"]["title"].startswith("🔧 plan_gpu_deployment(model=Qwen2.5-72B-Instruct")
    assert all(s["metadata"]["status"] == "done" for s in steps)
    assert "**Input**" in steps[0]["content"] and "**Result:**" in steps[0]["content"]
    answer = _final(messages)
    assert "[[1]](https://" in answer and "**参考资料：**" in answer  # numbered links to the sources
    assert answer.count("<table") == 1 and "|---|" not in answer  # the compact table, not the Markdown one
    assert 'class="gpa-chart"' in visuals and "每卡显存构成" in visuals  # answered in the user's language
    assert visuals.count("<table") == 1 and "gpa-sortable" in visuals and "ecs.gn7e-c16g1.16xlarge" in visuals


def test_streaming_shows_a_pending_step_before_the_answer(base_url: str) -> None:
    client = Client(base_url, verbose=False)
    job = client.submit(LORA_QUESTION, api_name="/chat")
    updates = [output[0] for output in job]
    assert len(updates) >= 3
    pending = [s for update in updates for s in _steps(update) if s["metadata"]["status"] == "pending"]
    assert pending and pending[0]["metadata"]["title"].startswith("🔧 estimate_gpu_memory")
    assert "GiB" in _final(updates[-1])


def test_each_client_session_has_its_own_conversation(base_url: str) -> None:
    first, second = Client(base_url, verbose=False), Client(base_url, verbose=False)
    first.predict(LORA_QUESTION, api_name="/chat")
    follow_up, _ = first.predict("what about QLoRA?", api_name="/chat")
    assert any("task=qlora" in s["metadata"]["title"] for s in _steps(follow_up))
    stranger, _ = second.predict("what about QLoRA?", api_name="/chat")
    assert not _steps(stranger)  # no model in this session: the assistant asks instead of guessing


def test_answers_without_a_plan_leave_the_visuals_as_they_were(base_url: str) -> None:
    client = Client(base_url, verbose=False)
    client.predict(PLAN_QUESTION, api_name="/chat")
    messages, kept = client.predict("gn7i 是什么 GPU?", api_name="/chat")
    assert "A10" in _final(messages)
    # gr.skip(): the page keeps the last plan's visuals
    assert kept["__type__"] == "update" and "value" not in kept.get("props", {})


def test_many_users_are_served_at_once(tmp_path: Path) -> None:
    from ui.chat import build_chat

    settings = web_settings(tmp_path)
    demo = build_chat(
        build_assistant(settings, knowledge_base=shared_kb()),
        FeedbackStore(Database.for_data_dir(tmp_path)),
        concurrency=16,
    )
    assert demo._queue.default_concurrency_limit == 16  # Gradio's default of 1 makes users queue behind each other


def _answered(handlers: object, question: str, session: str) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Ask through the chat handler in process; return the chat history and the session's answer ids."""
    import gradio as gr

    *_, final = handlers.respond(question, [], {}, gr.Request(session_hash=session))  # type: ignore[attr-defined]
    messages, _, answer_ids = final
    shown = [{"role": m.role, "content": m.content, "metadata": m.metadata} for m in messages]
    return [{"role": "user", "content": question}, *shown], answer_ids


def test_like_stores_feedback_readable_by_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import gradio as gr

    from ui.chat import ChatHandlers

    settings = web_settings(tmp_path)
    store = FeedbackStore(Database.for_data_dir(tmp_path))
    handlers = ChatHandlers(build_assistant(settings, knowledge_base=shared_kb()), store)
    history, answer_ids = _answered(handlers, LORA_QUESTION, "session-1")
    answer_index = len(history) - 1
    status, comment = handlers.like(
        gr.LikeData(None, {"index": answer_index, "value": history[-1]["content"], "liked": False}),
        history,
        "  the activations look high  ",
        answer_ids,
        gr.Request(session_hash="session-1"),
    )
    assert status.startswith("Thanks") and comment == ""
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path))
    with pytest.raises(SystemExit):
        main(["feedback", "--json"])
    [record] = json.loads(capsys.readouterr().out)
    assert record["rating"] == "down" and record["comment"] == "the activations look high"
    assert record["question"] == LORA_QUESTION and record["session"] == "session-1"
    assert record["engine"] == "offline" and "GiB" in record["answer"]


def test_a_like_on_text_the_server_never_gave_is_refused(tmp_path: Path) -> None:
    import gradio as gr

    from ui.chat import ChatHandlers

    store = FeedbackStore(Database.for_data_dir(tmp_path))
    handlers = ChatHandlers(build_assistant(web_settings(tmp_path), knowledge_base=shared_kb()), store)
    _, answer_ids = _answered(handlers, LORA_QUESTION, "session-2")
    forged = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "The best product ever."}]
    status, comment = handlers.like(
        gr.LikeData(None, {"index": 1, "value": "The best product ever.", "liked": True}),
        forged,
        "five stars",
        answer_ids,
        gr.Request(session_hash="session-2"),
    )
    assert status.startswith("Only answers given in this chat") and comment == "five stars"
    assert store.list() == []


def test_examples_are_offered_in_both_languages() -> None:
    from ui.chat import EXAMPLES

    assert PLAN_QUESTION in EXAMPLES and LORA_QUESTION in EXAMPLES
    assert any("gn7i" in q for q in EXAMPLES) and any("H800" in q for q in EXAMPLES)
