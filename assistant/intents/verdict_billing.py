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
from assistant.rate_words import billing_modes
from assistant.understanding import Slots
from tools.plan import Plan

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
    if "spot" not in modes or not (len(modes) >= 2 or _ASKS_ABOUT.search(question)):
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
