"""Markdown for the deterministic engine's answers, in Chinese or English: pure functions of tool results.

Every number shown is copied from a tool result or a cited passage, rounded to at most 2 decimals
(:func:`fig`; it also drops a trailing ".0" and groups thousands), so the grounding check in
:mod:`assistant.guards`, which compares at the displayed precision, can match it. :func:`num` shows a
number exactly as the tool gave it (the web UI's tool-step summaries use it). Nothing here computes a
new figure: no ratios, no sums. Passages are quoted, not paraphrased, with the document's own ``[n]``
markers replaced by the answer's citation number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.answer import Language
from assistant.messages import say
from assistant.price_phrases import basis_label, link_urls, source_label
from tools.catalog import InstanceType, get_instance
from tools.notes import Note, rendered
from tools.plan import DeploymentOption, Plan

NA = {"zh": "未知", "en": "n/a"}
_MAX_REJECTED_FAMILIES = 5
# Rejections of types without a published GPU, or of GPUs the user did not ask for, say nothing new.
_SAYS_NOTHING_NEW = frozenset(
    {"reject.gpu_count_unknown", "reject.gpu_unknown", "reject.not_requested_gpu", "reject.excluded_gpu"}
)


def num(value: float | int | None, lang: Language = "en") -> str:
    """Show a tool's number as it gave it: "16,676" for 16676.0, "9.53" for 9.53, "n/a" for None."""
    if value is None:
        return NA[lang]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10_000 else str(value)
    return repr(value)


def fig(value: float | int | None, lang: Language = "en") -> str:
    """Show a tool's number with at most 2 decimals, as answers do: "19.96" for 19.958, "16,676" for 16676.0.

    Rounding to the displayed precision keeps the number grounded (the guard compares at that precision).
    """
    if isinstance(value, float) and abs(value) >= 0.01:
        value = round(value, 2)
        if abs(value) >= 10_000 and not value.is_integer():
            return f"{value:,.2f}".rstrip("0").rstrip(".")
    elif isinstance(value, float) and value:  # "0.0082 days", not every digit of 0.008218724216524215
        value = float(f"{value:.2g}")
    return num(value, lang)


def cite(number: int) -> str:
    """Return the marker of citation ``number`` as it appears in the text."""
    return f"[{number}]"


# ------------------------------------------------------------------------------------------ plan


def gpu_label(option: DeploymentOption | InstanceType, lang: Language) -> str:
    """Name the GPU of an option, marked when Alibaba does not name it ("A100-80GB (likely)")."""
    if option.gpu_model:
        return option.gpu_model
    if option.gpu_model_likely:
        # "(unnamed, gn9gc/ebmgn9ge)" lists the families carrying it: the instance type beside it says that
        name = re.sub(r"\s*\(unnamed,\s*[a-z0-9/]+\)", "", option.gpu_model_likely)
        return name + say("render.likely", lang)
    return NA[lang]


def price_parts(hourly: float | None, monthly: float | None, basis: str | None, lang: Language) -> list[str]:
    """Format hourly and monthly prices as shown next to an option or a quote ("¥9.53/h", "¥4,575.66/month")."""
    parts = []
    if hourly is not None:
        parts.append(say("render.hourly", lang, price=fig(hourly)))
    if monthly is not None:
        label = basis_label(basis, lang)
        shown = say("render.basis", lang, label=label) if label else ""
        parts.append(say("render.monthly", lang, price=fig(monthly)) + shown)
    return parts


def _price_phrase(option: DeploymentOption, lang: Language) -> str:
    if option.price_cny_per_hour is None and option.price_cny_per_month is None:
        return say("render.price_unknown", lang)
    parts = price_parts(option.price_cny_per_hour, option.price_cny_per_month, option.price_month_basis, lang)
    if option.spot_cny_per_hour is not None:
        spot = fig(option.spot_cny_per_hour)
        parts.append(say("render.spot", lang, price=spot))
    if option.price_regions_compared:
        n = option.price_regions_compared
        where = option.price_region
        parts.append(say("render.cheapest_region", lang, n=n, region=where))
    if option.price_source:
        source = source_label(option.price_source, lang)
        return " · ".join(parts) + say("render.source", lang, source=source)
    return " · ".join(parts)


def capacity_phrase(option: DeploymentOption, lang: Language) -> str:
    """How many sequences fit at once at the planned context (the KV-cache capacity), if the tool knows."""
    if option.max_concurrent_sequences is None:
        return ""
    n = fig(option.max_concurrent_sequences)
    return say("render.capacity", lang, instance_type=option.instance_type, n=n)


