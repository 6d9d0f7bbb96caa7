"""Pure HTML for an answer's visuals: memory chart, options table and cards, comparison and refusal bars.

Everything is drawn from the typed tool results an ``Answer`` carries (``Plan``, ``MemoryEstimate``,
``GPU``), never from its text. Numbers are shown as the tools gave them (:func:`assistant.render.num`);
bars only scale them. No script here: sorting is one delegated click handler of the page
(``ui/static/page.js``, inlined by :func:`ui.chat.page_head`); cards are a CSS media query.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from assistant.answer import Answer, Language
from assistant.render import gpu_label, num
from tools.catalog import GPU
from tools.memory import MemoryBreakdown, MemoryEstimate
from tools.plan import DeploymentOption, Plan, Rejection

MAX_CHART_BARS = 5
MAX_REFUSAL_BARS = 3

_AS_OF = re.compile(r"as of (\d{4}-\d{2}(?:-\d{2})?)")
_URL = re.compile(r"https?://[^\s;]+")
# The planner's fixed wording for a layout that does not fit (tools/plan.py); numbers only, never shown as text.
_PAREN = re.compile(r"\s*[(（][^)）]*[)）]")

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
_SPEC_BARS: tuple[tuple[str, str, str], ...] = (
    # GPU field, English label, Chinese label: the figures that decide LLM training and serving speed
    ("bf16_dense_tflops", "BF16 dense TFLOPS", "BF16 稠密算力 TFLOPS"),
    ("memory_bandwidth_gb_s", "memory bandwidth GB/s", "显存带宽 GB/s"),
    ("memory_gib", "memory GiB", "显存 GiB"),
)

_L: dict[str, tuple[str, str]] = {
    # key: (English, Chinese)
    "instance": ("instance", "实例规格"),
    "gpu": ("GPU", "GPU"),
    "gpus": ("inst. × GPUs", "台 × 卡"),
    "need": ("GiB/GPU need / usable", "每卡 GiB 需要 / 可用"),
    "headroom": ("headroom %", "余量 %"),
    "decode": ("decode tok/s", "解码 tok/s"),
    "training": ("training h", "训练 h"),
    "per_hour": ("¥/h", "¥/小时"),
    "per_month": ("¥/month", "¥/月"),
    "per_mtok": ("¥/M tokens", "¥/百万 tokens"),
    "as_of": ("price as of", "价格日期"),
    "compared": ("Options compared", "方案对比"),
    "sort": ("click a column to sort", "点击列名排序"),
    "memory": ("Memory per GPU (GiB)", "每卡显存构成 (GiB)"),
    "cost_speed": ("Cost and speed per option", "各方案成本与速度"),
    "specs": ("GPUs compared", "GPU 对比"),
    "refusal": ("Does not fit", "放不下"),
    "needs_of": ("needs {need} of {cap} GiB per GPU", "每卡需要 {need} GiB，只有 {cap} GiB"),
    "usable": ("usable", "可用"),
    "free": ("free", "可用余量"),
    "tight": ("tight", "偏紧"),
    "confidence": ("GPU confidence", "GPU 置信度"),
    "likely": ("not named by Alibaba; likely", "阿里云未公开型号，推测"),
}


def _t(key: str, lang: Language) -> str:
    en, zh = _L[key]
    return zh if lang == "zh" else en


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
    """One deployment option as the tables show it."""

    model_config = ConfigDict(extra="forbid")

    instance_type: str
    gpu: str
    gpu_full: str
    layout: str
    needed_gib: float
    capacity_gib: float
    headroom_pct: float
    tight_fit: bool
    speed: float | None
    speed_kind: Literal["decode_tokens_per_s", "training_hours"]
    price_cny_per_hour: float | None
    price_cny_per_month: float | None
    cost_cny_per_million_tokens: float | None
    price_as_of: str | None
    price_url: str | None


class RefusalBar(BaseModel):
    """One layout the planner rejected for memory: what it needs per GPU against what one GPU offers."""

    model_config = ConfigDict(extra="forbid")

    label: str
    needed_gib: float
    capacity_gib: float


# ------------------------------------------------------------------------------------------ tool results


def parse_plan(result: Any) -> Plan | None:
    try:
        return Plan.model_validate(result) if isinstance(result, Mapping) else None
    except ValidationError:
        return None


def parse_estimate(result: Any) -> MemoryEstimate | None:
    try:
        return MemoryEstimate.model_validate(result) if isinstance(result, Mapping) else None
    except ValidationError:
        return None


def parse_gpu(result: Any) -> GPU | None:
    try:
        return GPU.model_validate(result) if isinstance(result, Mapping) else None
    except ValidationError:
        return None


def latest_plan(answer: Answer) -> Plan | None:
    """Return the last deployment plan the answer's tools produced, if any."""
    for call in reversed(answer.tool_calls):
        if call.name == "plan_gpu_deployment" and not call.error and (plan := parse_plan(call.result)) is not None:
            return plan
    return None


