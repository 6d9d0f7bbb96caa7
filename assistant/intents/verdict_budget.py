"""A budget verdict tries the cheap change before it says no, and names the price basis it says yes on.

"预算每月 3 万，70B 给 10 个人用，有戏吗": BF16 needs two A100s (¥50k+), but 4-bit weights fit four A10s
within the budget; the answer is "yes, with INT4", not "no". Only a change the user left open is tried: a
precision or quantisation they stated is kept. A "yes" on a subscription price says so, since the same
instance costs more by the hour ("每月 5000，7B 够不够": 包月 ¥4,576 fits, pay-as-you-go ¥6,959 does not).
"""

from __future__ import annotations

from assistant import render
from assistant.intents.arguments import plan_args, task_of
from assistant.messages import say
from assistant.run import Events, Run
from assistant.toolbox import plan_gpu_deployment
from assistant.understanding import Slots
from tools.plan import DeploymentOption, Plan

_SUBSCRIPTION = "monthly subscription"


def price_basis(option: DeploymentOption, lang: str) -> str:
    """' (monthly subscription)' when an option's monthly price is the subscription one, else ''."""
    return say("budget.basis_subscription", lang) if option.price_month_basis == _SUBSCRIPTION else ""


def budget_rescue(run: Run, s: Slots) -> Events:
    """Return 'yes, with 4-bit weights' when they bring the workload within the budget, else None.

    Tried only for serving when the user stated neither a precision nor a quantisation.
    """
    if not s.budget_cny_month or s.precision or s.quant or task_of(s) != "inference" or s.architecture:
        return None
    cheap = s.model_copy(update={"precision": "int4"})
    plan, _ = yield from run.call("plan_gpu_deployment", plan_gpu_deployment, **plan_args(cheap))
    priced = [o for o in (plan.options if isinstance(plan, Plan) else []) if o.price_cny_per_month is not None]
    within = [o for o in priced if (o.price_cny_per_month or 0) <= s.budget_cny_month]
    if not within:
        return None
    o = min(within, key=lambda o: o.price_cny_per_month or 0)
    figures = {"budget": render.fig(s.budget_cny_month), "monthly": render.fig(o.price_cny_per_month)}
    return say("budget.yes_int4", run.lang, instance_type=o.instance_type, gpus=o.total_gpus,
               basis=price_basis(o, run.lang), **figures)  # fmt: skip