def token_cost_phrase(option: DeploymentOption, lang: Language) -> str:
    """Cost per million output tokens at full decode throughput, with its meaning (empty when unknown)."""
    if option.cost_cny_per_million_tokens is None:
        return ""
    cost = fig(option.cost_cny_per_million_tokens)
    return say("render.token_cost", lang, cost=cost)


_TOO_SLOW = ("reject.speed_per_stream", "reject.ttft")  # tools/speed_targets.py: fits, but misses the target

def plan_summary(plan: Plan, lang: Language) -> str:
    """One paragraph on the top option: layout, memory fit, speed, price (or why nothing fits)."""
    if not plan.options and plan.workload.gpu:
        # Only the requested GPU was searched: say so, not "nothing in the catalog".
        gpu = plan.workload.gpu
        return say("render.no_gpu_fits", lang, gpu=gpu, model=plan.model)
    if not plan.options and any(r.reason.code in _TOO_SLOW for r in plan.rejected):
        return say("render.nothing_fast_enough", lang, model=plan.model)  # a speed target, not memory, ruled them out
    if not plan.options:
        return say("render.nothing_fits", lang, model=plan.model)
    top = plan.options[0]
    gpu = gpu_label(top, lang)
    fit = say(
        "render.fit_tight" if top.tight_fit else "render.fit", lang, need=fig(top.per_gpu_gib_needed),
        usable=fig(top.per_gpu_capacity_gib), pct=fig(top.headroom_pct),
    )  # fmt: skip
    layout = say(
        "render.layout", lang, instances=top.instances, instance_type=top.instance_type, per_instance=top.gpu_count,
        gpu=gpu, total=say("render.gpus_one" if top.total_gpus == 1 else "render.gpus_many", lang, n=top.total_gpus),
        tp=top.tensor_parallel,
        replicas=say("render.replica_one" if top.data_parallel == 1 else "render.replicas", lang, n=top.data_parallel),
    )  # fmt: skip
    speed = _speed_phrase(top, lang)
    price = _price_phrase(top, lang)
    return say("render.recommended", lang, layout=layout, fit=fit, speed=speed, price=price)


def _speed_phrase(option: DeploymentOption, lang: Language) -> str:
    if option.training_hours is not None:
        cost = (
            say("render.training_cost", lang, cost=fig(option.training_cost_cny))
            if option.training_cost_cny is not None
            else ""
        )
        return say("render.training_hours", lang, hours=fig(option.training_hours), cost=cost)
    if option.decode_tokens_per_s is None:
        return ""
    per_stream = option.decode_tokens_per_s_per_stream
    return say("render.decode", lang, total=fig(option.decode_tokens_per_s), per_stream=fig(per_stream))


def options_table(plan: Plan, lang: Language) -> str:
    """Render the ranked options as a table; training plans show hours instead of speed."""
    if not plan.options:
        return ""
    training = plan.workload.task != "inference"
    speed_head = say("render.head_training" if training else "render.head_decode", lang)
    head = say("render.options_head", lang, speed=speed_head)
    rows = [head, "|---|---|---|---|---|---|---|---|"]
    for i, o in enumerate(plan.options):
        mark = "★ " if i == 0 else ""
        tight = say("render.tight_mark", lang) if o.tight_fit else ""
        speed = o.training_hours if training else o.decode_tokens_per_s
        rows.append(
            f"| {mark}`{o.instance_type}` | {gpu_label(o, lang)} | {o.instances} × {o.gpu_count} | "
            f"{fig(o.per_gpu_gib_needed)} / {fig(o.per_gpu_capacity_gib)} | {fig(o.headroom_pct)}%{tight} | "
            f"{fig(speed, lang)} | {fig(o.price_cny_per_hour, lang)} | {fig(o.price_cny_per_month, lang)} |"
        )
    return "\n".join(rows)


def option_notes(plan: Plan, lang: Language) -> list[str]:
    """List the notes the planner attached to shown options (PCIe tensor parallel ...), deduplicated."""
    seen: dict[str, list[str]] = {}
    for o in plan.options:
        for note in o.notes:
            seen.setdefault(note.render(lang), []).append(o.instance_type)
    return [f"`{', '.join(types)}`{_colon(lang)}{note}" for note, types in seen.items()]


def _colon(lang: Language) -> str:
    return "：" if lang == "zh" else ": "


def _family_of(instance_type: str) -> str:
    return get_instance(instance_type).family


