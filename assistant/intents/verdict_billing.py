"""Which billing mode suits a workload ("spot or pay-as-you-go for a LoRA run?", "在线服务用抢占式还是按量?").

The answer follows the cost guidance (knowledge/docs/*/cost-optimization.md): spot instances can be reclaimed
after their protection period, so they suit training that checkpoints and resumes, not a live endpoint; a
service running around the clock is cheaper on a monthly subscription. The prices are the plan's own.
"""

from __future__ import annotations

import re

from assistant import render
from assistant.answer import Language
from assistant.messages import say
from assistant.run import Events, Run
from assistant.toolbox import cheapest_region_for_gpu, find_instance_types, price_of_instance
from assistant.understanding import Slots
from assistant.usage_words import billing_modes
from tools.plan import Plan
from tools.price_quotes import GpuRegionPrices, PriceQuote

# "should I use spot", "抢占式合适吗", "is spot worth it": one mode put up for a yes/no
_ASKS_ABOUT = re.compile(
    r"\bor\b|还是|\bvs\.?\b|versus|which|哪个|哪种|should\s+i|worth|合适|适合|值得|划算|可以吗|行吗|好吗|\?\s*$|？\s*$",
    re.IGNORECASE,
)
_TRAINING = ("full", "lora", "qlora")
# batch inference and evaluation tolerate a lost node: the guidance lists them as a good fit for spot
_BATCH = re.compile(r"\bbatch\b|nightly|offline|evals?\b|evaluation|离线|批量|跑批|评测|夜间", re.IGNORECASE)


def billing_choice(question: str, s: Slots, plan: Plan, lang: Language) -> list[str]:
    """Return the billing verdict that answers a spot question, with the top option's prices (empty: not asked)."""
    modes = billing_modes(question)
    alone = modes == ["subscription"] and s.usage_hours is not None and bool(_ASKS_ABOUT.search(question))
    if alone:  # "4 hours a day: is a subscription worth it?": yes or no, against pay-as-you-go for those hours
        modes = ["subscription", "pay-as-you-go"]
    if "spot" not in modes:
        return _subscription_or_hourly(modes, s, plan, lang, yes_no=alone)
    if not (len(modes) >= 2 or _ASKS_ABOUT.search(question)):
        return []
    top = plan.options[0] if plan.options else None
    if top is None or top.price_cny_per_hour is None:
        prices = say("billing.no_price", lang)
    elif top.spot_cny_per_hour is not None:
        prices = say(
            "billing.spot_known",
            lang,
            type=top.instance_type,
            spot=render.fig(top.spot_cny_per_hour),
            payg=render.fig(top.price_cny_per_hour),
        )
    else:
        payg = render.fig(top.price_cny_per_hour)
        prices = say("billing.spot_unknown", lang, type=top.instance_type, payg=payg)
    if s.task in _TRAINING or s.train_tokens:
        return [say("billing.spot_training", lang, prices=prices)]
    if _BATCH.search(question):
        return [say("billing.spot_batch", lang, prices=prices)]
    line = say("billing.no_spot_serving", lang, prices=prices)
    if top is not None and top.subscription_cny_per_month is not None and s.usage_hours is None:
        monthly = render.fig(top.subscription_cny_per_month, lang)
        line += ("" if lang == "zh" else " ") + say("billing.subscription", lang, monthly=monthly)
    return [line]


def _subscription_or_hourly(modes: list[str], s: Slots, plan: Plan, lang: Language, yes_no: bool = False) -> list[str]:
    """'包月还是按量?': the month's subscription against pay-as-you-go for the hours it runs (empty: not asked)."""
    top = plan.options[0] if plan.options else None
    if set(modes) != {"subscription", "pay-as-you-go"} or top is None:
        return []
    sub, hourly = top.subscription_cny_per_month, top.price_cny_per_hour
    if sub is None or hourly is None:
        return []
    figures = {"type": top.instance_type, "sub": render.fig(sub, lang), "payg": render.fig(hourly)}
    rental = top.totals.payg_cny_for_rental if top.totals else None
    if s.rental_hours and rental is not None:  # "hourly or monthly for a weekend test?": a few days is hourly
        return [say("billing.rental_hourly", lang, **figures, total=render.fig(rental, lang),
                    hours=render.fig(s.rental_hours))]  # fmt: skip
    used = top.usage_cny_per_month
    if s.usage_hours is None or used is None:  # around the clock: the subscription is the cheaper month
        return [say("billing.subscription_always", lang, **figures)]
    code = "billing.hourly_part_time" if used < sub else "billing.subscription_part_time"
    line = say(code, lang, **figures, used=render.fig(used, lang), hours=render.fig(s.usage_hours.per_month))
    if yes_no:  # the subscription was asked about alone: its yes or no first
        head = say("billing.sub_no" if used < sub else "billing.sub_yes", lang)
        sep = "" if lang == "zh" else " "
        line = head + sep + re.sub(r"^\*\*(.+?)\*\*\s*", lambda m: m.group(1) + sep, line)
    return [line]


# Runs now and then: "occasional fine-tuning runs", "偶尔跑一下", "once in a while".
_OCCASIONAL = (
    r"\boccasional\w*|\bonce\s+in\s+a\s+while\b|\bnow\s+and\s+then\b|\bsporadic\w*|\bnot\s+(?:that\s+)?often\b|"
    r"\bfrom\s+time\s+to\s+time\b|偶尔|不定期|隔三差五|不常用|用得(?:很)?少|(?:一|每)个?月(?:就|只)?(?:跑|用|训)(?:几|一两)次"
)


def asks_occasional_subscription(question: str) -> bool:
    """Whether the question weighs a subscription for use now and then ("a gn7e subscription for occasional runs?")."""
    return "subscription" in billing_modes(question) and re.search(_OCCASIONAL, question, re.IGNORECASE) is not None


def occasional_subscription_line(quote: PriceQuote, lang: Language) -> str | None:
    """Return the no to a subscription for occasional use, with both prices of the type (None: one is unknown)."""
    if quote.hourly is None or quote.subscription_monthly is None:
        return None
    return say("billing.occasional_no", lang, type=quote.instance_type, payg=render.fig(quote.hourly),
               sub=render.fig(quote.subscription_monthly, lang))  # fmt: skip


class BillingLeads(Run):
    """Prices the hardware a billing question names, for the leads that weigh its billing modes."""

    def quote_named(self, s: Slots) -> Events:
        """Return the price quote of the hardware named (an instance type, a family's first, a GPU's cheapest)."""
        name = s.instance_types[0] if s.instance_types else None
        if name is None and s.families:
            found, _ = yield from self.call("find_instance_types", find_instance_types, family=s.families[0])
            name = next((i.instance_type for i in (found.instances if found else []) if not i.vgpu), None)
        if name is None and s.gpu:
            cheapest, _ = yield from self.call("cheapest_region_for_gpu", cheapest_region_for_gpu,
                                               gpu=self.one_gpu(s.gpu), gpu_count=s.gpus or 1)  # fmt: skip
            name = cheapest.cheapest_instance_type if isinstance(cheapest, GpuRegionPrices) else None
        if name is None:
            return None
        region = s.region if s.region and s.region != "any" else None
        quote, _ = yield from self.call("price_of_instance", price_of_instance, instance_type=name, region=region)
        return quote if isinstance(quote, PriceQuote) else None
