"""Answer-first rendering of a plan: a short text (the answer, a table, key figures) and folded details.

The text starts with the line that answers the question; rejections, every assumption and the planner's
warnings in full are folded into :class:`assistant.answer.AnswerDetail` sections, so an answer with a plan
stays short before its details. The tools' notes (rejection reasons, assumptions, warnings) are typed
(:class:`tools.notes.Note`) and rendered in the answer's language from their codes.
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.answer import AnswerDetail, Language
from assistant.messages import say
from assistant.render import (
    capacity_phrase,
    fig,
    option_notes,
    options_table,
    plan_summary,
    rejection_summary,
    token_cost_phrase,
)
from assistant.render_tables import MEMORY_TERMS
from tools.memory import MemoryEstimate
from tools.memory_training import peak_phase_note
from tools.notes import rendered
from tools.plan import Plan

_TABLE_ROWS = 3


def plan_brief(
    plan: Plan, lang: Language, prefer: Sequence[str] = (), capacity: bool = False, summary: bool = True
) -> tuple[list[str], list[AnswerDetail]]:
    """Return the plan's text parts (summary, capacity/cost, a short table) and its folded details.

    ``summary`` False leaves out the paragraph on the top option (a verdict above already names it).
    """
    top_paragraph = plan_summary(plan, lang)
    parts = [top_paragraph] if summary or not plan.options else []
    folded: list[AnswerDetail] = []
    if plan.options:
        top = plan.options[0]
        per_option = options_capacity(plan, lang) if capacity else ""
        if per_option:
            parts.insert(0, per_option)  # "how many users does it hold?": a number per option answers first
            if summary:  # ... and the top option's paragraph folds, keeping the answer short
                parts.remove(top_paragraph)
                folded = [AnswerDetail(title=say("details.plan", lang), markdown=top_paragraph)]
        if capacity:
            parts.append(capacity_phrase(top, lang))
        parts += [p for p in (token_cost_phrase(top, lang),) if p]
    short = plan.model_copy(update={"options": plan.options[:_TABLE_ROWS]})
    if table := options_table(short, lang):
        parts.append(table)
    # "the GPU shown is inferred" is about rows of the table: with every row shown named by Alibaba, it folds
    inferred = any(o.gpu_confidence in ("inferred", "uncertain") for o in short.options)
    aside = [] if inferred else [w for w in plan.warnings if w.code == "plan.gpu_inferred"]
    warnings = rendered([w for w in plan.warnings if w not in aside], lang)
    if warnings:
        parts.append("\n".join(f"⚠ {w}" for w in warnings[:2]))
    details = folded
    rejected = rejection_summary(plan, lang, prefer)
    if rejected:
        details.append(AnswerDetail(title=say("details.rejected", lang), markdown=_bullets(rejected)))
    if len(plan.options) > _TABLE_ROWS:
        details.append(AnswerDetail(title=say("details.plan", lang), markdown=options_table(plan, lang)))
    notes = option_notes(plan, lang)
    assumptions = [*rendered(plan.assumptions, lang), *notes, *warnings[2:], *rendered(aside, lang)]
    details.append(AnswerDetail(title=say("details.assumptions", lang), markdown=_bullets(assumptions)))
    return parts, details


_TASKS_ZH = {"inference": "推理", "full": "全参训练", "lora": "LoRA", "qlora": "QLoRA"}


def estimate_brief(est: MemoryEstimate, lang: Language) -> tuple[list[str], list[AnswerDetail]]:
    """Answer first for a memory question: the per-GPU total, the term table; assumptions folded."""
    layout = est.layout.render(lang)
    if lang == "zh":
        head = (
            f"**每卡约需 {fig(est.per_gpu_total_gib)} GiB**（其中张量 {fig(est.per_gpu_tensors_gib)} GiB）："
            f"{est.model}，{fig(est.params_b)}B 参数，{_TASKS_ZH.get(est.task, est.task)}，{est.framework}"
            + (f"，{layout}" if layout else "")
            + f"；{est.num_gpus} 卡合计 {fig(est.total_gib)} GiB。"
        )
        rows = ["| 项目 | GiB/卡 |", "|---|---|"]
    else:
        head = (
            f"**About {fig(est.per_gpu_total_gib)} GiB per GPU** ({fig(est.per_gpu_tensors_gib)} GiB of tensors): "
            f"{est.model}, {fig(est.params_b)}B parameters, {est.task}, {est.framework}, {est.layout}; "
            f"{fig(est.total_gib)} GiB over {est.num_gpus} GPU(s)."
        )
        rows = ["| term | GiB per GPU | meaning |", "|---|---|---|"]
    terms = est.per_gpu.model_dump()
    for key, zh, en in MEMORY_TERMS:
        if value := terms.get(key):
            meaning = "" if lang == "zh" else f" {est.meanings.get(key, '')} |"
            rows.append(f"| {zh if lang == 'zh' else en} | {fig(value)} |{meaning}")
    parts = [head, "\n".join(rows)]
    if warnings := rendered(est.warnings, lang):
        parts.append("\n".join(f"⚠ {w}" for w in warnings))
    folded = rendered([*est.assumptions, *([peak_phase_note(est.peak_phase)] if est.peak_phase else [])], lang)
    details = [AnswerDetail(title=say("details.assumptions", lang), markdown=_bullets(folded))] if folded else []
    return parts, details


def options_capacity(plan: Plan, lang: Language) -> str:
    """One line: how many sequences each option holds at the planned context (its KV-cache capacity)."""
    items = [
        say("capacity.item", lang, instance_type=o.instance_type, n=fig(o.max_concurrent_sequences))
        for o in plan.options[:_TABLE_ROWS]
        if o.max_concurrent_sequences is not None
    ]
    if not items:
        return ""
    context = fig(plan.workload.context_tokens)
    return say("capacity.options", lang, context=context, items=("；" if lang == "zh" else "; ").join(items))


def _bullets(items: Sequence[str]) -> str:
    return "\n".join(f"- {item}" for item in items)
