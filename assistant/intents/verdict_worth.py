"""'Is it worth switching to Y?' over a comparison of GPUs: yes, yes-but or no first, from the plans made.

"值不值得上 H800", "值得把 T4 换成 A10 吗", "is it worth paying for H800 over A100": the GPU switched *to* is
judged: no when no instance type holds the workload on it, yes when its cheapest fitting option is not dearer
per hour than the other side's, yes-but (faster perhaps, dearer or unpriced) otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant import render
from assistant.answer import Language, ToolCall
from assistant.messages import say

WORTH_RE = re.compile(
    r"值不值|值得|有必要|worth|necessary|good\s+idea|makes?\s+sense|\bsave\s+(?:us\s+|me\s+)?(?:any\s+)?money\b|"
    r"能省钱|省钱吗|"
    # a switch asked as yes/no: "can we downgrade to an A10?", "save money by moving from A100 to L20?"
    r"\b(?:down|up)grad\w*\s+(?:\w+\s+){0,3}?to\b|\bswitch\w*\s+(?:\w+\s+){0,3}?to\b|"
    r"\bmov(?:e|ing)\b.{0,40}\bfrom\b.{0,40}\bto\b|(?:降级到|迁移到).{0,30}(?:吗|么|\?|？)",
    re.IGNORECASE,
)
# the word before the GPU switched to: "换成 A10", "上 H800", "going H800", "paying for H800", "upgrade to L20"
_TARGET_CUE = (
    r"(?:换成|换到|改用|升级到|升到|上|用|to|going(?:\s+with)?|for|get(?:ting)?|rent(?:ing)?)\s*(?:an?\s+|the\s+)?"
)


_SWITCH_CUE = r"(?:换成|换到|改用|升级到|升到|降级到|迁移到|\bto)\s*(?:an?\s+|the\s+)?"


def worth_line(question: str, gpus: Sequence[str], calls: Sequence[ToolCall], lang: Language) -> str | None:
    """Return the yes/no line of a 'worth it' question about two compared GPUs (None: not one)."""
    if not WORTH_RE.search(question) or len(gpus) < 2:
        return None
    target = _target(question, gpus[:2])
    other = next(g for g in gpus[:2] if g != target)
    cheapest = {gpu: _cheapest(gpu, calls) for gpu in (target, other)}
    if cheapest[target] is None:
        return None  # not planned on that GPU: nothing to judge from
    fits, price = cheapest[target]
    if not fits:
        return say("claim.worth_no", lang, winner=target, loser=other)
    theirs = cheapest[other][1] if cheapest[other] else None
    if price is not None and theirs is not None and price <= theirs:
        return say("claim.worth_yes", lang, target=target, other=other, low=render.fig(price), high=render.fig(theirs))
    if no := _dearer_per_token(target, other, calls, lang) or _slower_unpriced(target, other, calls, lang):
        return no
    return say("claim.worth_yes_but", lang, winner=target)


def _slower_unpriced(target: str, other: str, calls: Sequence[ToolCall], lang: Language) -> str | None:
    """Return the hedged line when the GPU switched to has no list price and decodes slower (speed not bought)."""
    ours, theirs = _top_option(target, calls), _top_option(other, calls)
    if ours is None or theirs is None or ours.get("price_cny_per_hour") is not None:
        return None
    fast, slow = theirs.get("decode_tokens_per_s"), ours.get("decode_tokens_per_s")
    if fast is None or slow is None or slow >= fast:
        return None
    return say("claim.worth_unclear", lang, target=target, other=other, n=ours["total_gpus"], m=theirs["total_gpus"],
               slow=render.fig(slow), fast=render.fig(fast))  # fmt: skip


def _dearer_per_token(target: str, other: str, calls: Sequence[ToolCall], lang: Language) -> str | None:
    """Return the no line when the other GPU holds the workload for less per hour and per token (only speed)."""
    ours, theirs = _top_option(target, calls), _top_option(other, calls)
    keys = ("price_cny_per_hour", "cost_cny_per_million_tokens", "decode_tokens_per_s")
    if ours is None or theirs is None or any(o.get(k) is None for o in (ours, theirs) for k in keys):
        return None
    if ours[keys[0]] <= theirs[keys[0]] or ours[keys[1]] < theirs[keys[1]]:
        return None
    return say("claim.worth_no_cost", lang, target=target, other=other, low=render.fig(theirs[keys[0]]),
               high=render.fig(ours[keys[0]]), low_m=render.fig(theirs[keys[1]]), high_m=render.fig(ours[keys[1]]),
               fast=render.fig(ours[keys[2]]), slow=render.fig(theirs[keys[2]]))  # fmt: skip


def _top_option(gpu: str, calls: Sequence[ToolCall]) -> dict | None:
    """Return the first (best-ranked) option of the plan restricted to ``gpu``, as the tool returned it."""
    for call in calls:
        if call.name == "plan_gpu_deployment" and call.args.get("gpu") == gpu and isinstance(call.result, dict):
            options = call.result.get("options") or []
            return options[0] if options else None
    return None


def _target(question: str, gpus: Sequence[str]) -> str:
    # A switch's own words name the target before a bare "用"/"for" does ("还在用 V100 ... 换成 A10": A10).
    for cue in (_SWITCH_CUE, _TARGET_CUE):
        for gpu in gpus:
            if re.search(cue + _written(gpu, gpus) + r"(?![0-9])", question, re.IGNORECASE):
                return gpu
    return gpus[0]


def _written(gpu: str, gpus: Sequence[str]) -> str:
    """Return how ``gpu`` is written in a question: its base name, or its memory where two share the base.

    "A100 40G vs A100 80G ... worth paying for the 80G?": the variants are told apart by their size alone.
    """
    base = gpu.split("-")[0]
    size = re.search(r"-(\d+)GB", gpu)
    if size and sum(g.split("-")[0] == base for g in gpus) > 1:
        return rf"(?:{re.escape(base)}[\s\-]?)?{size.group(1)}\s*G(?:B|iB)?"
    return re.escape(base)


def _cheapest(gpu: str, calls: Sequence[ToolCall]) -> tuple[bool, float | None] | None:
    """Whether the plan on ``gpu`` found an option, and its lowest hourly price (None: no such plan)."""
    for call in calls:
        if call.name != "plan_gpu_deployment" or call.args.get("gpu") != gpu or not isinstance(call.result, dict):
            continue
        options = call.result.get("options") or []
        prices = [o["price_cny_per_hour"] for o in options if o.get("price_cny_per_hour") is not None]
        return bool(options), (min(prices) if prices else None)
    return None