def rejection_summary(plan: Plan, lang: Language, prefer: Sequence[str] = ()) -> list[str]:
    """Why families were left out: one line per family, the families the user named first.

    Args:
        plan: The planner's result.
        lang: Answer language.
        prefer: Family names or GPU names the user mentioned; their rejections are listed first.
    """
    by_family: dict[str, tuple[str | None, Note, list[str]]] = {}
    # A family with any layout that fits is not "left out", even if it ranked below the table.
    shown = {o.family for o in plan.options} | {_family_of(t) for t in plan.also_fits}
    for r in plan.rejected:
        # Types without a published GPU, and other GPUs when the user asked for one, say nothing new.
        if r.family in shown or r.reason.code in _SAYS_NOTHING_NEW:
            continue
        gpu, reason, types = by_family.setdefault(r.family, (r.gpu_model, r.reason, []))
        types.append(r.instance_type)
        if _gpus_tried(r.reason) > _gpus_tried(reason):  # the family's largest layout says the most
            by_family[r.family] = (gpu, r.reason, [r.instance_type, *types[:-1]])
    wanted = {p.lower() for p in prefer}

    def rank(item: tuple[str, tuple[str | None, Note, list[str]]]) -> tuple[int, int]:
        family, (gpu, reason, _) = item
        named = family.lower() in wanted or (gpu or "").lower() in wanted
        says_most = "need" in reason.values or reason.code in _TOO_SLOW  # a shortfall, or the speed it reaches
        return (0 if named else 1, 0 if says_most else 1)

    lines = []
    for family, (gpu, reason, types) in sorted(by_family.items(), key=rank)[:_MAX_REJECTED_FAMILIES]:
        example = f" (e.g. `{types[0]}`)" if lang == "en" else f"（例如 `{types[0]}`）"
        label = f" ({gpu})" if gpu else ""
        lines.append(f"**{family}**{label}{example}{_colon(lang)}{reason.render(lang)}")
    return lines


def _gpus_tried(reason: Note) -> int:
    gpus = reason.values.get("gpus", 0) if "need" in reason.values else 0
    return gpus if isinstance(gpus, int) else 0


def plan_markdown(plan: Plan, lang: Language, prefer: Sequence[str] = (), capacity: bool = False) -> str:
    """Summary, options table, notes, rejections, assumptions and warnings of a plan.

    Args:
        plan: The planner's result.
        lang: Answer language.
        prefer: Family or GPU names the user mentioned; their rejections are listed first.
        capacity: The user asked how many requests fit: state the top option's concurrency capacity.
    """
    parts = [plan_summary(plan, lang)]
    if plan.options:
        top = plan.options[0]
        extra = [capacity_phrase(top, lang) if capacity else "", token_cost_phrase(top, lang)]
        parts += [e for e in extra if e]
    if table := options_table(plan, lang):
        parts.append(say("render.options_title", lang, model=plan.model, params=fig(plan.params_b)) + "\n\n" + table)
    if notes := option_notes(plan, lang):
        parts.append(bullets(say("render.notes", lang), notes))
    if rejected := rejection_summary(plan, lang, prefer):
        parts.append(bullets(say("render.left_out", lang), rejected))
    parts.append(bullets(say("render.assumptions", lang), rendered(plan.assumptions, lang)))
    if warnings := rendered(plan.warnings, lang):
        parts.append(bullets(say("render.warnings", lang), warnings))
    return "\n\n".join(parts)


# ------------------------------------------------------------------------------------------ plain messages


def introduction(lang: Language) -> str:
    """Answer a greeting: what gpu-advisor does and questions to try."""
    return say("render.introduction", lang)


def scope_statement(lang: Language) -> str:
    """Say what gpu-advisor answers; used for out-of-scope questions and refused instructions."""
    return say("render.scope", lang)


def unique_paragraphs(text: str) -> str:
    """Return ``text`` with a paragraph that repeats an earlier one word for word left out."""
    seen: set[str] = set()
    kept = []
    for paragraph in text.split("\n\n"):
        key = paragraph.strip()
        if key and key in seen:
            continue
        seen.add(key)
        kept.append(paragraph)
    return "\n\n".join(kept)


def bullets(title: str, items: Sequence[str]) -> str:
    """Return ``title`` over a bullet list, one item per line."""
    return title + "\n" + "\n".join(f"- {item}" for item in items)


# Passages live in their own module; these names stay importable from here (faces and tests use them).
from assistant.render_passages import key_sentences, quote, sentences, sources_markdown  # noqa: E402

__all__ = [
    "basis_label", "bullets", "capacity_phrase", "cite", "fig", "gpu_label", "introduction", "key_sentences",
    "link_urls", "num", "option_notes", "options_table",
    "plan_markdown", "plan_summary", "price_parts", "quote", "rejection_summary", "scope_statement", "sentences",
    "source_label", "sources_markdown", "token_cost_phrase",
]  # fmt: skip
