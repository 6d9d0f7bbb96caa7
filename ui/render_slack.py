"""An ``Answer`` as a Slack message: Block Kit blocks plus the plain ``text`` fallback. Pure functions.

Slack is not Markdown: bold is ``*x*``, links are ``<url|text>``, there are no headings and no tables, and
``&``, ``<``, ``>`` must be escaped. Messages are limited to 50 blocks, 3,000 characters per section or
context text, 2,000 per field and 10 fields per section; whatever does not fit is cut with "…".
Layout, answer first: the first paragraph (it answers the question), the plan's options as fields when
the answer came from the planner, the rest of the text, then small context text: what does not fit
and why (for a refusal), the folded details, the numbered citations and the warnings.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from assistant.answer import Answer, Language
from assistant.render import gpu_label, num
from knowledge.models import Citation
from tools.plan import DeploymentOption, Plan
from ui.render_visuals import RefusalBar, refusal_bars, refused_plan

log = logging.getLogger(__name__)

MAX_BLOCKS = 50
MAX_TEXT_CHARS = 3000
MAX_FIELD_CHARS = 2000
MAX_FIELDS = 10
MAX_OPTIONS = 5
ELLIPSIS = "…"
PLAN_TOOL = "plan_gpu_deployment"
TABLE_MARK = "\x02table\x02"

Block = dict[str, Any]

# The offline engine ends its text with this list; the context block shows the same links.
_SOURCES_HEADINGS = ("**Sources:**", "**参考资料：**")
_FENCE = "```"
_PLACEHOLDER = re.compile("\x00(\\d+)\x00")
_CODE_OR_LINK = re.compile(r"`[^`\n]+`|\[([^\]\n]+)\]\((\S+?)\)")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC = re.compile(r"(?<![*\w])\*(?=[^\s*])([^*\n]+?)(?<=\S)\*(?![*\w])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+")
_RULE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_BOLD_MARK = "\x01"

_LABELS: dict[str, dict[Language, str]] = {
    "options": {"en": "Options", "zh": "可选方案"},
    "recommended": {"en": "recommended", "zh": "推荐"},
    "gpu": {"en": "GPU", "zh": "GPU"},
    "gpus": {"en": "Instances × GPUs", "zh": "台数 × 卡数"},
    "tp": {"en": "TP", "zh": "张量并行"},
    "memory": {"en": "Per-GPU need / usable", "zh": "每卡需要 / 可用"},
    "headroom": {"en": "headroom", "zh": "余量"},
    "tight": {"en": "tight", "zh": "偏紧"},
    "price": {"en": "Price", "zh": "价格"},
    "per_hour": {"en": "/h", "zh": "/小时"},
    "per_month": {"en": "/month", "zh": "/月"},
    "decode": {"en": "Decode", "zh": "解码吞吐"},
    "training": {"en": "Training time", "zh": "训练时长"},
    "sources": {"en": "Sources", "zh": "参考资料"},
    "truncated": {
        "en": "The answer is longer than a Slack message allows; the rest was cut.",
        "zh": "回答超出 Slack 消息长度上限，其余部分已截断。",
    },
    "more_options": {"en": "more options not shown", "zh": "个方案未显示"},
    "does_not_fit": {
        "en": "does not fit: needs {need} of {cap} GiB per GPU",
        "zh": "放不下：每卡需要 {need} GiB，只有 {cap} GiB",
    },
}


def to_slack_blocks(answer: Answer) -> list[Block]:
    """Render an answer as Block Kit blocks that respect Slack's limits.

    When the answer has a successful ``plan_gpu_deployment`` call, its options are shown as section
    ``fields`` in place of the Markdown options table (or after the summary when the text has no table).

    Args:
        answer: The assistant's answer.

    Returns:
        At most 50 blocks: summary sections, the options, a context block with numbered citation links
        and one with the warnings.
    """
    lang = answer.language
    plan = _plan_of(answer)
    tail: list[Block] = []
    # Slack has no folding; details go in small print after the answer, one context block each.
    tail += _details_blocks(answer)
    if answer.citations:
        tail.append(_context(_citations_mrkdwn(answer.citations, lang)))
    if answer.warnings:
        tail.append(_context("\n".join(f":warning: {inline_mrkdwn(w)}" for w in answer.warnings)))
    if (refused := refused_plan(answer)) is not None and (bars := refusal_bars(refused)):
        tail.insert(0, _context("\n".join(_refusal_line(bar, lang) for bar in bars)))
    body = markdown_to_mrkdwn(_without_sources(answer), tables="mark" if plan is not None else "code")
    # Answer first: the first paragraph answers the question, then the options, then everything else.
    summary, _, remainder = body.strip().partition("\n\n")
    options = _option_blocks(plan, lang, titled=True) if plan is not None else []
    head = [_section(chunk) for chunk in split_mrkdwn(summary.replace(TABLE_MARK, ""), MAX_TEXT_CHARS)]
    rest = [_section(chunk) for chunk in split_mrkdwn(remainder.replace(TABLE_MARK, ""), MAX_TEXT_CHARS)]
    excess = len(head) + len(options) + len(rest) + len(tail) - MAX_BLOCKS
    if excess > 0:
        # Cut prose from the end, keep the options and the sources; one block says so.
        cut_rest = min(len(rest), excess + 1)
        rest = rest[: len(rest) - cut_rest]
        head = head[: len(head) - (excess + 1 - cut_rest)]
        rest.append(_context(_LABELS["truncated"][lang]))
    return (head + options + rest + tail)[:MAX_BLOCKS]


def to_slack_text(answer: Answer) -> str:
    """Render the ``text`` that goes with the blocks: the whole answer as mrkdwn, cut to 3,000 characters.

    Slack shows it in notifications and where blocks cannot be shown; the bot also reads it back from
    the thread as the assistant's earlier turn.
    """
    return clip(markdown_to_mrkdwn(answer.text), MAX_TEXT_CHARS)


def clip(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, ending in "…" when something was cut."""
    if len(text) <= limit:
        return text
    return text[: limit - len(ELLIPSIS)].rstrip() + ELLIPSIS


