"""A speed target answered first: "each user needs ≥ 30 tokens/s, which instance?", "TTFT < 1s", "200 tok/s total".

The planner turned away every layout that misses the target (:mod:`tools.speed_targets`); this line says
which instance meets it and the figure it reaches, or, when none does, the closest one and its figure. A pure
function of the recorded tool calls; the text lives in the message catalogue (``target.*``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant import render
from assistant.answer import Language, ToolCall
from assistant.messages import say
from tools import catalog

_CODES = {"reject.speed_per_stream": "stream", "reject.ttft": "ttft"}


def target_line(calls: Sequence[ToolCall], lang: Language) -> str | None:
    """Return the first line for a plan held to speed targets, or None (no plan with a target)."""
    for call in calls:
        if call.name == "plan_gpu_deployment" and isinstance(call.result, dict):
            if line := plan_target_line(call.result, lang):
                return line
    return None


def plan_target_line(plan: dict[str, Any], lang: Language) -> str | None:
    """Return the first line for one plan (as JSON) held to speed targets, or None (it has none)."""
    workload = plan.get("workload") or {}
    targets = _targets(workload)
    if not targets:
        return None
    options = plan.get("options") or []
    if options:
        return _met(options[0], targets, workload, lang)
    return _missed(plan.get("rejected") or [], lang)


def _targets(workload: dict[str, Any]) -> dict[str, float]:
    named = {"stream": "min_tokens_per_s_per_stream", "ttft": "max_ttft_s", "total": "min_tokens_per_s_total"}
    return {kind: float(workload[key]) for kind, key in named.items() if workload.get(key) is not None}


def _met(top: dict[str, Any], targets: dict[str, float], workload: dict[str, Any], lang: Language) -> str:
    figures = []
    if "stream" in targets:
        users = workload.get("concurrency") or 1
        figures.append(say("target.stream", lang, stream=render.fig(top.get("decode_tokens_per_s_per_stream")),
                           users=users, target=render.fig(targets["stream"])))  # fmt: skip
    if "ttft" in targets:
        figures.append(say("target.ttft", lang, ttft=render.fig(top.get("time_to_first_token_s")),
                           target=render.fig(targets["ttft"])))  # fmt: skip
    if "total" in targets:
        figures.append(say("target.total", lang, total=render.fig(top.get("decode_tokens_per_s")),
                           target=render.fig(targets["total"])))  # fmt: skip
    gpu = top.get("gpu_model") or top.get("gpu_model_likely") or "?"
    sep = "；" if lang == "zh" else "; "
    return say("target.met", lang, instances=top["instances"], instance_type=top["instance_type"],
               gpus=top["total_gpus"], gpu=gpu, figures=sep.join(figures))  # fmt: skip


def _missed(rejected: list[dict[str, Any]], lang: Language) -> str | None:
    """No option meets the targets: the closest type turned away for speed, with its figure."""
    slow = [r for r in rejected if (r.get("reason") or {}).get("code") in _CODES]
    if not slow:
        return None
    kind = _CODES[slow[0]["reason"]["code"]]
    same = [r for r in slow if _CODES[r["reason"]["code"]] == kind]
    pick = min if kind == "ttft" else max
    best = pick(same, key=lambda r: float(r["reason"]["values"]["reached"]))
    values = best["reason"]["values"]
    return say(f"target.none_{kind}", lang, instance_type=best["instance_type"],
               reached=render.fig(values["reached"]), target=render.fig(values["target"]))  # fmt: skip


def ttft_verdict(
    named: tuple[str | None, int | None, Sequence[str]], target: float, calls: Sequence[ToolCall], lang: Language
) -> str | None:
    """'Can one A10 return the first token within 0.5 s?': yes or no for the named set, with its figure.

    ``named`` is the GPU, its count and the instance types the user named; the plans were held to ``target``,
    so the set is either an option (yes, with its time) or a type turned away with the time it reaches (no).
    """
    gpu, gpus, types = named
    for call in calls:
        if call.name != "plan_gpu_deployment" or not isinstance(call.result, dict):
            continue
        for option in call.result.get("options") or []:
            if _is_named(option["instance_type"], option["total_gpus"], named) and option.get("time_to_first_token_s"):
                return say("target.ttft_yes", lang, instance_type=option["instance_type"], target=render.fig(target),
                           ttft=render.fig(option["time_to_first_token_s"]))  # fmt: skip
        for r in call.result.get("rejected") or []:
            values = (r.get("reason") or {}).get("values") or {}
            if r["reason"]["code"] == "reject.ttft" and _is_named(r["instance_type"], None, named):
                return say("target.ttft_no", lang, instance_type=r["instance_type"], target=render.fig(target),
                           ttft=render.fig(values["reached"]))  # fmt: skip
    return None


def _is_named(instance_type: str, total_gpus: int | None, named: tuple[str | None, int | None, Sequence[str]]) -> bool:
    gpu, gpus, types = named
    if instance_type in types:
        return True
    inst = catalog.get_instance(instance_type)
    count = total_gpus if total_gpus is not None else inst.gpu_count
    return bool(gpu) and gpu in (inst.gpu_name or "") and (gpus is None or count == gpus)
