"""The chat page: a Gradio ChatInterface over the assistant, with tool steps, a chart, a table and 👍/👎.

A thin adapter. Rendering is in :mod:`ui.render_web` (pure); the conversation comes from each browser
session's Chatbot value, so the handlers hold no per-user state and one assistant serves everyone.
Annotations are real objects here (no ``from __future__ import annotations``): Gradio reads them to
inject ``gr.Request`` and ``gr.LikeData``.
"""

import hashlib
import logging
import time
from collections.abc import Iterator
from importlib.resources import files
from typing import Any

import gradio as gr
from fastapi import FastAPI

from assistant.answer import AnswerEvent, Language, ToolCall
from assistant.assistant import Assistant
from assistant.language import detect_language
from ui.feedback import FeedbackRecord, FeedbackStore, Rating
from ui.render_visuals import VISUALS_CSS, has_visuals, visuals_html
from ui.render_web import ChatStep, answer_markdown, history_from_chat, liked_exchange, message_text, tool_step

log = logging.getLogger(__name__)

EXAMPLES = (
    "Qwen2.5-72B 推理, INT4, 32k 上下文, 20 并发, 选什么实例?",
    "How much GPU memory to LoRA fine-tune Llama-3.1-8B?",
    "gn7i 是什么 GPU?",
    "H800 vs A100 for training?",
)
_DRAFT_INTERVAL_S = 0.08  # at most ~12 draft updates a second: enough to look live, light on the socket
_MAX_REMEMBERED_ANSWERS = 100

HEADER = (
    "## gpu-advisor\n"
    "Which Alibaba Cloud GPU instance, how many cards, what it costs: every number comes from the "
    "sizing tools, every fact is cited. Ask in 中文 or English."
)
VISUALS_PLACEHOLDER = (
    "<p class='gpa-empty'>Charts appear here: per-GPU memory for plans and estimates, cost and speed when "
    "options are compared, what does not fit and why. · 这里显示图表：方案与估算的每卡显存构成、方案的成本与速度对比、"
    "放不下的原因。</p>"
)
_ERROR_TEXT: dict[Language, str] = {
    "en": "Sorry, something went wrong while answering; the error was logged. Please try again.",
    "zh": "抱歉，回答时出现内部错误，已记录日志。请重试。",
}


def _chat_message(step: ChatStep) -> gr.ChatMessage:
    return gr.ChatMessage(role="assistant", content=step["content"], metadata=dict(step["metadata"]))  # type: ignore[arg-type]


def answer_key(text: str) -> str:
    """Key under which a session remembers which engine wrote an answer (the answer as displayed)."""
    return hashlib.sha256(text.strip().encode()).hexdigest()[:24]


class _Steps:
    """Tool calls of one answer as they start and finish, rendered as collapsible steps."""

    def __init__(self) -> None:
        self.steps: list[ChatStep] = []
        self._pending: list[tuple[int, str, float]] = []  # (index, tool name, start time)

    def start(self, call: ToolCall) -> None:
        index = len(self.steps)
        self.steps.append(tool_step(call, index, done=False))
        self._pending.append((index, call.name, time.perf_counter()))

    def finish(self, call: ToolCall) -> None:
        for n, (index, name, started) in enumerate(self._pending):
            if name == call.name:
                del self._pending[n]
                self.steps[index] = tool_step(call, index, done=True, duration_s=time.perf_counter() - started)
                return
        index = len(self.steps)  # an end without a start: show it anyway
        self.steps.append(tool_step(call, index, done=True))

    def messages(self, tail: str | None = None) -> list[gr.ChatMessage]:
        out = [_chat_message(s) for s in self.steps]
        if tail is not None:
            out.append(gr.ChatMessage(role="assistant", content=tail))
        return out


class ChatHandlers:
    """The page's event handlers, bound to the app's one assistant and feedback store."""

    def __init__(self, assistant: Assistant, feedback: FeedbackStore) -> None:
        """Bind the handlers; both objects are shared by all sessions and thread-safe."""
        self._assistant = assistant
        self._feedback = feedback

    def respond(
        self, message: str, history: list[dict[str, Any]], engines: dict[str, str] | None
    ) -> Iterator[tuple[Any, ...]]:
        """Stream one answer: tool steps as they run, the draft text, then the final answer and visuals.

        Yields ``(messages, visuals_html, engines)``; the visuals are skipped (kept as they were) for
        answers with nothing to draw, so a follow-up question keeps the plan it follows up on in view.
        """
        steps = _Steps()
        draft = ""
        last_draft = 0.0
        try:
            for event in self._assistant.stream(message, history_from_chat(history)):
                if event.type == "answer" and event.answer is not None:
                    yield self._final(steps, event, engines or {})
                    return
                if event.type == "token":
                    draft += event.text or ""
                    if time.perf_counter() - last_draft < _DRAFT_INTERVAL_S:
                        continue
                    last_draft = time.perf_counter()
                    yield steps.messages(draft + " ▍"), gr.skip(), gr.skip()
                    continue
                if event.tool_call is not None:
                    (steps.start if event.type == "tool_start" else steps.finish)(event.tool_call)
                    yield steps.messages(draft or None), gr.skip(), gr.skip()
        except Exception:  # a bug must reach the log, not the chat
            log.exception("chat answer failed")
            yield steps.messages(_ERROR_TEXT[detect_language(message)]), gr.skip(), gr.skip()

    def _final(self, steps: _Steps, event: AnswerEvent, engines: dict[str, str]) -> tuple[Any, ...]:
        answer = event.answer
        assert answer is not None
        text = answer_markdown(answer)
        remembered = dict(list(engines.items())[-(_MAX_REMEMBERED_ANSWERS - 1) :])
        remembered[answer_key(message_text(text))] = answer.engine  # as liked_exchange reads it back
        if not has_visuals(answer):
            return steps.messages(text), gr.skip(), remembered
        return steps.messages(text), visuals_html(answer), remembered

    def like(
        self,
        data: gr.LikeData,
        history: list[dict[str, Any]],
        comment: str | None,
        engines: dict[str, str] | None,
        request: gr.Request,
    ) -> tuple[str, str | None]:
        """Store a 👍/👎 (with the comment box's text) for the rated answer; clear the comment."""
        rating = _rating(data.liked)
        index = data.index[0] if isinstance(data.index, (list, tuple)) else data.index
        exchange = liked_exchange(history, int(index))
        if rating is None or exchange is None:
            return "", comment
        question, answer = exchange
        record = FeedbackRecord(
            session=getattr(request, "session_hash", None) or "unknown",
            question=question,
            answer=answer,
            engine=(engines or {}).get(answer_key(answer), self._assistant.engine),
            rating=rating,
            comment=(comment or "").strip()[:4000],
        )
        self._feedback.add(record)
        thanks = "Thanks, feedback saved 👍" if rating == "up" else "Thanks, feedback saved 👎"
        return thanks, ""


