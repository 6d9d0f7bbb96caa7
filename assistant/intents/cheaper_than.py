"""A question like "anything cheaper than an A100 for this?": the plan without that GPU, priced against the plan on it.

The user names the card to beat, so the answer is a yes/no on price, not the plan without it: both plans come from
the planner with the same workload and are compared on the pay-as-you-go hourly price (one billing basis; a
subscription is not listed for every type).
"""

from __future__ import annotations

from assistant import render
from assistant.answer import Language
from assistant.intents.arguments import plan_args
from assistant.messages import say
from assistant.run import Events, Run
from assistant.toolbox import plan_gpu_deployment
from assistant.understanding import Slots
from tools.plan import DeploymentOption, Plan


def cheapest_by_hour(plan: Plan) -> DeploymentOption | None:
    """Return the plan's priced option with the lowest pay-as-you-go hour (None: no option is priced)."""
    priced = [o for o in plan.options if o.price_cny_per_hour is not None]
    return min(priced, key=lambda o: o.price_cny_per_hour or 0.0) if priced else None


class CheaperThanLeads(Run):
    """The lead line of a plan that must beat a named GPU on price."""

    def cheaper_than_line(self, s: Slots, plan: Plan) -> Events:
        """Yes (the cheaper option and both hourly prices) or no (what the named GPU costs and the best without it)."""
        gpu = self.conv.turn.cheaper_than
        if not gpu:
            return []
        rival_slots = s.model_copy(update={"gpu": gpu, "gpus": None, "exclude_gpus": []})
        rival, err = yield from self.call("plan_gpu_deployment", plan_gpu_deployment, **plan_args(rival_slots))
        ours, theirs = cheapest_by_hour(plan), cheapest_by_hour(rival) if isinstance(rival, Plan) and not err else None
        if ours is None:
            return [say("cheaper.none_priced", self.lang, gpu=gpu, model=plan.model)]
        figures = {"gpu": gpu, "model": plan.model, **_option(ours, "", self.lang)}
        if theirs is None:
            return [say("cheaper.rival_unpriced", self.lang, **figures)]
        figures |= _option(theirs, "rival_", self.lang)
        hourly, rival_hourly = ours.price_cny_per_hour or 0.0, theirs.price_cny_per_hour or 0.0
        code = "cheaper.yes" if hourly < rival_hourly else "cheaper.no"
        return [say(code, self.lang, **figures)]


def _option(o: DeploymentOption, prefix: str, lang: Language) -> dict[str, str]:
    return {
        f"{prefix}instances": str(o.instances),
        f"{prefix}instance_type": o.instance_type,
        f"{prefix}total": str(o.total_gpus),
        f"{prefix}card": render.gpu_label(o, lang),
        f"{prefix}hourly": render.fig(o.price_cny_per_hour or 0.0),
    }