# ------------------------------------------------------------------------------------------ markdown


def markdown_to_mrkdwn(markdown: str, *, tables: str = "code") -> str:
    """Convert the Markdown the engines write into Slack mrkdwn.

    Args:
        markdown: Markdown text (bold, italics, links, headings, lists, quotes, tables, code).
        tables: ``"code"`` renders tables as aligned code blocks; ``"mark"`` puts a ``TABLE_MARK`` line in
            their place, so the caller can show the same data another way.
    """
    out: list[str] = []
    lines = markdown.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(_FENCE):
            end = _fence_end(lines, i)
            out += [_escape(x) for x in lines[i : end + 1]]
            i = end + 1
        elif _is_table_start(lines, i):
            end = i + 2
            while end < len(lines) and lines[end].strip().startswith("|"):
                end += 1
            out.append(_table_code(lines[i:end]) if tables == "code" else TABLE_MARK)
            i = end
        else:
            out.append(_line_mrkdwn(line))
            i += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def inline_mrkdwn(text: str) -> str:
    """Convert one line's inline Markdown: escapes, links, bold, italics, strike-through; code kept."""
    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            label = match.group(1).replace("|", "¦")
            kept.append(f"<{match.group(2)}|{_escape(label)}>")
        else:
            kept.append(_escape(match.group(0)))
        return f"\x00{len(kept) - 1}\x00"

    text = _escape(_CODE_OR_LINK.sub(keep, text))
    text = _BOLD.sub(lambda m: f"{_BOLD_MARK}{m.group(1) or m.group(2)}{_BOLD_MARK}", text)
    text = _ITALIC.sub(r"_\1_", text)
    text = _STRIKE.sub(r"~\1~", text)
    text = _space_bold_marks(text)
    return _PLACEHOLDER.sub(lambda m: kept[int(m.group(1))], text)


def split_mrkdwn(text: str, limit: int) -> list[str]:
    """Split mrkdwn into pieces of at most ``limit`` characters at paragraph breaks; code stays fenced."""
    chunks: list[str] = []
    current = ""
    for para in _paragraphs(text):
        for piece in _fit(para, limit):
            if current and len(current) + 2 + len(piece) > limit:
                chunks.append(current)
                current = piece
            else:
                current = f"{current}\n\n{piece}" if current else piece
    if current:
        chunks.append(current)
    return chunks


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _line_mrkdwn(line: str) -> str:
    if _RULE.match(line):
        return "────────"
    if heading := _HEADING.match(line):
        return f"*{_plain_inline(heading.group(1))}*"
    if line.lstrip().startswith(">"):
        return "> " + inline_mrkdwn(line.lstrip()[1:].lstrip())
    if bullet := _BULLET.match(line):
        return f"{bullet.group(1)}• " + inline_mrkdwn(line[bullet.end() :])
    return inline_mrkdwn(line)