def page_head() -> str:
    """Return what goes inline into the page's <head>: the styles and ``ui/static/page.js``.

    Inline, not linked, so the embed layout (``?embed=1``: no header, no visuals panel) holds from the
    first paint; the widget's panel never flashes the full page's header.
    """
    static = files("ui").joinpath("static")
    css = static.joinpath("page.css").read_text(encoding="utf-8")
    js = static.joinpath("page.js").read_text(encoding="utf-8")
    return f"<style>{VISUALS_CSS}{css}</style><script>{js}</script>"


def _rating(liked: object) -> Rating | None:
    if liked is True or liked == "Like":
        return "up"
    if liked is False or liked == "Dislike":
        return "down"
    return None


def build_chat(assistant: Assistant, feedback: FeedbackStore, *, concurrency: int) -> gr.Blocks:
    """Build the chat page.

    Args:
        assistant: The app's assistant (thread-safe, shared by every session).
        feedback: Where 👍/👎 go.
        concurrency: Answers computed at once across all users (Gradio's default of 1 would make users
            wait for each other).
    """
    handlers = ChatHandlers(assistant, feedback)
    with gr.Blocks(title="gpu-advisor", analytics_enabled=False) as demo:
        engines = gr.State({})
        gr.Markdown(HEADER + f"  \n<sub>engine: {assistant.engine}</sub>", elem_id="gpa-header")
        visuals = gr.HTML(VISUALS_PLACEHOLDER, render=False, elem_id="gpa-chart")
        with gr.Row(equal_height=False, elem_id="gpa-main"):
            with gr.Column(scale=3, min_width=300, elem_id="gpa-chat-column"):
                chatbot = gr.Chatbot(
                    height=640,
                    show_label=False,
                    feedback_options=("Like", "Dislike"),
                    buttons=["copy"],
                    placeholder="Ask about GPU instances, memory, cost · 询问 GPU 实例、显存与成本",
                    elem_id="gpa-chatbot",
                    autoscroll=False,  # ui/static/page.js follows the answer, then shows its start
                )
                gr.ChatInterface(
                    handlers.respond,
                    chatbot=chatbot,
                    textbox=gr.Textbox(
                        placeholder="e.g. Qwen2.5-72B inference, 20 users · 例如：Qwen2.5-72B 推理，20 并发",
                        show_label=False,
                        max_length=4000,
                        submit_btn=True,
                        elem_id="gpa-input",
                    ),
                    additional_inputs=[engines],
                    additional_outputs=[visuals, engines],
                    examples=[[q, None] for q in EXAMPLES],
                    cache_examples=False,
                    api_name="chat",
                    fill_height=False,
                    analytics_enabled=False,
                )
                with gr.Row():
                    comment = gr.Textbox(
                        label="Comment (optional), then 👍/👎 on an answer · 评论（可选），然后点 👍/👎",
                        max_lines=3,
                        max_length=4000,
                        scale=4,
                        elem_id="gpa-comment",
                    )
                    status = gr.Markdown(elem_id="gpa-feedback-status")
            with gr.Column(scale=2, min_width=300, elem_id="gpa-visuals"):
                visuals.render()
        chatbot.like(handlers.like, [chatbot, comment, engines], [status, comment], api_visibility="private")
    demo.queue(default_concurrency_limit=concurrency, max_size=concurrency * 8)
    return demo


def mount_chat(app: FastAPI, assistant: Assistant, feedback: FeedbackStore, *, concurrency: int) -> None:
    """Mount the chat page at ``/`` of ``app`` (after the app's own routes, which keep precedence)."""
    demo = build_chat(assistant, feedback, concurrency=concurrency)
    gr.mount_gradio_app(
        app,
        demo,
        path="/",
        footer_links=[],
        run_history=False,
        show_error=False,
        ssr_mode=False,
        max_file_size="1mb",
        theme=gr.themes.Default(primary_hue="orange"),
        head=page_head(),
    )
