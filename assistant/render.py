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
from assistant.price_phrases import basis_label, link_urls, source_label
from tools.catalog import InstanceType, get_instance
from tools.plan import DeploymentOption, Plan

NA = {"zh": "未知", "en": "n/a"}
_MAX_REJECTED_FAMILIES = 5


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
    return num(value, lang)


def _t(lang: Language, zh: str, en: str) -> str:
    return zh if lang == "zh" else en


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
        return name + _t(lang, "（推测）", " (likely)")
    return NA[lang]


def price_parts(hourly: float | None, monthly: float | None, basis: str | None, lang: Language) -> list[str]:
    """Format hourly and monthly prices as shown next to an option or a quote ("¥9.53/h", "¥4,575.66/month")."""
    parts = []
    if hourly is not None:
        parts.append(f"¥{fig(hourly)}" + _t(lang, "/小时（按量付费）", "/h (pay-as-you-go)"))
    if monthly is not None:
        label = basis_label(basis, lang)
        shown = _t(lang, f"（{label}）", f" ({label})") if label else ""
        parts.append(f"¥{fig(monthly)}" + _t(lang, "/月", "/month") + shown)
    return parts


def _price_phrase(option: DeploymentOption, lang: Language) -> str:
    if option.price_cny_per_hour is None and option.price_cny_per_month is None:
        return _t(lang, "价格未知（价格表中没有该规格）", "price unknown (not in the price list)")
    parts = price_parts(option.price_cny_per_hour, option.price_cny_per_month, option.price_month_basis, lang)
    if option.spot_cny_per_hour is not None:
        spot = fig(option.spot_cny_per_hour)
        parts.append(_t(lang, f"抢占式 ¥{spot}/小时（可能被回收）", f"spot ¥{spot}/h (can be reclaimed)"))
    if option.price_regions_compared:
        n = option.price_regions_compared
        where = option.price_region
        parts.append(_t(lang, f"{n} 个地域中 {where} 最便宜", f"cheapest of {n} regions: {where}"))
    if option.price_source:
        source = source_label(option.price_source, lang)
        return " · ".join(parts) + _t(lang, f"；来源：{source}", f"; source: {source}")
    return " · ".join(parts)


def capacity_phrase(option: DeploymentOption, lang: Language) -> str:
    """How many sequences fit at once at the planned context (the KV-cache capacity), if the tool knows."""
    if option.max_concurrent_sequences is None:
        return ""
    n = fig(option.max_concurrent_sequences)
    return _t(
        lang,
        f"**并发容量：** `{option.instance_type}` 这一布局在该上下文长度下最多可同时容纳约 {n} 路序列"
        "（按 KV cache 剩余显存计算，实际并发还受延迟要求限制）。",
        f"**Concurrency capacity:** this `{option.instance_type}` layout holds about {n} sequences at once at "
        "this context length (from the memory left for KV cache; latency targets may allow fewer).",
    )


def token_cost_phrase(option: DeploymentOption, lang: Language) -> str:
    """Cost per million output tokens at full decode throughput, with its meaning (empty when unknown)."""
    if option.cost_cny_per_million_tokens is None:
        return ""
    cost = fig(option.cost_cny_per_million_tokens)
    return _t(
        lang,
        f"**每百万 tokens 成本：** 约 ¥{cost}（按量价格 ÷ 满负荷解码吞吐；负载不满时更高）。",
        f"**Cost per million tokens:** about ¥{cost} (hourly price ÷ decode throughput at full load; higher "
        "when it idles).",
    )


