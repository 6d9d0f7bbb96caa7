"""Pure rendering for the web chat: answers, tool steps, the memory chart and the options table.

Nothing here imports Gradio or touches a server, so every function is tested on plain data. The chat
(:mod:`ui.chat`) turns :class:`ChatStep` dicts into ``gr.ChatMessage`` objects; Gradio accepts the same
shape as a message dict, which is why the steps are plain dicts.

Numbers are copied from tool results as the tools gave them (:func:`assistant.render.num`); the chart
only scales bars, it states no figure a tool did not compute.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict
from urllib.parse import quote, urlsplit

from pydantic import BaseModel, ConfigDict, ValidationError

from assistant.answer import Answer, Language, Message, ToolCall
from assistant.render import gpu_label, num, sources_markdown
from knowledge.models import Citation
from tools.memory import MemoryBreakdown, MemoryEstimate
from tools.plan import Plan

MAX_RESULT_CHARS = 2_000
"""Tool results longer than this are cut in the step box; the full JSON is in the API's Answer."""
MAX_EXTRA_SOURCES = 2
MAX_CHART_BARS = 5

_MARKER = re.compile(r"(?<!\[)\[(\d{1,3})\](?![(:])")
_AS_OF = re.compile(r"as of (\d{4}-\d{2}(?:-\d{2})?)")
_URL = re.compile(r"https?://\S+")

_TERMS: tuple[tuple[str, str, str, str], ...] = (
    # field, English label, Chinese label, colour (colour-blind-safe Tableau 10)
    ("weights_gib", "weights", "权重", "#4e79a7"),
    ("kv_cache_gib", "KV cache", "KV 缓存", "#f28e2b"),
    ("activations_gib", "activations", "激活", "#59a14f"),
    ("gradients_gib", "gradients", "梯度", "#b07aa1"),
    ("optimizer_gib", "optimizer", "优化器状态", "#e15759"),
    ("other_gib", "other", "其他", "#9c755f"),
    ("overhead_gib", "overhead", "框架开销", "#bab0ac"),
)


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


class Segment(BaseModel):
    """One memory term of a bar, GiB per GPU."""

    model_config = ConfigDict(extra="forbid")

    term: str
    label: str
    gib: float
    color: str


class MemoryBar(BaseModel):
    """Per-GPU memory of one option (or of an estimate), against the GPU's usable memory when known."""

    model_config = ConfigDict(extra="forbid")

    label: str
    needed_gib: float
    capacity_gib: float | None
    headroom_pct: float | None
    segments: list[Segment]


class OptionRow(BaseModel):
    """One deployment option as the comparison table shows it."""

    model_config = ConfigDict(extra="forbid")

    instance_type: str
    gpu: str
    layout: str
    headroom_pct: float
    tight_fit: bool
    speed: float | None
    speed_kind: Literal["decode_tokens_per_s", "training_hours"]
    price_cny_per_hour: float | None
    price_cny_per_month: float | None
    price_as_of: str | None
    price_url: str | None


# ---------------------------------------------------------------------------------------------- answer


def answer_markdown(answer: Answer) -> str:
    """Render an answer for the chat: ``[n]`` markers as links, a linked source list, warnings.

    The offline engine appends its own plain source list; it is replaced by the linked one here so the
    chat shows the list once.
    """
    text = answer.text.rstrip()
    plain_sources = sources_markdown(answer.citations, answer.language)
    if plain_sources and text.endswith(plain_sources):
        text = text[: -len(plain_sources)].rstrip()
    parts = [link_citations(text, answer.citations)]
    parts += [details_html(d.title, link_citations(d.markdown, answer.citations)) for d in answer.details]
    if answer.citations:
        parts.append(sources_block(answer.citations, answer.language))
    if answer.warnings:
        label = "注意" if answer.language == "zh" else "Note"
        parts.append("\n".join(f"> ⚠️ **{label}:** {w}" for w in answer.warnings))
    return "\n\n".join(parts)


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
            return f"[[{n}]]({_safe_url(citations[n - 1].sources[0])})"
        return match.group(0)

    return _MARKER.sub(link, text)


def sources_block(citations: Sequence[Citation], lang: Language) -> str:
    """Numbered source list: document and section linked to its first source, a few more sources after."""
    lines = ["**参考资料：**" if lang == "zh" else "**Sources:**", ""]
    for n, cite in enumerate(citations, start=1):
        title = _md_text(f"{cite.doc_title} — {cite.section}")
        head = f"[{title}]({_safe_url(cite.sources[0])})" if cite.sources else title
        extra = [f"[{_short_url(url)}]({_safe_url(url)})" for url in cite.sources[1 : 1 + MAX_EXTRA_SOURCES]]
        more = f" · {', '.join(extra)}" if extra else ""
        lines.append(f"{n}. {head}{more}")
    return "\n".join(lines)


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
    if call.name == "plan_gpu_deployment" and (plan := _plan(result)) is not None:
        if not plan.options:
            return f"no option fits; {len(plan.rejected)} rejected"
        best = plan.options[0]
        return (
            f"{len(plan.options)} option(s), {len(plan.rejected)} rejected; first: `{best.instance_type}` "
            f"({best.instances} × {best.gpu_count} {gpu_label(best, 'en')}, headroom {num(best.headroom_pct)}%)"
        )
    if call.name == "estimate_gpu_memory" and (est := _estimate(result)) is not None:
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
        return content.strip()
    if isinstance(content, Mapping):
        return str(content.get("text") or "").strip()
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


