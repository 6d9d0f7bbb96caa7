"""Pure rendering for the web chat: answers, tool steps and history, without any server.

Nothing here imports Gradio or touches a server, so every function is tested on plain data. The chat
(:mod:`ui.chat`) turns :class:`ChatStep` dicts into ``gr.ChatMessage`` objects; Gradio accepts the same
shape as a message dict, which is why the steps are plain dicts. The visuals panel (charts, the full
options table) is drawn by :mod:`ui.render_visuals`.

Links come from structured data only: citation markers link to ``Citation.sources`` with the source's
title on hover, and a URL a tool wrote into the text (a price source) becomes a short link to exactly
that URL, so punctuation next to it ("。", ")") never joins the link.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict
from urllib.parse import quote, urlsplit

from assistant.answer import Answer, Language, Message, ToolCall
from assistant.render import gpu_label, num, sources_markdown
from knowledge.models import Citation
from ui.render_visuals import (
    latest_plan,
    option_rows,
    options_table_html,
    parse_estimate,
    parse_plan,
    plan_prices,
)

MAX_RESULT_CHARS = 2_000
"""Tool results longer than this are cut in the step box; the full JSON is in the API's Answer."""
MAX_EXTRA_SOURCES = 2
ANSWER_START = '<span class="gpa-answer-start"></span>'
"""Marks a finished answer in the chat: the page scrolls its start into view (``ui/static/page.js``)."""

_MARKER = re.compile(r"(?<!\[)\[(\d{1,3})\](?![(:])")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


class StepMetadata(TypedDict):
    """What makes Gradio render a message as a collapsible step."""

    title: str
    status: Literal["pending", "done"]
    id: str
    duration: NotRequired[float]


class ChatStep(TypedDict):
    """One assistant message in Gradio's message format (``gr.ChatMessage`` fields)."""

    role: Literal["assistant"]
    content: str
    metadata: StepMetadata


# ---------------------------------------------------------------------------------------------- answer


def answer_markdown(answer: Answer) -> str:
    """Render an answer for the chat: first line first, details folded, links from structured data.

    ``[n]`` markers become numbered links with the source's title on hover; URLs a tool wrote into the
    text become short links; a Markdown options table the engine wrote is replaced by the compact
    table drawn from the plan itself (the full one is in the visuals panel). The offline engine's plain
    source list is replaced by a folded, linked one, so the chat shows the list once.
    """
    text = answer.text.rstrip()
    plain_sources = sources_markdown(answer.citations, answer.language)
    if plain_sources and text.endswith(plain_sources):
        text = text[: -len(plain_sources)].rstrip()
    compact = options_table_html(option_rows(answer), answer.language, full=False)
    known = _known_urls(answer)

    def body(markdown: str) -> str:
        return link_citations(_link_known_urls(markdown, known), answer.citations)

    # The compact table replaces the engine's options table in the answer; an options table in the folded
    # details is dropped, since the full sortable one is in the visuals panel (one table, never a wrapping
    # Markdown one).
    parts = [ANSWER_START + body(_replace_options_table(text, compact, answer))]
    for detail in answer.details:
        markdown = _replace_options_table(detail.markdown, "", answer, drop=True).strip()
        if markdown:
            parts.append(details_html(detail.title, body(markdown)))
    if answer.citations:
        n = len(answer.citations)
        title = f"参考资料（{n}）" if answer.language == "zh" else f"Sources ({n})"
        parts.append(details_html(title, sources_block(answer.citations, answer.language)))
    if answer.warnings:
        label = "注意" if answer.language == "zh" else "Note"
        parts.append("\n".join(f"> ⚠️ **{label}:** {w}" for w in answer.warnings))
    return "\n\n".join(parts)


def _replace_options_table(markdown: str, compact: str, answer: Answer, drop: bool = False) -> str:
    """Swap a Markdown table that lists the plan's instance types for the compact HTML one (or drop it)."""
    plan = latest_plan(answer)
    if plan is None or not (compact or drop):
        return markdown
    names = {o.instance_type for o in plan.options}
    lines = markdown.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|") and i + 1 < len(lines) and _TABLE_SEPARATOR.match(lines[i + 1]):
            end = i + 2
            while end < len(lines) and lines[end].lstrip().startswith("|"):
                end += 1
            block = "\n".join(lines[i:end])
            if any(name in block for name in names):
                out += ["", compact, ""] if compact else []
                compact = ""  # shown once
            else:
                out += lines[i:end]
            i = end
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def _known_urls(answer: Answer) -> list[str]:
    """URLs the answer's structured data names: citation sources and the plan's price sources."""
    urls = {url: None for cite in answer.citations for url in cite.sources}
    plan = latest_plan(answer)
    if plan is not None:
        urls.update(dict.fromkeys(plan_prices(plan)))
    return sorted(urls, key=len, reverse=True)  # longest first: a URL that extends another wins