def _plain_inline(text: str) -> str:
    """Inline mrkdwn without bold markers, for text that is wrapped in bold as a whole."""
    return inline_mrkdwn(_BOLD.sub(lambda m: m.group(1) or m.group(2), text)).replace("*", "")


def _space_bold_marks(text: str) -> str:
    # Slack renders *bold* only at word boundaries: "*方案*（" stays literal, "*方案* （" is bold.
    def spaced(match: re.Match[str]) -> str:
        before, inner, after = match.group(1), match.group(2), match.group(3)
        lead = " " if before and not _boundary(before) else ""
        trail = " " if after and not _boundary(after) else ""
        return f"{before}{lead}*{inner}*{trail}{after}"

    return re.sub(f"(.?){_BOLD_MARK}([^{_BOLD_MARK}]+){_BOLD_MARK}(.?)", spaced, text)


def _boundary(char: str) -> bool:
    return char.isspace() or (char.isascii() and not char.isalnum())


def _fence_end(lines: list[str], start: int) -> int:
    for j in range(start + 1, len(lines)):
        if lines[j].lstrip().startswith(_FENCE):
            return j
    return len(lines) - 1


def _is_table_start(lines: list[str], i: int) -> bool:
    return lines[i].strip().startswith("|") and i + 1 < len(lines) and bool(_TABLE_SEPARATOR.match(lines[i + 1]))


def _cells(row: str) -> list[str]:
    row = row.strip().removeprefix("|").removesuffix("|")
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)]
    return [_escape(_strip_inline(c)) for c in cells]


def _strip_inline(text: str) -> str:
    text = re.sub(r"\[([^\]\n]+)\]\((\S+?)\)", r"\1", text)
    return text.replace("**", "").replace("`", "").replace("\\|", "|")


def _width(text: str) -> int:
    # CJK characters take two columns in a monospace font.
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _table_code(rows: list[str]) -> str:
    table = [_cells(rows[0])] + [_cells(r) for r in rows[2:]]
    columns = max(len(r) for r in table)
    table = [r + [""] * (columns - len(r)) for r in table]
    widths = [max(_width(r[c]) for r in table) for c in range(columns)]

    def render(row: list[str]) -> str:
        return "  ".join(cell + " " * (widths[c] - _width(cell)) for c, cell in enumerate(row)).rstrip()

    rule = "  ".join("-" * w for w in widths)
    body = [render(table[0]), rule, *(render(r) for r in table[1:])]
    return "\n" + _FENCE + "\n" + "\n".join(body) + "\n" + _FENCE + "\n"


def _paragraphs(text: str) -> Iterator[str]:
    current: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith(_FENCE):
            fenced = not fenced
        if not line.strip() and not fenced:
            if current:
                yield "\n".join(current)
            current = []
        else:
            current.append(line)
    if current:
        yield "\n".join(current)


def _fit(para: str, limit: int) -> list[str]:
    """Cut one paragraph into pieces of at most ``limit`` characters, at line breaks where possible."""
    if len(para) <= limit:
        return [para]
    fenced = para.startswith(_FENCE) and para.rstrip().endswith(_FENCE) and len(para) > 6
    body = para[3:].rstrip()[:-3].strip("\n") if fenced else para
    room = limit - 8 if fenced else limit
    pieces: list[str] = []
    current = ""
    for line in body.split("\n"):
        line = clip(line, room)
        if current and len(current) + 1 + len(line) > room:
            pieces.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    pieces.append(current)
    return [f"{_FENCE}\n{p}\n{_FENCE}" for p in pieces] if fenced else pieces


def _without_sources(answer: Answer) -> str:
    """Return the answer's Markdown without its source list when the citations block replaces it."""
    if not answer.citations:
        return answer.text
    kept = [p for p in re.split(r"\n\s*\n", answer.text) if p.strip().split("\n")[0] not in _SOURCES_HEADINGS]
    return "\n\n".join(kept)


# ------------------------------------------------------------------------------------------ blocks


def _section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(text, MAX_TEXT_CHARS)}}


def _context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": clip(text, MAX_TEXT_CHARS)}]}


