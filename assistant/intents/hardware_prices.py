"""Prices of the hardware the user named: its month and per-token cost, cheaper options, budgets.

"What does 1M tokens cost on 4 x L20?", "is there anything cheaper than this A100?", "预算 2 万够不够":
the named set priced from the planner's own options, weighed against the planner's best without it.
Split from :mod:`assistant.intents.hardware`, which decides whether the named hardware holds the workload.
"""

from __future__ import annotations

from assistant import render
from assistant.intents.arguments import plan_args
from assistant.intents.cost_periods import CostPeriods
from assistant.intents.plan_leads import PlanLeads
from assistant.intents.prices import PricesIntent
from assistant.intents.verdict_budget import budget_rescue, price_basis
from assistant.messages import say
from assistant.run import Events, Run
from assistant.toolbox import plan_gpu_deployment, price_of_instance
from assistant.understanding import Slots
from tools.hardware_fit import Hardware, HardwareFit
from tools.plan import Plan
from tools.plan_pricing import monthly_cost

# "It fits, but": another GPU's best option at two thirds of the hourly price or less is worth saying; so is
# one that is cheaper per hour AND at two thirds of the cost per million tokens or less (a legacy T4 at
# ¥11.63/h against an A10 at ¥9.53/h that decodes twice as fast: "cheaper per hour and per token").
_MUCH_CHEAPER = 1.5
# "Overkill": with no list price for the named GPU, a fitting card of half its usable memory or less is said.
MUCH_SMALLER = 2.0


def much_cheaper(hourly: float | None, per_m: float | None, other_hourly: float | None,
                 other_per_m: float | None) -> bool:  # fmt: skip
    """Whether the other option is worth naming: far cheaper per hour, or cheaper per hour and far per token."""
    if hourly is None or other_hourly is None:
        return False
    if other_hourly * _MUCH_CHEAPER <= hourly:
        return True
    tokens = per_m is not None and other_per_m is not None and other_per_m * _MUCH_CHEAPER <= per_m
    return other_hourly < hourly and tokens