def _link_known_urls(markdown: str, urls: Sequence[str]) -> str:
    """Turn each bare occurrence of a known URL into a short link to exactly that URL.

    The URL's end is where the known string ends, so "。" or ")" after it stays text. URLs already in a
    Markdown link (``](url``, ``<url>``) are left alone.
    """
    if not urls:
        return markdown
    pattern = re.compile(r"(?<![(<\w])(" + "|".join(re.escape(u) for u in urls) + r")(?![\w/%#?=&+-])")
    return pattern.sub(lambda m: f"[{_short_url(m.group(1))}]({_safe_url(m.group(1))})", markdown)


def details_html(title: str, markdown: str) -> str:
    """Fold a section in ``<details>``, with blank lines around the body so Markdown inside still renders."""
    return f"<details><summary>{html.escape(title)}</summary>\n\n{markdown.strip()}\n\n</details>"


def answer_text_with_sources(answer: Answer) -> str:
    """Return the answer's own text, its folded details as sections, and its plain numbered source list.

    For faces that show plain Markdown without links rendering (the OpenAI-compatible API).
    """
    plain_sources = sources_markdown(answer.citations, answer.language)
    text = answer.text.rstrip()
    for detail in answer.details:
        text += f"\n\n**{detail.title}**\n\n{detail.markdown.strip()}"
    if plain_sources and not text.endswith(plain_sources):
        text = f"{text}\n\n{plain_sources}"
    return text


