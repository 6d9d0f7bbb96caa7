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
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

import gradio as gr
from fastapi import FastAPI

from assistant.answer import AnswerEvent, Language, ToolCall
from assistant.assistant import Assistant
from assistant.language import detect_language
from ui.budget import AnswerBudget, TooComplexError
from ui.feedback import MAX_COMMENT_CHARS, FeedbackStore, Rating
from ui.input_caps import MESSAGES, InputCaps, clean_text, fit_history
from ui.rate_limit import RateLimiter
from ui.render_visuals import VISUALS_CSS, has_visuals, visuals_html
from ui.render_web import ChatStep, answer_markdown, history_from_chat, liked_exchange, message_text, tool_step
from ui.store import StoreError

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
    """Key under which a session remembers the server's id of an answer (the answer as displayed)."""
    return hashlib.sha256(text.strip().encode()).hexdigest()[:24]


@dataclass(frozen=True)
class ChatGuards:
    """What bounds the page's work: answer and feedback rate limits, the time budget, the input caps."""

    limiter: RateLimiter | None = None
    feedback_limiter: RateLimiter | None = None
    budget: AnswerBudget | None = None
    caps: InputCaps = InputCaps()


def _client(limiter: RateLimiter, request: gr.Request | None) -> str:
    headers = {k.lower(): v for k, v in dict(getattr(request, "headers", None) or {}).items()}
    client = getattr(request, "client", None)
    return limiter.client_key(headers, getattr(client, "host", None))


def _wait_s(limiter: RateLimiter | None, request: gr.Request | None) -> float:
    return 0.0 if limiter is None else limiter.acquire(_client(limiter, request))


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

    def __init__(self, assistant: Assistant, feedback: FeedbackStore, guards: ChatGuards | None = None) -> None:
        """Bind the handlers; the objects are shared by all sessions and thread-safe."""
        self._assistant = assistant
        self._feedback = feedback
        self._guards = guards or ChatGuards()

    def respond(
        self,
        message: str,
        history: list[dict[str, Any]],
        answer_ids: dict[str, str] | None,
        request: gr.Request = None,  # type: ignore[assignment]  # Gradio injects it
    ) -> Iterator[tuple[Any, ...]]:
        """Stream one answer: tool steps as they run, the draft text, then the final answer and visuals.

        Yields ``(messages, visuals_html, answer_ids)``; the visuals are skipped (kept as they were) for
        answers with nothing to draw, so a follow-up question keeps the plan it follows up on in view.
        ``answer_ids`` (server-side session state) maps each answer shown to the id the server recorded it
        under, for 👍/👎.
        """
        steps = _Steps()
        draft = ""
        last_draft = 0.0
        message = clean_text(message or "")
        lang = detect_language(message)
        if (wait_s := _wait_s(self._guards.limiter, request)) > 0:
            text = MESSAGES["rate_limited"][lang].format(seconds=max(1, round(wait_s)))
            yield steps.messages(text), gr.skip(), gr.skip()
            return
        turns = fit_history(history_from_chat(history), self._guards.caps)
        session = getattr(request, "session_hash", None) or "unknown"
        try:
            for event in self._events(message, turns):
                if event.type == "answer" and event.answer is not None:
                    yield self._final(steps, event, answer_ids or {}, message, session)
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
        except TooComplexError:
            yield steps.messages(MESSAGES["too_complex"][lang]), gr.skip(), gr.skip()
        except Exception:  # a bug must reach the log, not the chat
            log.exception("chat answer failed")
            yield steps.messages(_ERROR_TEXT[lang]), gr.skip(), gr.skip()

    def _events(self, message: str, turns: list[Any]) -> Iterator[AnswerEvent]:
        if self._guards.budget is None:
            return self._assistant.stream(message, turns)
        return self._guards.budget.stream(lambda: self._assistant.stream(message, turns))

    def _final(
        self, steps: _Steps, event: AnswerEvent, answer_ids: dict[str, str], question: str, session: str
    ) -> tuple[Any, ...]:
        answer = event.answer
        assert answer is not None
        text = answer_markdown(answer)
        remembered = dict(list(answer_ids.items())[-(_MAX_REMEMBERED_ANSWERS - 1) :])
        if answer.kind != "error":
            try:
                # Keyed on the text as liked_exchange reads it back (without the page's scroll marker).
                remembered[answer_key(message_text(text))] = self._feedback.record_answer(
                    face="web", session=session, question=question, answer=text, engine=answer.engine
                )
            except StoreError:  # the answer still shows; it just cannot be rated
                log.exception("could not record a chat answer")
        if not has_visuals(answer):
            return steps.messages(text), gr.skip(), remembered
        return steps.messages(text), visuals_html(answer), remembered

    def like(
        self,
        data: gr.LikeData,
        history: list[dict[str, Any]],
        comment: str | None,
        answer_ids: dict[str, str] | None,
        request: gr.Request,
    ) -> tuple[str, str | None]:
        """Store a 👍/👎 (with the comment box's text) for the rated answer; clear the comment.

        Only answers this server gave in this browser session can be rated: the rated message is looked
        up in the session's server-side ``answer_ids``, and the stored record carries the server's copy
        of question and answer, never text from the client.
        """
        rating = _rating(data.liked)
        index = data.index[0] if isinstance(data.index, (list, tuple)) else data.index
        exchange = liked_exchange(history, int(index)) if isinstance(index, int) else None
        if rating is None or exchange is None:
            return "", comment
        answer_id = (answer_ids or {}).get(answer_key(exchange[1]))
        if answer_id is None:
            return "Only answers given in this chat can be rated.", comment
        if (wait_s := _wait_s(self._guards.feedback_limiter, request)) > 0:
            return f"Too much feedback at once; try again in {max(1, round(wait_s))} s.", comment
        session = getattr(request, "session_hash", None) or "unknown"
        try:
            self._feedback.add(answer_id, rating, comment, face="web", session=session)
        except (StoreError, LookupError):
            log.exception("could not store feedback")
            return "Sorry, the feedback could not be saved; please try again.", comment
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


def build_chat(
    assistant: Assistant, feedback: FeedbackStore, *, concurrency: int, guards: ChatGuards | None = None
) -> gr.Blocks:
    """Build the chat page.

    Args:
        assistant: The app's assistant (thread-safe, shared by every session).
        feedback: Where 👍/👎 go.
        concurrency: Answers computed at once across all users (Gradio's default of 1 would make users
            wait for each other).
        guards: Rate limits, time budget and input caps; none when omitted.
    """
    handlers = ChatHandlers(assistant, feedback, guards)
    with gr.Blocks(title="gpu-advisor", analytics_enabled=False) as demo:
        answer_ids = gr.State({})
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
                    additional_inputs=[answer_ids],
                    additional_outputs=[visuals, answer_ids],
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
                        max_length=MAX_COMMENT_CHARS,
                        scale=4,
                        elem_id="gpa-comment",
                    )
                    status = gr.Markdown(elem_id="gpa-feedback-status")
            with gr.Column(scale=2, min_width=300, elem_id="gpa-visuals"):
                visuals.render()
        chatbot.like(handlers.like, [chatbot, comment, answer_ids], [status, comment], api_visibility="private")
    demo.queue(default_concurrency_limit=concurrency, max_size=concurrency * 8)
    return demo


def mount_chat(
    app: FastAPI, assistant: Assistant, feedback: FeedbackStore, *, concurrency: int, guards: ChatGuards | None = None
) -> None:
    """Mount the chat page at ``/`` of ``app`` (after the app's own routes, which keep precedence)."""
    demo = build_chat(assistant, feedback, concurrency=concurrency, guards=guards)
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
