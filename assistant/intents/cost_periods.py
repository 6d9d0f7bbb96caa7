"""The cost of a plan in the period the user budgets in: a year, a week, a day, or per thousand requests.

"一年下来多少钱", "what does a day of serving cost", "每千次调用成本": the figure asked answers first, from the
option's own :class:`tools.plan_pricing.CostTotals` (so it names the same price, region and date as the monthly
line that follows). A subscription year with no subscription price in the asked region says so once, then gives
the nearest known subscription price with its region and date.
"""

from __future__ import annotations

import re

from assistant import render
from assistant.billing_words import MONEY_ASK, CostPeriod, billings, cost_period, follow_up_period
from assistant.messages import say
from assistant.price_phrases import basis_label
from assistant.run import TRAINING, Events, Run
from assistant.toolbox import price_of_instance
from assistant.understanding import Slots
from tools.plan import DeploymentOption, Plan
from tools.plan_pricing import monthly_cost
from tools.price_quotes import PriceQuote

_COST_WORDS = (
    r"多少钱|费用|成本|花费|开销|花多少|烧|账单|预算|包年|便宜|\bcheap\w*|\bcost\w*|\bprice\w*|\bbill\w*|\bspend\w*|\bburn\w*|"
    r"how\s+much|\bbudget\w*|¥|\bcny\b|\brmb\b|\bcomes?\s+to\b|\bset\s+(?:us|me)\s+back|\brun\s+(?:us|me)\b|"
    + MONEY_ASK
)
_SUBSCRIPTION_REGION = "cn-shanghai"  # the one region whose subscription prices the shipped list has


