"""Answer-first rendering of a plan: a short text (the answer, a table, key figures) and folded details.

The text starts with the line that answers the question; rejections, every assumption and the planner's
warnings in full are folded into :class:`assistant.answer.AnswerDetail` sections, so an answer with a plan
stays short before its details. The planner's own strings (rejection reasons, assumptions) are English
tool text: they are only shown folded, under a title that says so.
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
from tools.plan import Plan

_TABLE_ROWS = 3


def plan_brief(
    plan: Plan, lang: Language, prefer: Sequence[str] = (), capacity: bool = False, summary: bool = True
) -> tuple[list[str], list[AnswerDetail]]:
    """Return the plan's text parts (summary, capacity/cost, a short table) and its folded details.

    ``summary`` False leaves out the paragraph on the top option (a verdict above already names it).
    """
    parts = [plan_summary(plan, lang)] if summary or not plan.options else []
    if plan.options:
        top = plan.options[0]
        per_option = options_capacity(plan, lang) if capacity else ""
        if per_option:
            parts.insert(0, per_option)  # "how many users does it hold?": a number per option answers first
        if capacity:
            parts.append(capacity_phrase(top, lang))
        parts += [p for p in (token_cost_phrase(top, lang),) if p]
    short = plan.model_copy(update={"options": plan.options[:_TABLE_ROWS]})
    if table := options_table(short, lang):
        parts.append(table)
    if plan.warnings:
        parts.append("\n".join(f"⚠ {w}" for w in plan.warnings[:2]))
    details = []
    rejected = rejection_summary(plan, lang, prefer)
    if rejected:
        details.append(AnswerDetail(title=say("details.rejected", lang), markdown=_bullets(rejected)))
    if len(plan.options) > _TABLE_ROWS:
        details.append(AnswerDetail(title=say("details.plan", lang), markdown=options_table(plan, lang)))
    notes = option_notes(plan, lang)
    assumptions = [*plan.assumptions, *notes, *plan.warnings[2:]]
    details.append(AnswerDetail(title=say("details.assumptions", lang), markdown=_bullets(assumptions)))
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