def latest_estimate(answer: Answer) -> MemoryEstimate | None:
    """Return the last memory estimate the answer's tools produced, if any."""
    for call in reversed(answer.tool_calls):
        if call.name == "estimate_gpu_memory" and not call.error and (est := parse_estimate(call.result)) is not None:
            return est
    return None


def compared_gpus(answer: Answer) -> list[GPU]:
    """GPUs the answer looked up with ``gpu_specs``, once each, in order (a comparison has two or more)."""
    seen: dict[str, GPU] = {}
    for call in answer.tool_calls:
        if call.name == "gpu_specs" and not call.error and (gpu := parse_gpu(call.result)) is not None:
            seen.setdefault(gpu.name, gpu)
    return list(seen.values())


def plan_prices(plan: Plan) -> list[str]:
    """Every price-source URL of the plan's options, once each (price_source ends in 'URL ; URL')."""
    urls: dict[str, None] = {}
    for o in plan.options:
        for url in _URL.findall(o.price_source or ""):
            urls.setdefault(url.rstrip(".,"), None)
    return list(urls)


def refused_plan(answer: Answer) -> Plan | None:
    """Return the first plan the answer's tools made in which no option fits (the refusal), if any."""
    for call in answer.tool_calls:
        if call.name == "plan_gpu_deployment" and not call.error and (plan := parse_plan(call.result)) is not None:
            if not plan.options:
                return plan
    return None


def has_visuals(answer: Answer) -> bool:
    """Whether the answer has something to draw: a plan (options or a refusal), an estimate, compared GPUs."""
    return latest_plan(answer) is not None or latest_estimate(answer) is not None or len(compared_gpus(answer)) >= 2


# ------------------------------------------------------------------------------------------ labels


def short_gpu(option: DeploymentOption, lang: Language) -> str:
    """Return a GPU name that fits a table cell: "A100-80GB?" for an inferred one, parentheses dropped."""
    if option.gpu_model:
        return _PAREN.sub("", option.gpu_model).strip()
    if option.gpu_model_likely:
        return _PAREN.sub("", option.gpu_model_likely).strip() + "?"
    return num(None, lang)


def full_gpu(option: DeploymentOption, lang: Language) -> str:
    """Return the whole GPU label with its confidence, for the tooltip and the card's detail line."""
    label = gpu_label(option, lang)
    if not option.gpu_model and option.gpu_model_likely:
        label = f"{label} — {_t('likely', lang)}"
    return f"{label} · {_t('confidence', lang)}: {option.gpu_confidence}"


# ------------------------------------------------------------------------------------------ memory chart


