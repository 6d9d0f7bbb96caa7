"""Several models hosted together: "we host Qwen2.5-72B-AWQ, Qwen2.5-7B and bge-m3, what cluster?", "同时部署 A 和 B".

Not a comparison (no winner is asked): each model is planned with its own planner and settings as written beside
it, on its own instances, and the first line gives the fleet in all (instances, GPUs, pay-as-you-go price) from
:func:`tools.fleet.fleet_cost`; a line per model follows.
"""

from __future__ import annotations

import re
from typing import Any

from assistant import render
from assistant.intents.arguments import plan_args
from assistant.intents.colocate import VERSUS_RE
from assistant.intents.compare_sides import settings_as_written
from assistant.intents.media import media_plan_args
from assistant.messages import say
from assistant.run import Events, Reply, Run
from assistant.toolbox import plan_gpu_deployment, plan_media_deployment
from assistant.understanding import Slots
from tools.fleet import FleetCost, FleetPart, fleet_cost
from tools.media_models import resolve_media_model
from tools.media_plan import MediaPlan
from tools.plan import Plan

# "host 3 models", "serve both", "all of them", "同时部署", "都要部署", "一起跑": the models run side by side
_TOGETHER_RE = (
    r"\b(?:host|deploy|serve|run|hosting|deploying|serving|running)\b.{0,40}?\b(?:\d+|two|three|four|several|multiple|"
    r"these|all|both)\s+(?:of\s+(?:them|these)\s+|llms?\s+|models?\b)|"
    r"\b(?:all|both)\s+(?:of\s+)?(?:them|these|those|models?)\b.{0,30}?\b(?:together|at\s+once|simultaneously)|"
    r"\b(?:together|side\s+by\s+side)\b|"
    r"\b(?:host|deploy|serve|run)\w*\s+both\b|\bfor\s+\d+\s+(?:users|people)\s+each\b|各\s*\d+\s*(?:个|路)?\s*并发|"
    r"同时(?:部署|上线|跑|运行|提供|服务)|都要(?:部署|上线|跑)|一起(?:部署|跑|运行|上线)"
)


def hosts_together(question: str, s: Slots) -> bool:
    """Whether the question asks to run every model it names at once, not to choose between them."""
    named = len(s.models) + (1 if s.media and s.media.model else 0)
    return named >= 2 and bool(re.search(_TOGETHER_RE, question, re.I)) and not re.search(VERSUS_RE, question, re.I)


class FleetIntent(Run):
    """Plans each model of a multi-model deployment and sums the fleet."""

    def fleet_answer(self, s: Slots) -> Events:
        parts: list[FleetPart] = []
        lines: list[str] = []
        own = settings_as_written(self.question, s.models)
        for model in s.models:
            setting = own.get(model) or ({} if not own else {"precision": "bf16", "quant": None})
            args = plan_args(s.model_copy(update={"model": model, "gpu": None, **setting}))
            plan, err = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **args)
            lines.append(self._fleet_line(model, plan, err, parts))
        if s.media and s.media.model:
            media = resolve_media_model(s.media.model)
            args = media_plan_args(s.model_copy(update={"gpu": None}), s.media, media)
            plan, err = yield from self.call("plan_media_deployment", plan_media_deployment, **args)
            lines.append(self._fleet_line(media.display_name, plan, err, parts))
        if not parts:
            return self.error("; ".join(c.error for c in self.calls if c.error) or "no model could be planned")
        total, err = yield from self.call("fleet_cost", fleet_cost, models=[p.model_dump() for p in parts])
        if err or not isinstance(total, FleetCost):
            return self.error(err or "")
        code = "fleet.lead" if total.cny_per_month is not None else "fleet.lead_unpriced"
        lead = say(code, self.lang, models=len(parts), instances=total.instances, gpus=total.total_gpus,
                   hourly=render.fig(total.cny_per_hour), monthly=render.fig(total.cny_per_month),
                   unpriced=", ".join(f"`{t}`" for t in total.unpriced))  # fmt: skip
        return Reply(text="\n\n".join([lead, *lines, say("fleet.separate", self.lang)]), kind="recommendation")

    def _fleet_line(self, name: str, plan: Any, err: str | None, parts: list[FleetPart]) -> str:
        """One model's line, and its part of the fleet when the planner found an option."""
        if not isinstance(plan, Plan | MediaPlan) or not plan.options:
            return say("fleet.part_none", self.lang, model=name, reason=err or say("fleet.no_option", self.lang))
        top = plan.options[0]
        parts.append(FleetPart(model=name, instance_type=top.instance_type, instances=top.instances,
                               total_gpus=top.total_gpus, price_cny_per_hour=top.price_cny_per_hour))  # fmt: skip
        price = render.fig(top.price_cny_per_hour) if top.price_cny_per_hour is not None else "?"
        gpu = top.gpu_model or top.gpu_model_likely or "?"
        return say("fleet.part", self.lang, model=name, instances=top.instances, instance_type=top.instance_type,
                   gpus=top.total_gpus, gpu=gpu, need=render.fig(top.per_gpu_gib_needed),
                   usable=render.fig(top.per_gpu_capacity_gib), hourly=price)  # fmt: skip