def _plan_of(answer: Answer) -> Plan | None:
    """Return the last successful plan among the answer's tool calls, if it has options."""
    for call in reversed(answer.tool_calls):
        if call.name != PLAN_TOOL or call.error is not None or not isinstance(call.result, dict):
            continue
        try:
            plan = Plan.model_validate(call.result)
        except ValidationError:
            log.warning("plan tool result does not match Plan; options not shown as fields", exc_info=True)
            return None
        return plan if plan.options else None
    return None


def _option_blocks(plan: Plan, lang: Language, *, titled: bool) -> list[Block]:
    blocks: list[Block] = []
    if titled:  # the text's own "Options" line introduces the fields when they replace its table
        blocks += [{"type": "divider"}, _section(f"*{_LABELS['options'][lang]}* ({_escape(plan.model)})")]
    for i, option in enumerate(plan.options[:MAX_OPTIONS]):
        star = f"  ★ {_LABELS['recommended'][lang]}" if i == 0 else ""
        blocks.append(
            {
                "type": "section",
                "text": {"type": "mrkdwn", "text": clip(f"*{i + 1}.* `{option.instance_type}`{star}", MAX_TEXT_CHARS)},
                "fields": _option_fields(option, plan.workload.task != "inference", lang)[:MAX_FIELDS],
            }
        )
    hidden = len(plan.options) - MAX_OPTIONS
    if hidden > 0:
        blocks.append(_context(f"+{hidden} {_LABELS['more_options'][lang]}"))
    return blocks


def _option_fields(option: DeploymentOption, training: bool, lang: Language) -> list[Block]:
    labels = _LABELS
    tight = f" :warning: {labels['tight'][lang]}" if option.tight_fit else ""
    fields = [
        (labels["gpu"][lang], gpu_label(option, lang)),
        (
            labels["gpus"][lang],
            f"{option.instances} × {option.gpu_count} ({labels['tp'][lang]} {option.tensor_parallel})",
        ),
        (
            labels["memory"][lang],
            f"{num(option.per_gpu_gib_needed)} / {num(option.per_gpu_capacity_gib)} GiB · "
            f"{labels['headroom'][lang]} {num(option.headroom_pct)}%{tight}",
        ),
        (labels["price"][lang], _price(option, lang)),
    ]
    if training:
        fields.append((labels["training"][lang], f"{num(option.training_hours, lang)} h"))
    else:
        fields.append((labels["decode"][lang], f"{num(option.decode_tokens_per_s, lang)} tok/s"))
    return [
        {"type": "mrkdwn", "text": clip(f"*{label}*\n{_escape(value)}", MAX_FIELD_CHARS)} for label, value in fields
    ]


def _price(option: DeploymentOption, lang: Language) -> str:
    parts = []
    if option.price_cny_per_hour is not None:
        parts.append(f"¥{num(option.price_cny_per_hour)}{_LABELS['per_hour'][lang]}")
    if option.price_cny_per_month is not None:
        parts.append(f"¥{num(option.price_cny_per_month)}{_LABELS['per_month'][lang]}")
    return " · ".join(parts) or num(None, lang)


def _details_blocks(answer: Answer) -> list[Block]:
    """Each folded detail as small print after a divider: its title, then its text in context blocks.

    A long detail is split at paragraph breaks into several blocks rather than cut at 3,000 characters.
    """
    blocks: list[Block] = []
    for detail in answer.details:
        text = f"*{inline_mrkdwn(detail.title)}*\n{markdown_to_mrkdwn(detail.markdown)}"
        blocks += [_context(chunk) for chunk in split_mrkdwn(text, MAX_TEXT_CHARS)]
    return [{"type": "divider"}, *blocks] if blocks else []


def _refusal_line(bar: RefusalBar, lang: Language) -> str:
    verdict = _LABELS["does_not_fit"][lang].format(need=num(bar.needed_gib), cap=num(bar.capacity_gib))
    return f":x: `{_escape(bar.label)}` {verdict}"


def _citations_mrkdwn(citations: list[Citation], lang: Language) -> str:
    lines = [f"*{_LABELS['sources'][lang]}*"]
    for n, cite in enumerate(citations, start=1):
        label = _escape(f"{cite.doc_title} — {cite.section}").replace("|", "¦")
        lines.append(f"[{n}] <{cite.sources[0]}|{label}>" if cite.sources else f"[{n}] {label}")
    return "\n".join(lines)