# ---------------------------------------------------------------------------------------------- visuals


def _plan(result: Any) -> Plan | None:
    try:
        return Plan.model_validate(result) if isinstance(result, Mapping) else None
    except ValidationError:
        return None


def _estimate(result: Any) -> MemoryEstimate | None:
    try:
        return MemoryEstimate.model_validate(result) if isinstance(result, Mapping) else None
    except ValidationError:
        return None


def latest_plan(answer: Answer) -> Plan | None:
    """Return the last deployment plan the answer's tools produced, if any."""
    for call in reversed(answer.tool_calls):
        if call.name == "plan_gpu_deployment" and not call.error and (plan := _plan(call.result)) is not None:
            return plan
    return None


def latest_estimate(answer: Answer) -> MemoryEstimate | None:
    """Return the last memory estimate the answer's tools produced, if any."""
    for call in reversed(answer.tool_calls):
        if call.name == "estimate_gpu_memory" and not call.error and (est := _estimate(call.result)) is not None:
            return est
    return None


def has_visuals(answer: Answer) -> bool:
    """Whether the answer has a plan or an estimate to draw."""
    return latest_plan(answer) is not None or latest_estimate(answer) is not None


def memory_bars(answer: Answer, max_bars: int = MAX_CHART_BARS) -> list[MemoryBar]:
    """Chart data: one bar per plan option (per GPU, against its capacity), else one for the estimate."""
    lang = answer.language
    plan = latest_plan(answer)
    if plan is not None and plan.options:
        return [
            MemoryBar(
                label=f"{o.instance_type} · {o.total_gpus} × {gpu_label(o, lang)}",
                needed_gib=o.per_gpu_gib_needed,
                capacity_gib=o.per_gpu_capacity_gib,
                headroom_pct=o.headroom_pct,
                segments=_segments(o.memory, lang),
            )
            for o in plan.options[:max_bars]
        ]
    est = latest_estimate(answer)
    if est is None:
        return []
    return [
        MemoryBar(
            label=f"{est.model} · {est.task} · {est.layout}",
            needed_gib=est.per_gpu_total_gib,
            capacity_gib=None,
            headroom_pct=None,
            segments=_segments(est.per_gpu, lang),
        )
    ]


def _segments(memory: MemoryBreakdown, lang: Language) -> list[Segment]:
    values = memory.model_dump()
    return [
        Segment(term=field, label=zh if lang == "zh" else en, gib=values[field], color=color)
        for field, en, zh, color in _TERMS
        if values.get(field, 0) > 0
    ]


def memory_chart_html(bars: Sequence[MemoryBar], lang: Language) -> str:
    """Stacked horizontal bars (inline HTML/CSS, no script, works offline) with a capacity marker.

    Every bar shares one scale, so options on GPUs of different sizes compare at a glance.
    """
    if not bars:
        return ""
    scale = max(max(b.capacity_gib or 0, b.needed_gib, sum(s.gib for s in b.segments)) for b in bars) or 1.0
    title = "每卡显存构成 (GiB)" if lang == "zh" else "Memory per GPU (GiB)"
    out = [f'<div class="gpa-chart" role="figure" aria-label="{html.escape(title)}">', f"<h4>{html.escape(title)}</h4>"]
    for bar in bars:
        out.append(_bar_html(bar, scale, lang))
    terms = {s.term: s for b in bars for s in b.segments}
    legend = "".join(
        f'<span class="gpa-key"><i style="background:{color}"></i>{html.escape(zh if lang == "zh" else en)}</span>'
        for field, en, zh, color in _TERMS
        if field in terms
    )
    free = "可用余量" if lang == "zh" else "free"
    legend += f'<span class="gpa-key"><i class="gpa-free"></i>{free}</span>'
    out.append(f'<div class="gpa-axis"><span>0</span><span>{num(scale)} GiB</span></div>')
    out.append(f'<div class="gpa-legend">{legend}</div></div>')
    return "".join(out)