class CostPeriods(Run):
    """Lead lines for costs asked per year, per week, per day or per thousand requests."""

    def cost_question(self, s: Slots) -> str | None:
        """Return the earlier user turn that asked the cost, when this turn is a follow-up that does not."""
        if not (self.conv.turn.follow_up and s.asks_cost) or re.search(_COST_WORDS, self.question, re.IGNORECASE):
            return None
        users = [m.content for m in reversed(self.history) if m.role == "user"]
        return next((q for q in users if re.search(_COST_WORDS, q, re.IGNORECASE)), None)

    def period_lines(self, s: Slots, plan: Plan, question: str | None = None) -> Events:
        """Return the line that answers a yearly, daily or per-request cost question; [] for any other."""
        question = question or self.question
        period = cost_period(question)
        if question != self.question:  # a follow-up of a cost question: its own period wins ("and per year?")
            period = follow_up_period(self.question) or period
        # "what about per year?" after a plan that asked no cost: the period named alone asks the cost in it
        bare = None if question != self.question or not self.conv.turn.follow_up else follow_up_period(question)
        period = period or bare
        if s.rental_hours and s.task not in TRAINING and plan.options:
            return [self._rental_line(s, plan)]  # "a 2-day hackathon": what those hours cost answers first
        if s.users and s.asks_user_cost and s.task not in TRAINING and (line := self._user_line(s, plan)):
            return [line]  # "monthly cost per user": the month shared out over the people it serves
        if period is None or s.task in TRAINING or not (bare or re.search(_COST_WORDS, question, re.IGNORECASE)):
            return []
        if not plan.options:
            return []
        subscription = s.billing == "subscription" or "subscription-monthly" in billings(question)
        if period == "year" and subscription:
            return (yield from self._subscription_year(s, plan))
        if period == "hour" and s.usage_hours:
            return []  # "每小时多少钱，每天开 10 小时一个月多少钱": the month at those hours answers
        option = _cheapest(plan.options, usage=bool(s.usage_hours))
        if option is None or option.totals is None:
            return [say("cost.period_unpriced", self.lang, instance_type=plan.options[0].instance_type)]
        return [self._line(period, option, s)]

    def option_period_lines(self, s: Slots, option: DeploymentOption) -> list[str]:
        """Return the yearly, weekly, daily or per-request line of one priced option (named hardware), if asked."""
        period = cost_period(self.question)
        if period is None or option.totals is None or option.price_cny_per_hour is None:
            return []
        return [self._line(period, option, s)]

    def _rental_line(self, s: Slots, plan: Plan) -> str:
        """Return the pay-as-you-go total of a rental of hours, days or weeks, on the cheapest priced option."""
        priced = [o for o in plan.options if o.totals and o.totals.payg_cny_for_rental is not None]
        if not priced:
            return say("cost.period_unpriced", self.lang, instance_type=plan.options[0].instance_type)
        o = min(priced, key=lambda o: o.totals.payg_cny_for_rental or 0.0 if o.totals else 0.0)
        assert o.totals is not None
        return say("cost.rental", self.lang, total=render.fig(o.totals.payg_cny_for_rental),
                   hours=render.fig(s.rental_hours), **self._fields(o))  # fmt: skip

    def _user_line(self, s: Slots, plan: Plan) -> str | None:
        """Return the month per user of the top priced option, when the plan was given the users."""
        o = next((o for o in plan.options if o.totals and o.totals.cny_per_user_month is not None), None)
        if o is None or o.totals is None:
            return None
        if o.usage_hours_per_month is not None:  # part-time: the month is its hours of pay-as-you-go
            basis = basis_label(f"pay-as-you-go x {render.fig(o.usage_hours_per_month)} h/month", self.lang)
        else:
            basis = basis_label(o.price_month_basis, self.lang)
        fields = self._fields(o)
        if o.usage_hours_per_month is None and o.price_month_basis == "monthly subscription":
            fields["as_of"] = o.subscription_as_of or "?"  # the month is the subscription's, of its own date
        return say("cost.per_user", self.lang, per_user=render.fig(o.totals.cny_per_user_month),
                   users=render.fig(s.users), month=render.fig(monthly_cost(o)), basis=basis, **fields)  # fmt: skip

    def _fields(self, o: DeploymentOption) -> dict[str, object]:
        return {
            "hourly": render.fig(o.price_cny_per_hour),
            "instances": o.instances,
            "instance_type": o.instance_type,
            "gpus": o.total_gpus,
            "gpu": render.gpu_label(o, self.lang),
            "region": o.price_region or "?",
            "as_of": o.price_as_of or "?",
        }

    def _line(self, period: CostPeriod, o: DeploymentOption, s: Slots) -> str:
        t = o.totals
        assert t is not None
        fields = self._fields(o)
        if period == "requests" and t.cny_per_1k_requests is not None:
            code = "cost.requests_qps" if t.requests_basis == "stated_qps" else "cost.requests_output"
            return say(code, self.lang, per_1k=render.fig(t.cny_per_1k_requests), qps=render.fig(s.qps),
                       per_m=render.fig(o.cost_cny_per_million_tokens), **fields)  # fmt: skip
        usage = t.usage_cny_per_year is not None and o.usage_hours_per_month is not None
        hours = render.fig(o.usage_hours_per_month)
        if period == "hour":
            basis = basis_label(o.price_month_basis, self.lang)
            return say("cost.hour", self.lang, month=render.fig(o.price_cny_per_month), basis=basis, **fields)
        if period == "week" and t.payg_cny_per_week is not None and not usage:
            return say("cost.week", self.lang, week=render.fig(t.payg_cny_per_week), **fields)
        if period == "day":
            if usage:
                return say("cost.day_usage", self.lang, day=render.fig(t.usage_cny_per_day), hours=hours, **fields)
            return say("cost.day", self.lang, day=render.fig(t.payg_cny_per_day), **fields)
        if usage:
            return say("cost.year_usage", self.lang, year=render.fig(t.usage_cny_per_year), hours=hours, **fields)
        line = say("cost.year", self.lang, year=render.fig(t.payg_cny_per_year), **fields)
        if t.subscription_cny_per_year is not None:  # a year running all the time is what a subscription is for
            sub = {"monthly": render.fig(o.subscription_cny_per_month), "as_of": o.subscription_as_of or "?"}
            line += say("cost.year_or_subscription", self.lang, year=render.fig(t.subscription_cny_per_year), **sub)
        return line

    def _subscription_year(self, s: Slots, plan: Plan) -> Events:
        """Price a year on subscription: 12 months of the listed subscription, else the nearest known one."""
        subscribed = [o for o in plan.options if o.totals and o.totals.subscription_cny_per_year is not None]
        if subscribed:
            o = min(subscribed, key=lambda o: o.subscription_cny_per_month or 0)
            assert o.totals is not None
            return [
                say("cost.year_subscription", self.lang, year=render.fig(o.totals.subscription_cny_per_year),
                    monthly=render.fig(o.subscription_cny_per_month), as_of=o.subscription_as_of or "?",
                    region=o.price_region or "?", instances=o.instances, instance_type=o.instance_type,
                    gpus=o.total_gpus, gpu=render.gpu_label(o, self.lang))
            ]  # fmt: skip
        o = _cheapest(plan.options, usage=False) or plan.options[0]
        region = o.price_region or s.region or "?"
        lines = [say("cost.subscription_unknown", self.lang, instance_type=o.instance_type, region=region)]
        if region != _SUBSCRIPTION_REGION:
            quote, _ = yield from self.call(
                "price_of_instance", price_of_instance, instance_type=o.instance_type, region=_SUBSCRIPTION_REGION
            )
            if isinstance(quote, PriceQuote) and quote.subscription_monthly is not None:
                lines.append(
                    say("cost.subscription_nearest", self.lang, instance_type=o.instance_type, region=quote.region,
                        monthly=render.fig(quote.subscription_monthly), as_of=quote.subscription_as_of or "?")
                )  # fmt: skip
        if o.totals is not None and o.totals.payg_cny_per_year is not None:
            lines.append(self._line("year", o, s))
        return lines


def _cheapest(options: list[DeploymentOption], *, usage: bool) -> DeploymentOption | None:
    """Return the cheapest priced option a month (at the stated hours when the deployment runs part-time)."""
    if usage:
        priced = [o for o in options if o.usage_cny_per_month is not None and o.totals]
        return min(priced, key=lambda o: o.usage_cny_per_month or 0) if priced else None
    priced = [o for o in options if o.price_cny_per_month is not None and o.totals]
    return min(priced, key=lambda o: o.price_cny_per_month or 0) if priced else None
