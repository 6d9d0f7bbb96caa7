"""Cards the user owns against renting: "we already own 2x RTX 4090 - rent a gn7i or keep our cards?".

The owned hardware is evaluated exactly as stated (``evaluate_hardware_fit``), the rental with the same
workload by the planner (restricted to the GPU or family named to rent, else any GPU). The first line says
whether the owned cards hold the workload and, when they do not, the smallest change that makes them;
the cheapest rental that fits follows with its price, so the comparison is the user's, not a plan that
forgets the cards they have.
"""

from __future__ import annotations

import re
from typing import Any

from assistant import render
from assistant.intents.arguments import plan_args
from assistant.intents.verdict_words import family_gpu
from assistant.intents.workload import catalog_gpu
from assistant.messages import say
from assistant.run import Events, Reply, Run
from assistant.toolbox import evaluate_hardware_fit, plan_gpu_deployment
from assistant.understanding import Slots
from tools.hardware_fit import HardwareFit
from tools.plan import Plan

# "we already own", "we've got", "our own cards", "in the office", "on-prem"; "自己有", "手上有", "实验室有 4 张"
_OWNED_RE = re.compile(
    r"\b(?:we|i)\s+(?:already\s+|currently\s+|do\s+)?(?:own|have|got|bought|'ve\s+got|have\s+got)\b|"
    r"\bwe've\s+got\b|\bour\s+own\b|\bin[\s\-]house\b|\bon[\s\-]prem\w*|\bin\s+(?:the|our)\s+(?:office|lab)\b|"
    r"自己有|自己的(?:卡|显卡|机器|服务器)|手上有|手头有|手里有|已经有|现有|实验室(?:里)?有|公司(?:里)?有|机房(?:里)?有|本地有|自建",
    re.IGNORECASE,
)
# Renting weighed as the alternative ("rent a gn7i", "go to the cloud", "去阿里云租"); "on Alibaba Cloud" alone
# says where owned-by-subscription boxes run, not that renting is weighed.
_RENT_RE = re.compile(
    r"\brent\w*|\blease\w*|\b(?:go|move|switch)\w*\s+to\s+(?:the\s+)?cloud\b|租|上云", re.IGNORECASE
)


def owns_and_weighs_renting(question: str) -> bool:
    """Whether the question states cards the user owns and weighs renting against them."""
    return bool(_OWNED_RE.search(question) and _RENT_RE.search(question))


class CompareOwned(Run):
    """The owned cards evaluated as stated, then the cheapest rental with the same workload."""

    def owned_or_rented(self, s: Slots) -> Events:
        """Answer 'keep our cards or rent?' (None: the question is not one)."""
        if not (s.gpu_mentions and s.gpus and not s.instance_types and owns_and_weighs_renting(self.question)):
            return None
        owned, *others = s.gpu_mentions
        hardware = {"gpu": self.one_gpu(catalog_gpu(owned)), "gpus": s.gpus, "instances": 1}
        task = s.task or "inference"
        fit, _ = yield from self.call("evaluate_hardware_fit", evaluate_hardware_fit,
                                      **(self.fit_args(s, task) | hardware))  # fmt: skip
        if not isinstance(fit, HardwareFit):
            return None
        rent_gpu = catalog_gpu(others[0]) if others else family_gpu(s.families)
        rental = s.model_copy(update={"gpu": rent_gpu, "gpus": None, "instance_types": [], "families": []})
        plan, _ = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **plan_args(rental))
        option = plan.options[0] if isinstance(plan, Plan) and plan.options else None
        label = self.hardware_label(fit.hardware).strip()
        figures: dict[str, Any] = {"hardware": label, "need": render.fig(fit.per_gpu_needed_gib),
                                   "usable": render.fig(fit.per_gpu_usable_gib)}  # fmt: skip
        if fit.fits:
            rent = ""
            if option is not None and option.price_cny_per_hour is not None:
                rent = say("owned.rent_cost", self.lang, type=option.instance_type,
                           price=render.fig(option.price_cny_per_hour))  # fmt: skip
            head = say("owned.keep", self.lang, **figures, pct=render.fig(fit.headroom_pct), rent=rent)
        else:
            fix = next((c for c in fit.changes if c.fits), None)
            change = (
                say("owned.fix", self.lang, change=say(f"change.{fix.code}", self.lang, value=fix.value,
                                                       gib=render.fig(fix.per_gpu_gib)))  # fmt: skip
                if fix else ""
            )
            head = say("owned.short", self.lang, **figures, fix=change)
        parts = [head]
        if option is not None:
            price = render.fig(option.price_cny_per_hour) if option.price_cny_per_hour is not None else "?"
            parts.append(say("owned.rent", self.lang, type=option.instance_type, count=option.total_gpus,
                             gpu=option.gpu_model or "", need=render.fig(option.per_gpu_gib_needed),
                             usable=render.fig(option.per_gpu_capacity_gib), price=price))  # fmt: skip
        else:
            parts.append(say("owned.rent_none", self.lang))
        parts.append(self.understood_line(s.model_copy(update={"gpu": hardware["gpu"]})))
        return Reply(text="\n\n".join(parts), kind="recommendation")