def memory_bars(answer: Answer, max_bars: int = MAX_CHART_BARS) -> list[MemoryBar]:
    """Chart data: one bar per plan option (per GPU, against its capacity), else one for the estimate."""
    lang = answer.language
    plan = latest_plan(answer)
    if plan is not None and plan.options:
        return [
            MemoryBar(
                label=f"{o.instance_type} · {o.total_gpus} × {short_gpu(o, lang)}",
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
            label=f"{est.model} · {est.task} · {est.layout.render(lang)}",
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
    title = _t("memory", lang)
    out = [_figure_open(title), *(_bar_html(bar, scale, lang) for bar in bars)]
    terms = {s.term: s for b in bars for s in b.segments}
    legend = "".join(
        f'<span class="gpa-key"><i style="background:{color}"></i>{html.escape(zh if lang == "zh" else en)}</span>'
        for field, en, zh, color in _TERMS
        if field in terms
    )
    legend += f'<span class="gpa-key"><i class="gpa-free"></i>{_t("free", lang)}</span>'
    out.append(f'<div class="gpa-axis"><span>0</span><span>{num(scale)} GiB</span></div>')
    out.append(f'<div class="gpa-legend">{legend}</div></div>')
    return "".join(out)


def _figure_open(title: str, extra_class: str = "") -> str:
    cls = f"gpa-chart {extra_class}".strip()
    return f'<div class="{cls}" role="figure" aria-label="{html.escape(title)}"><h4>{html.escape(title)}</h4>'


def _bar_html(bar: MemoryBar, scale: float, lang: Language) -> str:
    cells = "".join(
        f'<div class="gpa-seg" style="width:{100 * s.gib / scale:.3f}%;background:{s.color}" '
        f'title="{html.escape(s.label)}: {num(s.gib)} GiB"></div>'
        for s in bar.segments
    )
    marker = ""
    if bar.capacity_gib:
        marker = (
            f'<div class="gpa-cap" style="left:{100 * bar.capacity_gib / scale:.3f}%" '
            f'title="{_t("usable", lang)}: {num(bar.capacity_gib)} GiB"></div>'
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


# ------------------------------------------------------------------------------------------ options


def option_rows(answer: Answer) -> list[OptionRow]:
    """Table data: the options of the answer's latest plan, with the as-of date and URL of each price."""
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
                gpu=short_gpu(o, answer.language),
                gpu_full=full_gpu(o, answer.language),
                layout=f"{o.instances} × {o.gpu_count}",
                needed_gib=o.per_gpu_gib_needed,
                capacity_gib=o.per_gpu_capacity_gib,
                headroom_pct=o.headroom_pct,
                tight_fit=o.tight_fit,
                speed=o.training_hours if training else o.decode_tokens_per_s,
                speed_kind="training_hours" if training else "decode_tokens_per_s",
                price_cny_per_hour=o.price_cny_per_hour,
                price_cny_per_month=o.price_cny_per_month,
                cost_cny_per_million_tokens=None if training else o.cost_cny_per_million_tokens,
                price_as_of=as_of.group(1) if as_of else None,
                price_url=url.group(0).rstrip(".,") if url else None,
            )
        )
    return rows


Column = tuple[str, str, str]  # header key, css class, "num" | "text" sort kind


def _columns(rows: Sequence[OptionRow], *, full: bool) -> list[Column]:
    speed = "training" if rows[0].speed_kind == "training_hours" else "decode"
    cols: list[Column] = [("instance", "gpa-id", "text"), ("gpu", "gpa-gpu", "text"), ("gpus", "gpa-num", "text")]
    if full:
        cols.append(("need", "gpa-num", "num"))
    cols += [("headroom", "gpa-num", "num"), (speed, "gpa-num", "num"), ("per_hour", "gpa-num", "num")]
    if full:
        cols.append(("per_month", "gpa-num", "num"))
        if any(r.cost_cny_per_million_tokens is not None for r in rows):
            cols.append(("per_mtok", "gpa-num", "num"))
        cols.append(("as_of", "gpa-num", "text"))
    return cols


def _cell(row: OptionRow, key: str, lang: Language) -> tuple[str, float | None]:
    """Return the cell's HTML and its sort value."""
    values: dict[str, tuple[str, float | None]] = {
        "instance": (f"<code>{html.escape(row.instance_type)}</code>", None),
        "gpu": (f'<span title="{html.escape(row.gpu_full)}">{html.escape(row.gpu)}</span>', None),
        "gpus": (row.layout, None),
        "need": (f"{num(row.needed_gib)} / {num(row.capacity_gib)}", row.needed_gib),
        "headroom": (
            f"{num(row.headroom_pct)}" + (f' <span title="{_t("tight", lang)}">⚠</span>' if row.tight_fit else ""),
            row.headroom_pct,
        ),
        "decode": (_dash(row.speed), row.speed),
        "training": (_dash(row.speed), row.speed),
        "per_hour": (_dash(row.price_cny_per_hour), row.price_cny_per_hour),
        "per_month": (_dash(row.price_cny_per_month), row.price_cny_per_month),
        "per_mtok": (_dash(row.cost_cny_per_million_tokens), row.cost_cny_per_million_tokens),
        "as_of": (_as_of_html(row), None),
    }
    return values[key]


def _as_of_html(row: OptionRow) -> str:
    if row.price_as_of is None:
        return "—"
    if row.price_url is None:
        return html.escape(row.price_as_of)
    url = html.escape(row.price_url)
    return f'<a href="{url}" title="{url}" target="_blank" rel="noopener">{html.escape(row.price_as_of)}</a>'


def options_table_html(rows: Sequence[OptionRow], lang: Language, *, full: bool) -> str:
    """Render the options as one table: compact (in the chat) or full and sortable (in the visuals panel).

    Below 640 px the same table shows one card per option (CSS in :data:`VISUALS_CSS`); numbers and
    instance names never wrap, and the table scrolls inside its container instead of being clipped.
    """
    if not rows:
        return ""
    cols = _columns(rows, full=full)
    sortable = " gpa-sortable" if full else ""
    head = "".join(
        f'<th class="{cls}" data-sort="{kind}" scope="col">{html.escape(_t(key, lang))}</th>'
        if full
        else f'<th class="{cls}" scope="col">{html.escape(_t(key, lang))}</th>'
        for key, cls, kind in cols
    )
    body = []
    for i, row in enumerate(rows):
        cells = []
        for key, cls, _ in cols:
            content, value = _cell(row, key, lang)
            sort = f' data-value="{value}"' if value is not None else ""
            # The label is an element, not data-label: the chat's sanitiser drops data-* attributes.
            label = f'<span class="gpa-k">{html.escape(_t(key, lang))}</span>'
            cells.append(f'<td class="{cls}"{sort}>{label}{content}</td>')
        star = ' class="gpa-best"' if i == 0 else ""
        body.append(f"<tr{star}>{''.join(cells)}</tr>")
    caption = _t("compared", lang) + (f" · <small>{_t('sort', lang)}</small>" if full else "")
    return (
        f'<div class="gpa-opts-wrap"><table class="gpa-opts{sortable}"><caption>{caption}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def _dash(value: float | None) -> str:
    return "—" if value is None else num(value)


# ------------------------------------------------------------------------------------------ comparisons


def cost_speed_chart_html(rows: Sequence[OptionRow], lang: Language, max_bars: int = MAX_CHART_BARS) -> str:
    """Two bars per option on shared scales: price per hour and speed (tok/s or training hours)."""
    rows = [r for r in rows[:max_bars] if r.price_cny_per_hour is not None or r.speed is not None]
    if len(rows) < 2:
        return ""
    training = rows[0].speed_kind == "training_hours"
    speed_key = "training" if training else "decode"
    price_max = max((r.price_cny_per_hour or 0) for r in rows)
    speed_max = max((r.speed or 0) for r in rows)
    out = [_figure_open(_t("cost_speed", lang), "gpa-compare")]
    for r in rows:
        out.append(
            f'<div class="gpa-row"><div class="gpa-label"><span><code>{html.escape(r.instance_type)}</code> · '
            f'{html.escape(r.layout)} <span title="{html.escape(r.gpu_full)}">{html.escape(r.gpu)}</span></span></div>'
            # a metric no option has (e.g. no list price known) gets no empty bars
            + (_pair_bar(_t("per_hour", lang), r.price_cny_per_hour, price_max, "#e15759") if price_max else "")
            + (_pair_bar(_t(speed_key, lang), r.speed, speed_max, "#4e79a7") if speed_max else "")
            + "</div>"
        )
    out.append("</div>")
    return "".join(out)


def _pair_bar(label: str, value: float | None, scale: float, color: str) -> str:
    width = 0.0 if value is None else 100 * value / scale
    return (
        f'<div class="gpa-pair"><span class="gpa-pair-k">{html.escape(label)}</span>'
        f'<div class="gpa-track gpa-thin"><div class="gpa-seg" style="width:{width:.3f}%;background:{color}"></div>'
        f'</div><b class="gpa-pair-v">{_dash(value)}</b></div>'
    )


def gpu_compare_chart_html(gpus: Sequence[GPU], lang: Language) -> str:
    """Draw the compared GPUs side by side: dense BF16 compute, memory bandwidth and memory, one shared scale each."""
    if len(gpus) < 2:
        return ""
    out = [_figure_open(_t("specs", lang), "gpa-compare")]
    palette = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1")
    for field, en, zh in _SPEC_BARS:
        values = [getattr(g, field) for g in gpus]
        if all(v is None for v in values):
            continue
        scale = max(v or 0 for v in values) or 1.0
        out.append(
            f'<div class="gpa-row"><div class="gpa-label"><span>{html.escape(zh if lang == "zh" else en)}</span></div>'
        )
        for i, (gpu, value) in enumerate(zip(gpus, values, strict=True)):
            out.append(_pair_bar(gpu.name, value, scale, palette[i % len(palette)]))
        out.append("</div>")
    out.append("</div>")
    return "".join(out)


def refusal_bars(plan: Plan, max_bars: int = MAX_REFUSAL_BARS) -> list[RefusalBar]:
    """Return the rejected layouts that failed on memory, largest GPUs first: what they need against what fits."""
    bars = [bar for r in plan.rejected if (bar := _refusal(r)) is not None]
    bars.sort(key=lambda b: (-b.capacity_gib, b.needed_gib))
    unique: dict[str, RefusalBar] = {}
    for bar in bars:
        unique.setdefault(bar.label, bar)
    return list(unique.values())[:max_bars]


def _refusal(rejection: Rejection) -> RefusalBar | None:
    if rejection.needed_gib is None or rejection.usable_gib is None:
        return None  # turned away for another reason than memory
    gpu = rejection.gpu_model or rejection.family
    return RefusalBar(
        label=f"{rejection.instance_type} · {gpu}", needed_gib=rejection.needed_gib, capacity_gib=rejection.usable_gib
    )


def refusal_chart_html(bars: Sequence[RefusalBar], lang: Language) -> str:
    """Draw "does not fit: needs X of Y GiB": each need as a red bar past the GPU's usable memory marker."""
    if not bars:
        return ""
    out = [_figure_open(_t("refusal", lang), "gpa-refusal")]
    for bar in bars:
        scale = max(bar.needed_gib, bar.capacity_gib) or 1.0
        figures = _t("needs_of", lang).format(need=num(bar.needed_gib), cap=num(bar.capacity_gib))
        out.append(
            f'<div class="gpa-row"><div class="gpa-label"><span>{html.escape(bar.label)}</span></div>'
            f'<div class="gpa-track"><div class="gpa-seg gpa-over" style="width:{100 * bar.needed_gib / scale:.3f}%">'
            f'</div><div class="gpa-cap" style="left:{100 * bar.capacity_gib / scale:.3f}%" '
            f'title="{_t("usable", lang)}: {num(bar.capacity_gib)} GiB"></div></div>'
            f'<div class="gpa-verdict">✗ {html.escape(figures)}</div></div>'
        )
    out.append("</div>")
    return "".join(out)


# ------------------------------------------------------------------------------------------ the panel


def visuals_html(answer: Answer) -> str:
    """Everything the visuals panel shows for one answer, by kind; empty when there is nothing to draw."""
    lang = answer.language
    refused = refused_plan(answer)
    parts: list[str] = []
    if refused is not None:
        parts.append(refusal_chart_html(refusal_bars(refused), lang))
    parts.append(memory_chart_html(memory_bars(answer), lang))
    rows = option_rows(answer)
    parts.append(cost_speed_chart_html(rows, lang))
    parts.append(gpu_compare_chart_html(compared_gpus(answer), lang))
    parts.append(options_table_html(rows, lang, full=True))
    return "".join(p for p in parts if p)


VISUALS_CSS = """
.gpa-chart{font-size:13px;line-height:1.35;margin:0 0 16px}
.gpa-chart h4{margin:0 0 8px;font-size:14px}
.gpa-row{margin:0 0 10px}
.gpa-label{display:flex;justify-content:space-between;align-items:baseline;gap:8px}
.gpa-label span{flex:1;min-width:0;overflow-wrap:anywhere}
.gpa-label b,.gpa-pair-v,.gpa-verdict{white-space:nowrap}
.gpa-axis{display:flex;justify-content:space-between;font-size:11px;color:var(--body-text-color-subdued,#6b7280)}
.gpa-track{position:relative;display:flex;flex:1;height:18px;border-radius:3px;background:var(--neutral-100,#f3f4f6)}
.gpa-thin{height:10px}
.gpa-seg{height:100%}
.gpa-over{background:repeating-linear-gradient(45deg,#dc2626 0 6px,#ef4444 6px 12px)}
.gpa-verdict{color:#b91c1c;font-weight:600}
.gpa-free,.gpa-key i.gpa-free{background:repeating-linear-gradient(45deg,#e5e7eb 0 4px,#f9fafb 4px 8px)}
.gpa-cap{position:absolute;top:-3px;bottom:-3px;width:2px;background:#111827}
.gpa-legend{display:flex;flex-wrap:wrap;gap:4px 12px;margin-top:6px}
.gpa-key i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px;vertical-align:-1px}
.gpa-pair{display:flex;align-items:center;gap:8px;margin:2px 0}
.gpa-pair-k{flex:0 0 96px;font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.gpa-pair-v{flex:0 0 auto;min-width:48px;text-align:right;font-weight:500}
.gpa-opts-wrap{max-width:100%;overflow-x:auto;-webkit-overflow-scrolling:touch;margin:4px 0 12px}
table.gpa-opts{border-collapse:collapse;font-size:13px;width:auto;min-width:0;margin:0}
table.gpa-opts caption{text-align:left;font-weight:600;padding:0 0 4px;white-space:nowrap}
table.gpa-opts th,table.gpa-opts td{padding:4px 8px;border-bottom:1px solid var(--border-color-primary,#e5e7eb);
  text-align:left;vertical-align:top}
table.gpa-opts th{white-space:nowrap;font-weight:600}
table.gpa-opts .gpa-num{text-align:right}
table.gpa-opts .gpa-num,table.gpa-opts .gpa-id,table.gpa-opts .gpa-gpu{white-space:nowrap;
  overflow-wrap:normal;word-break:keep-all}
table.gpa-opts code{white-space:nowrap;font-size:12px}
table.gpa-opts tr.gpa-best td{font-weight:600}
table.gpa-opts .gpa-k{display:none}
table.gpa-sortable th[data-sort]{cursor:pointer;user-select:none}
table.gpa-sortable th[aria-sort=ascending]::after{content:" ▲"}
table.gpa-sortable th[aria-sort=descending]::after{content:" ▼"}
@media (max-width:640px){
  table.gpa-opts,table.gpa-opts tbody,table.gpa-opts tr,table.gpa-opts td,
  table.gpa-opts caption{display:block;width:auto}
  table.gpa-opts thead{display:none}
  table.gpa-opts tr{border:1px solid var(--border-color-primary,#e5e7eb);border-radius:8px;padding:6px 10px;
    margin:0 0 8px}
  table.gpa-opts td{display:flex;justify-content:space-between;gap:12px;border:0;padding:2px 0;text-align:right}
  table.gpa-sortable thead{display:block}
  table.gpa-sortable thead tr{display:flex;flex-wrap:wrap;gap:4px;border:0;padding:0;margin:0 0 6px}
  table.gpa-sortable th{border:1px solid var(--border-color-primary,#e5e7eb);border-radius:999px;padding:1px 8px;
    font-size:12px;font-weight:500}
  table.gpa-opts td .gpa-k{display:inline;font-weight:400;color:var(--body-text-color-subdued,#6b7280);
    white-space:nowrap;text-align:left}
}
"""
"""Styles of the visuals and of the options table; the page adds them once."""