def plan_summary(plan: Plan, lang: Language) -> str:
    """One paragraph on the top option: layout, memory fit, speed, price (or why nothing fits)."""
    if not plan.options and plan.workload.gpu:
        # Only the requested GPU was searched: say so, not "nothing in the catalog".
        gpu = plan.workload.gpu
        return _t(
            lang,
            f"**没有能放下的 {gpu} 规格：** 只在 {gpu} 实例中查找，没有一个能容纳 {plan.model} 这一负载，"
            "原因见下方被排除的规格。",
            f"**No {gpu} instance type fits:** only {gpu} types were searched and none can hold this "
            f"{plan.model} workload; see the rejected types below.",
        )
    if not plan.options:
        return _t(
            lang,
            f"**没有合适的实例：** 在目录中找不到能容纳 {plan.model} 这一负载的规格，原因见下方被排除的规格。",
            f"**Nothing fits:** no instance type in the catalog can hold this {plan.model} workload; "
            "see the rejected types below.",
        )
    top = plan.options[0]
    gpu = gpu_label(top, lang)
    fit = _t(
        lang,
        f"每卡需要 {fig(top.per_gpu_gib_needed)} GiB，可用 {fig(top.per_gpu_capacity_gib)} GiB"
        f"（余量 {fig(top.headroom_pct)}%{'，偏紧' if top.tight_fit else ''}）",
        f"each GPU needs {fig(top.per_gpu_gib_needed)} GiB of {fig(top.per_gpu_capacity_gib)} GiB usable "
        f"(headroom {fig(top.headroom_pct)}%{', tight fit' if top.tight_fit else ''})",
    )
    layout = _t(
        lang,
        f"{top.instances} 台 `{top.instance_type}`（每台 {top.gpu_count} × {gpu}，共 {top.total_gpus} 张卡；"
        f"张量并行 {top.tensor_parallel}，副本 {top.data_parallel}）",
        f"{top.instances} × `{top.instance_type}` ({top.gpu_count} × {gpu} each, {top.total_gpus} "
        f"GPU{'s' if top.total_gpus > 1 else ''} in total; tensor parallel {top.tensor_parallel}, "
        f"{top.data_parallel} replica{'s' if top.data_parallel > 1 else ''})",
    )
    speed = _speed_phrase(top, lang)
    price = _price_phrase(top, lang)
    return _t(
        lang,
        f"**推荐：** {layout}。{fit}。{speed}价格：{price}。",
        f"**Recommended:** {layout}. {fit[0].upper() + fit[1:]}. {speed}Price: {price}.",
    )


def _speed_phrase(option: DeploymentOption, lang: Language) -> str:
    if option.training_hours is not None:
        cost = (
            _t(
                lang,
                f"，费用约 ¥{fig(option.training_cost_cny)}",
                f", about ¥{fig(option.training_cost_cny)}",
            )
            if option.training_cost_cny is not None
            else ""
        )
        return _t(
            lang,
            f"预计训练 {fig(option.training_hours)} 小时{cost}。",
            f"Training takes about {fig(option.training_hours)} h{cost}. ",
        )
    if option.decode_tokens_per_s is None:
        return ""
    per_stream = option.decode_tokens_per_s_per_stream
    return _t(
        lang,
        f"解码吞吐约 {fig(option.decode_tokens_per_s)} tokens/s（每路约 {fig(per_stream)} tokens/s）。",
        f"Decode ≈ {fig(option.decode_tokens_per_s)} tokens/s in total (≈ {fig(per_stream)} per stream). ",
    )


def options_table(plan: Plan, lang: Language) -> str:
    """Render the ranked options as a table; training plans show hours instead of speed."""
    if not plan.options:
        return ""
    training = plan.workload.task != "inference"
    speed_head = _t(lang, "训练时长 (h)", "training (h)") if training else _t(lang, "解码 tok/s", "decode tok/s")
    head = _t(
        lang,
        f"| 实例规格 | GPU | 台数 × 卡数 | 每卡需要 / 可用 (GiB) | 余量 | {speed_head} | ¥/小时 | ¥/月 |",
        f"| instance | GPU | instances × GPUs | per-GPU need / usable (GiB) | headroom | {speed_head} "
        "| ¥/h | ¥/month |",
    )
    rows = [head, "|---|---|---|---|---|---|---|---|"]
    for i, o in enumerate(plan.options):
        mark = "★ " if i == 0 else ""
        tight = _t(lang, " ⚠ 偏紧", " ⚠ tight") if o.tight_fit else ""
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
            seen.setdefault(note, []).append(o.instance_type)
    return [f"`{', '.join(types)}`: {note}" for note, types in seen.items()]


def _family_of(instance_type: str) -> str:
    return get_instance(instance_type).family