class HardwarePrices(Run):
    """What the named hardware costs, and whether a cheaper option or the budget changes the answer."""

    def named_cost(self, s: Slots, fit: HardwareFit) -> Events:
        """Price the named hardware: its cost per month and per million tokens at the user's load."""
        hw = fit.hardware
        mine, _ = yield from self.call(
            "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"gpu": hw.gpu, "gpus": None}))
        )
        options = mine.options if isinstance(mine, Plan) else []
        same = [o for o in options if (o.instance_type == hw.instance_type and o.instances == hw.instances
                                       if hw.instance_type else o.total_gpus == hw.gpus)]  # fmt: skip
        if not same:
            return []
        o = same[0]
        if o.price_cny_per_hour is None or o.price_cny_per_month is None:
            unpriced = say("cost.named_unpriced", self.lang, instance_type=o.instance_type)
            return [unpriced, *(yield from PricesIntent.nearest_line(self, o.instance_type, s.region))]  # type: ignore[arg-type]
        tokens = self.conv.turn.asks_token_cost and o.cost_cny_per_million_tokens is not None
        per_m = render.fig(o.cost_cny_per_million_tokens) if o.cost_cny_per_million_tokens is not None else "?"
        return [
            *CostPeriods.option_period_lines(self, s, o),  # type: ignore[arg-type]  # "一年多少钱" on named hardware
            say("cost.tokens" if tokens else "cost.month", self.lang, monthly=render.fig(o.price_cny_per_month),
                hourly=render.fig(o.price_cny_per_hour), instances=o.instances, instance_type=o.instance_type,
                gpus=o.total_gpus, gpu=render.gpu_label(o, self.lang),
                basis=PlanLeads.month_basis(self, o),  # type: ignore[arg-type]
                source=PlanLeads.short_source(self, o.price_source),  # type: ignore[arg-type]
                per_m=per_m)
        ]  # fmt: skip

    def cheaper_than_named(self, s: Slots, fit: HardwareFit) -> Events:
        """Return 'it fits, but' lines when an option on any GPU costs far less per hour (None: nothing cheaper)."""
        hw = fit.hardware
        hourly = yield from self.named_hourly(s, hw)
        if hourly is None and hw.gpus * hw.instances == 1:  # one unpriced card: is a smaller one enough?
            return (yield from self.smaller_than_unpriced(s, fit))
        if hourly is None:
            return None
        wider, _ = yield from self.call(
            "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"gpu": None}))
        )
        best = wider.options[0] if isinstance(wider, Plan) and wider.options else None
        price = hourly * hw.instances
        own_per_m = yield from self.named_cost_per_m(s, hw)
        if best is None or best.gpu_model == hw.gpu and best.total_gpus == hw.gpus * hw.instances:
            return None
        if not much_cheaper(price, own_per_m, best.price_cny_per_hour, best.cost_cny_per_million_tokens):
            return None
        figures = {"hardware": self.hardware_label(hw), "model": fit.model, "need": render.fig(fit.per_gpu_needed_gib),
                   "usable": render.fig(fit.per_gpu_usable_gib), "pct": render.fig(fit.headroom_pct)}  # fmt: skip
        sep = "" if self.lang == "zh" else " "
        code = "gpu.cheaper" if hw.instances == 1 else "gpu.cheaper_many"  # "2 × ¥26.62": the listed price, twice
        line = say("fit.yes_but_cheaper", self.lang, **figures) + sep + say(
            code, self.lang, other=best.instance_type, other_gpu=render.gpu_label(best, self.lang),
            other_price=render.fig(best.price_cny_per_hour), price=render.fig(hourly), n=hw.instances,
            gpu=hw.gpu if hw.gpus == 1 else f"{hw.gpus} × {hw.gpu}",  # "the 2 × A10 option" beside one A10
        )  # fmt: skip
        if own_per_m is not None and best.cost_cny_per_million_tokens is not None:
            line += sep + say("gpu.cheaper_tokens", self.lang, other_cost=render.fig(best.cost_cny_per_million_tokens),
                              cost=render.fig(own_per_m))  # fmt: skip
        return [line]

    def named_cost_per_m(self, s: Slots, hw: Hardware) -> Events:
        """Return the cost per million tokens of the named hardware's option in the plan on its GPU, or None."""
        mine, _ = yield from self.call(
            "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"gpu": hw.gpu, "gpus": None}))
        )
        options = mine.options if isinstance(mine, Plan) else []
        same = [o for o in options if (o.instance_type == hw.instance_type if hw.instance_type else
                                       o.total_gpus == hw.gpus * hw.instances)]  # fmt: skip
        return same[0].cost_cny_per_million_tokens if same else None

    def smaller_than_unpriced(self, s: Slots, fit: HardwareFit) -> Events:
        """Return 'it fits, but a smaller card does too' lines when the named GPU has no list price.

        "Is an H20 overkill for a 7B?": a fitting card of half its usable memory or less is named with its
        price (None: nothing much smaller fits).
        """
        wider, _ = yield from self.call(
            "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"gpu": None}))
        )
        best = wider.options[0] if isinstance(wider, Plan) and wider.options else None
        hw = fit.hardware
        if best is None or best.price_cny_per_hour is None or best.total_gpus > hw.gpus * hw.instances:
            return None
        if best.per_gpu_capacity_gib * MUCH_SMALLER > fit.per_gpu_usable_gib:
            return None
        return [say("fit.yes_but_smaller", self.lang, hardware=self.hardware_label(hw), model=fit.model,
                    need=render.fig(fit.per_gpu_needed_gib), usable=render.fig(fit.per_gpu_usable_gib),
                    pct=render.fig(fit.headroom_pct), other=best.instance_type,
                    other_gpu=render.gpu_label(best, self.lang), other_price=render.fig(best.price_cny_per_hour),
                    gpu=hw.gpu)]  # fmt: skip

    def named_hourly(self, s: Slots, hw: Hardware) -> Events:
        """Return the hourly price of one named instance, or of the cheapest listed type holding the named GPUs."""
        if hw.instance_type:
            quote, _ = yield from self.call("price_of_instance", price_of_instance, instance_type=hw.instance_type,
                                            region=s.region)  # fmt: skip
            return None if quote is None else quote.hourly
        mine, _ = yield from self.call(
            "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"gpu": hw.gpu, "gpus": None}))
        )
        prices = [o.price_cny_per_hour for o in mine.options if o.total_gpus >= hw.gpus and o.price_cny_per_hour] \
            if isinstance(mine, Plan) else []  # fmt: skip
        return min(prices) if prices else None

    def budget_verdict(self, s: Slots, plan: Plan) -> Events:
        """'预算 2 万够不够': yes with the cheapest option in budget, or no with the cheapest that fits.

        A part-time deployment ("2 hours a day") is judged at its cost for those hours, as the planner does.
        """
        budget = render.fig(s.budget_cny_month)
        priced = [o for o in plan.options if monthly_cost(o) is not None]
        if priced:
            o = min(priced, key=lambda o: monthly_cost(o) or 0)
            return [say("budget.yes", self.lang, budget=budget, instance_type=o.instance_type, gpus=o.total_gpus,
                        monthly=render.fig(monthly_cost(o)), basis=price_basis(o, self.lang))]  # fmt: skip
        wider, _ = yield from self.call(
            "plan_gpu_deployment", plan_gpu_deployment, **plan_args(s.model_copy(update={"budget_cny_month": None}))
        )
        fits = [o for o in (wider.options if isinstance(wider, Plan) else []) if monthly_cost(o) is not None]
        if not fits:
            return [say("budget.unknown", self.lang, budget=budget)]
        if rescued := (yield from budget_rescue(self, s)):  # "yes, with INT4" before a no
            return [rescued]
        o = min(fits, key=lambda o: monthly_cost(o) or 0)
        return [say("budget.no", self.lang, budget=budget, instance_type=o.instance_type, gpus=o.total_gpus,
                    monthly=render.fig(monthly_cost(o)))]  # fmt: skip