def link_citations(text: str, citations: Sequence[Citation]) -> str:
    """Turn each ``[n]`` marker into a link to the first source of citation ``n``.

    Markers without a citation (or whose citation has no URL) stay as they are; existing links and
    reference definitions (``[1](...)``, ``[1]:``) are left alone.
    """

    def link(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if 1 <= n <= len(citations) and citations[n - 1].sources:
            cite = citations[n - 1]
            return f'[[{n}]]({_safe_url(cite.sources[0])} "{_link_title(cite)}")'
        return match.group(0)

    return _MARKER.sub(link, text)


def sources_block(citations: Sequence[Citation], lang: Language) -> str:
    """Numbered source list: document and section linked to its first source, a few more sources after."""
    lines = ["**参考资料：**" if lang == "zh" else "**Sources:**", ""]
    for n, cite in enumerate(citations, start=1):
        title = _md_text(f"{cite.doc_title} — {cite.section}")
        head = f'[{title}]({_safe_url(cite.sources[0])} "{_link_title(cite)}")' if cite.sources else title
        extra = [f"[{_short_url(url)}]({_safe_url(url)})" for url in cite.sources[1 : 1 + MAX_EXTRA_SOURCES]]
        more = f" · {', '.join(extra)}" if extra else ""
        lines.append(f"{n}. {head}{more}")
    return "\n".join(lines)


def _link_title(cite: Citation) -> str:
    """Return the hover text of a citation link: document, section and the host it links to."""
    host = urlsplit(cite.sources[0]).netloc.removeprefix("www.") if cite.sources else ""
    text = f"{cite.doc_title} — {cite.section}" + (f" ({host})" if host else "")
    return text.replace('"', "'").replace("\n", " ")


def _safe_url(url: str) -> str:
    # Spaces and parentheses would end a Markdown link early.
    return quote(url, safe=":/?#[]@!$&'*+,;=%~-._")


def _short_url(url: str, max_chars: int = 48) -> str:
    """``host/…/last-segment``: enough to tell sources on the same site apart."""
    parts = urlsplit(url)
    host = parts.netloc.removeprefix("www.") or url
    segments = [s for s in parts.path.split("/") if s]
    short = host if not segments else f"{host}/{'…/' if len(segments) > 1 else ''}{segments[-1]}"
    short = _md_text(short)
    return short if len(short) <= max_chars else short[: max_chars - 1] + "…"


def _md_text(text: str) -> str:
    return text.replace("[", "\\[").replace("]", "\\]")


# ---------------------------------------------------------------------------------------------- steps


def tool_step(call: ToolCall, index: int, *, done: bool, duration_s: float | None = None) -> ChatStep:
    """Render one tool call as a collapsible step: its inputs, a one-line summary and the result JSON.

    Args:
        call: The tool call (``result``/``error`` empty while it runs).
        index: Position of the call in the answer; makes the step's id unique within the message list.
        done: Whether the call finished.
        duration_s: Seconds the call took, shown by Gradio next to the title.
    """
    lines = ["**Input**", "```json", _json(call.args, MAX_RESULT_CHARS), "```"]
    if call.error:
        lines += ["", f"**Error:** {call.error}"]
    elif done:
        summary = result_summary(call)
        lines += ["", f"**Result:** {summary}" if summary else "**Result**", "```json"]
        lines += [_json(call.result, MAX_RESULT_CHARS), "```"]
    metadata: StepMetadata = {"title": tool_title(call), "status": "done" if done else "pending", "id": f"tool-{index}"}
    if duration_s is not None:
        metadata["duration"] = round(duration_s, 3)
    return {"role": "assistant", "content": "\n".join(lines), "metadata": metadata}


def tool_title(call: ToolCall, max_chars: int = 90) -> str:
    """Title of a step: ``🔧 name(key=value, ...)`` shortened to ``max_chars``."""
    args = ", ".join(f"{k}={v}" for k, v in call.args.items())
    title = f"🔧 {call.name}({args})"
    return title if len(title) <= max_chars else title[: max_chars - 2] + "…)"


def result_summary(call: ToolCall) -> str:
    """One line saying what a known tool found; empty for tools without a summary."""
    result = call.result
    if call.name == "plan_gpu_deployment" and (plan := parse_plan(result)) is not None:
        if not plan.options:
            return f"no option fits; {len(plan.rejected)} rejected"
        best = plan.options[0]
        return (
            f"{len(plan.options)} option(s), {len(plan.rejected)} rejected; first: `{best.instance_type}` "
            f"({best.instances} × {best.gpu_count} {gpu_label(best, 'en')}, headroom {num(best.headroom_pct)}%)"
        )
    if call.name == "estimate_gpu_memory" and (est := parse_estimate(result)) is not None:
        return f"{num(est.per_gpu_total_gib)} GiB per GPU over {est.num_gpus} GPU(s)"
    if call.name == "search_guidance" and isinstance(result, list):
        titles = [f"{p.get('doc_title', '?')} › {p.get('section', '?')}" for p in result if isinstance(p, dict)]
        return f"{len(titles)} passage(s): " + "; ".join(titles[:3]) if titles else "no passages"
    if isinstance(result, Mapping) and isinstance(result.get("count"), int):
        return f"{result['count']} match(es)"
    return ""


def _json(value: Any, limit: int) -> str:
    text = json.dumps(value, ensure_ascii=False, indent=1, default=str)
    if len(text) > limit:
        text = text[:limit] + f"\n… ({len(text) - limit:,} more characters)"
    return text


# ---------------------------------------------------------------------------------------------- history


def history_from_chat(messages: Sequence[Mapping[str, Any]]) -> list[Message]:
    """Convert the chat's messages (Gradio's format) into the assistant's history.

    Tool steps (messages with a ``metadata.title``) are dropped: they are display, not conversation.
    Content may be a string or a list of typed blocks (``{"type": "text", "text": ...}``); only text is
    kept.
    """
    history: list[Message] = []
    for item in messages:
        role = item.get("role")
        metadata = item.get("metadata") or {}
        if role not in ("user", "assistant") or metadata.get("title"):
            continue
        text = message_text(item.get("content"))
        if text:
            history.append(Message(role=role, content=text))
    return history


def message_text(content: Any) -> str:
    """Return the text of a chat message's content: a string, a text block or a list of blocks."""
    if isinstance(content, str):
        return content.replace(ANSWER_START, "").strip()
    if isinstance(content, Mapping):
        return str(content.get("text") or "").replace(ANSWER_START, "").strip()
    if isinstance(content, list):
        return "\n".join(t for block in content if (t := message_text(block))).strip()
    return ""


def _is_step(item: Mapping[str, Any]) -> bool:
    return bool((item.get("metadata") or {}).get("title"))


def liked_exchange(messages: Sequence[Mapping[str, Any]], index: int) -> tuple[str, str] | None:
    """Find the question and the final answer a 👍/👎 at ``messages[index]`` is about.

    The rated message may be a tool step of the answer: the answer is then the first non-step
    assistant message from ``index`` on; the question is the last user message before it.

    Returns:
        ``(question, answer)`` as displayed, or None when ``index`` is not inside an answer.
    """
    if not 0 <= index < len(messages):
        return None
    finals = (i for i in range(index, len(messages)) if messages[i].get("role") == "assistant")
    answer_at = next((i for i in finals if not _is_step(messages[i])), None)
    if answer_at is None or messages[index].get("role") != "assistant":
        return None
    users = (i for i in range(answer_at - 1, -1, -1) if messages[i].get("role") == "user")
    question = next((message_text(messages[i].get("content")) for i in users), "")
    return question, message_text(messages[answer_at].get("content"))