def rejection_summary(plan: Plan, lang: Language, prefer: Sequence[str] = ()) -> list[str]:
    """Why families were left out: one line per family, the families the user named first.

    Args:
        plan: The planner's result.
        lang: Answer language.
        prefer: Family names or GPU names the user mentioned; their rejections are listed first.
    """
    by_family: dict[str, tuple[str | None, str, list[str]]] = {}
    # A family with any layout that fits is not "left out", even if it ranked below the table.
    shown = {o.family for o in plan.options} | {_family_of(t) for t in plan.also_fits}
    for r in plan.rejected:
        # Types without a published GPU, and other GPUs when the user asked for one, say nothing new.
        if r.family in shown or any(w in r.reason for w in ("not published", "not the requested", "request excludes")):
            continue
        gpu, reason, types = by_family.setdefault(r.family, (r.gpu_model, r.reason, []))
        types.append(r.instance_type)
        if _gpus_tried(r.reason) > _gpus_tried(reason):  # the family's largest layout says the most
            by_family[r.family] = (gpu, r.reason, [r.instance_type, *types[:-1]])
    wanted = {p.lower() for p in prefer}

    def rank(item: tuple[str, tuple[str | None, str, list[str]]]) -> tuple[int, int]:
        family, (gpu, reason, _) = item
        named = family.lower() in wanted or (gpu or "").lower() in wanted
        return (0 if named else 1, 0 if "GiB" in reason else 1)

    lines = []
    for family, (gpu, reason, types) in sorted(by_family.items(), key=rank)[:_MAX_REJECTED_FAMILIES]:
        example = f" (e.g. `{types[0]}`)" if lang == "en" else f"（例如 `{types[0]}`）"
        label = f" ({gpu})" if gpu else ""
        lines.append(f"**{family}**{label}{example}: {reason}")
    return lines


def _gpus_tried(reason: str) -> int:
    found = re.findall(r"on (\d+)x ", reason)
    return max((int(n) for n in found), default=0)


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
        parts.append(
            _t(
                lang,
                f"**可选方案**（{plan.model}，共 {fig(plan.params_b)}B 参数）：",
                f"**Options** ({plan.model}, {fig(plan.params_b)}B parameters):",
            )
            + "\n\n"
            + table
        )
    if notes := option_notes(plan, lang):
        parts.append(bullets(_t(lang, "**注意：**", "**Notes:**"), notes))
    if rejected := rejection_summary(plan, lang, prefer):
        parts.append(bullets(_t(lang, "**被排除的规格族（原因，工具原文）：**", "**Left out (why):**"), rejected))
    parts.append(bullets(_t(lang, "**关键假设（工具原文）：**", "**Key assumptions:**"), plan.assumptions))
    if plan.warnings:
        parts.append(bullets(_t(lang, "**警告：**", "**Warnings:**"), plan.warnings))
    return "\n\n".join(parts)


# ------------------------------------------------------------------------------------------ plain messages


def introduction(lang: Language) -> str:
    """Answer a greeting: what gpu-advisor does and questions to try."""
    return _t(
        lang,
        "你好！我是 gpu-advisor，帮你在阿里云上为大模型选 GPU：选哪种实例、需要几张卡、显存够不够、大概多少钱，"
        "数字来自计算工具，结论附参考资料。可以这样问：\n"
        "- Qwen2.5-72B 用 INT4 部署，长上下文、多人并发，需要什么实例？\n"
        "- Llama-3.1-8B 用 LoRA 微调，要多久、多少钱？\n"
        "- gn7i 是什么 GPU？H20 和 A100 有什么区别？",
        "Hello! I'm gpu-advisor: I help you choose Alibaba Cloud GPUs for LLMs: which instance type, how many "
        "GPUs, whether the memory fits and what it costs, with numbers from calculation tools and cited "
        "guidance. Try:\n"
        "- Serve Qwen2.5-72B in INT4 with a long context for many users: which instance?\n"
        "- How long and how much to LoRA fine-tune Llama-3.1-8B?\n"
        "- What GPU is in gn7i? H20 vs A100?",
    )


def scope_statement(lang: Language) -> str:
    """Say what gpu-advisor answers; used for out-of-scope questions and refused instructions."""
    return _t(
        lang,
        "我只回答在阿里云上运行大模型的 GPU 选型问题：选哪种 GPU 实例、需要几张卡、显存够不够、大概多少钱，"
        "以及相关的实例规格和 GPU 参数。例如：“Qwen2.5-72B 用 INT4 部署，长上下文、多人并发，需要什么实例？”",
        "I only answer questions about GPUs for running LLMs on Alibaba Cloud: which instance type, how many "
        "GPUs, whether the memory fits, what it costs, plus instance families and GPU specs. For example: "
        '"Serve Qwen2.5-72B in INT4 with a long context for many concurrent users: which instance?"',
    )


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