def _bar_html(bar: MemoryBar, scale: float, lang: Language) -> str:
    cells = "".join(
        f'<div class="gpa-seg" style="width:{100 * s.gib / scale:.3f}%;background:{s.color}" '
        f'title="{html.escape(s.label)}: {num(s.gib)} GiB"></div>'
        for s in bar.segments
    )
    marker = ""
    if bar.capacity_gib:
        cap = "可用" if lang == "zh" else "usable"
        marker = (
            f'<div class="gpa-cap" style="left:{100 * bar.capacity_gib / scale:.3f}%" '
            f'title="{cap}: {num(bar.capacity_gib)} GiB"></div>'
        )
        free_width = max(0.0, 100 * (bar.capacity_gib - sum(s.gib for s in bar.segments)) / scale)
        cells += f'<div class="gpa-seg gpa-free" style="width:{free_width:.3f}%"></div>'
    if bar.capacity_gib is not None:
        head = "余量" if lang == "zh" else "headroom"
        figures = f"{num(bar.needed_gib)} / {num(bar.capacity_gib)} GiB · {head} {num(bar.headroom_pct)}%"
    else:
        figures = f"{num(bar.needed_gib)} GiB"
    return (
        f'<div class="gpa-row"><div class="gpa-label"><span>{html.escape(bar.label)}</span>'
        f"<b>{figures}</b></div>"
        f'<div class="gpa-track">{cells}{marker}</div></div>'
    )


def option_rows(answer: Answer) -> list[OptionRow]:
    """Table data: the options of the answer's latest plan, with the as-of date of each price."""
    plan = latest_plan(answer)
    if plan is None:
        return []
    training = plan.workload.task != "inference"
    rows = []
    for o in plan.options:
        source = o.price_source or ""
        as_of = _AS_OF.search(source)
        url = _URL.search(source)
        rows.append(
            OptionRow(
                instance_type=o.instance_type,
                gpu=gpu_label(o, answer.language),
                layout=f"{o.instances} × {o.gpu_count}",
                headroom_pct=o.headroom_pct,
                tight_fit=o.tight_fit,
                speed=o.training_hours if training else o.decode_tokens_per_s,
                speed_kind="training_hours" if training else "decode_tokens_per_s",
                price_cny_per_hour=o.price_cny_per_hour,
                price_cny_per_month=o.price_cny_per_month,
                price_as_of=as_of.group(1) if as_of else None,
                price_url=url.group(0).rstrip(".,;") if url else None,
            )
        )
    return rows


def options_table_markdown(rows: Sequence[OptionRow], lang: Language) -> str:
    """Render the options comparison as a Markdown table; the price date links to the price source."""
    if not rows:
        return ""
    zh = lang == "zh"
    training = rows[0].speed_kind == "training_hours"
    speed = ("训练时长 (h)" if zh else "training (h)") if training else ("解码 tok/s" if zh else "decode tok/s")
    head = (
        f"| 实例规格 | GPU | 台数 × 卡数 | 余量 | {speed} | ¥/小时 | ¥/月 | 价格日期 |"
        if zh
        else f"| instance | GPU | instances × GPUs | headroom | {speed} | ¥/h | ¥/month | price as of |"
    )
    lines = ["**方案对比**" if zh else "**Options compared**", "", head, "|---|---|---|--:|--:|--:|--:|---|"]
    for row in rows:
        tight = " ⚠" if row.tight_fit else ""
        as_of = row.price_as_of or "—"
        if row.price_url and row.price_as_of:
            as_of = f"[{row.price_as_of}]({_safe_url(row.price_url)})"
        lines.append(
            f"| {row.instance_type} | {_md_text(row.gpu)} | {row.layout} | {num(row.headroom_pct)}%{tight} | "
            f"{_dash(row.speed)} | {_dash(row.price_cny_per_hour)} | {_dash(row.price_cny_per_month)} | {as_of} |"
        )
    return "\n".join(lines)


def _dash(value: float | None) -> str:
    return "—" if value is None else num(value)


CHART_CSS = """
.gpa-chart{font-size:13px;line-height:1.35}
.gpa-chart h4{margin:0 0 8px;font-size:14px}
.gpa-row{margin:0 0 10px}
.gpa-label{display:flex;justify-content:space-between;align-items:baseline;gap:8px}
.gpa-label span{flex:1;min-width:0;overflow-wrap:anywhere}
.gpa-label b{white-space:nowrap}
.gpa-axis{display:flex;justify-content:space-between;font-size:11px;color:var(--body-text-color-subdued,#6b7280)}
.gpa-track{position:relative;display:flex;height:18px;border-radius:3px;background:var(--neutral-100,#f3f4f6)}
.gpa-seg{height:100%}
.gpa-free,.gpa-key i.gpa-free{background:repeating-linear-gradient(45deg,#e5e7eb 0 4px,#f9fafb 4px 8px)}
.gpa-cap{position:absolute;top:-3px;bottom:-3px;width:2px;background:#111827}
.gpa-legend{display:flex;flex-wrap:wrap;gap:4px 12px;margin-top:6px}
.gpa-key i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px;vertical-align:-1px}
"""
"""Styles of :func:`memory_chart_html`; the page adds them once (Gradio 6 takes css in ``mount_gradio_app``)."""
