"""Billing-mode and region-comparison words in a question ("包月", "spot", "哪个地域最便宜", "cheapest region").

Read by the intent rules (is this a price question?) and by :mod:`assistant.intents.prices` (which billing
modes to show); no other imports, so both can use it without a cycle.
"""

from __future__ import annotations

import re

_BILLING_WORDS = (
    ("subscription-monthly", r"包月|包年|包年包月|subscription|subscribe|monthly\s+plan|reserved"),
    ("pay-as-you-go", r"按量|按需|按小时|pay[\s\-]*as[\s\-]*you[\s\-]*go|on[\s\-]*demand|payg"),
    ("spot", r"抢占式?|竞价|spot|preemptible"),
)
_REGION_ASK = (
    r"地域|区域|哪里最便宜|哪儿最便宜|哪个地方|在哪(?:里|儿)?(?:买|开)?.{0,4}便宜|\bregions?\b|"
    r"where\s+(?:is\s+)?(?:it\s+)?(?:the\s+)?cheapest|cheapest\s+(?:region|place|location)"
)
_PRICE_ASK = (
    r"多少钱|价格|价钱|费用|便宜|贵|划算|成本|花多少|每月|一个月|每小时|"
    r"\bcost\w*|\bprices?\b|\bpriced\b|cheap\w*|expensive|how\s+much|per\s+(?:month|hour)|save|saving|"
    r"hourly|monthly\s+(?:rate|fee|bill)|\brates?\s+(?:for|of)\b|单价|租金"
)
_FOLLOW_UP = r"呢\s*[?？]?\s*$|^\s*(?:那|那么|what\s+about|how\s+about|and)\b"


def billings(text: str) -> list[str]:
    """Billing modes named, in the order of the table above (subscription, pay-as-you-go, spot)."""
    return [code for code, pattern in _BILLING_WORDS if re.search(pattern, text, re.IGNORECASE)]


_BASIS = {"subscription-monthly": "subscription", "pay-as-you-go": "pay-as-you-go", "spot": "spot"}


def billing_basis(text: str) -> str | None:
    """Return the one billing mode a workload question asks to be priced by ("按包月算", "on spot"), else None."""
    named = billings(text)
    return _BASIS[named[0]] if len(named) == 1 else None


def asks_region(text: str) -> bool:
    """Whether the question asks which region (is cheapest), not about one region."""
    return bool(re.search(_REGION_ASK, text, re.IGNORECASE))


def price_question(text: str, named: bool = False) -> bool:
    """Tell whether ``text`` asks for prices by region or billing mode ("哪个地域最便宜", "包月多少钱", "那按量呢?")."""
    priced = bool(re.search(_PRICE_ASK, text, re.IGNORECASE))
    if asks_region(text) and (priced or billings(text)):
        return True
    # A billing mode next to a named instance, family or GPU ("乌兰察布 A10 包月") asks for that price too.
    return bool(billings(text)) and (priced or named or bool(re.search(_FOLLOW_UP, text, re.IGNORECASE)))


def asks_price(text: str) -> bool:
    """Whether ``text`` asks what something costs ("how much does ecs.gn8is.4xlarge cost", "一个月多少钱")."""
    return bool(re.search(_PRICE_ASK, text, re.IGNORECASE))
