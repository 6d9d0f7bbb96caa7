"""Tokens served a day or a month ("每天 5000 万 token 的调用量", "50M tokens a day through Qwen2.5-7B").

A volume per period is a load, not a training set: at the request length stated (else the planner's default
context) it is a number of requests, and at the peak's multiple of the average, the QPS to plan for.
"""

from __future__ import annotations

from assistant.rate_words import Period, RateBasis, requests_rate
from assistant.reading import NUM, Scan, parse_number

_BIG = r"(thousand|million|billion|百万|千万|[kKmMbB万亿])"
_TOKENS = r"(?:个)?\s*(?:tokens?|token|词元)(?![A-Za-z])"
_PERIODS: tuple[tuple[Period, str, str], ...] = (
    ("day", r"(?:a|per|/|each|every)\s*day\b|daily", r"每天|每日|一天|日均|天"),
    ("week", r"(?:a|per|/|each|every)\s*week\b|weekly", r"每周|每个?星期|一周"),
    ("month", r"(?:a|per|/|each|every)\s*month\b|monthly", r"每月|每个月|一个月|月均"),
)


def find_token_volume(scan: Scan) -> tuple[float, Period] | None:
    """Return the tokens served in a period and the period ("50M tokens a day" -> (5e7, "day")), or None."""
    for period, en, zh in _PERIODS:
        m = scan.first(
            rf"{NUM}\s*{_BIG}\s*{_TOKENS}\s*(?:of\s+\w+\s+)?(?:{en})",
            rf"(?:{zh})\s*(?:大概|大约|约|有|处理|调用|跑|消耗|用掉)?\s*(?:大概|大约|约)?\s*{NUM}\s*{_BIG}\s*{_TOKENS}",
            rf"(?:daily|monthly|weekly)\s+(?:volume|usage|traffic)\s+(?:of\s+)?(?:about\s+|around\s+|~)?{NUM}\s*{_BIG}\s*"
            rf"{_TOKENS}",
        )
        if m:
            return parse_number(m.group(1), m.group(2)), period
    return None


def token_rate(scan: Scan, tokens: float, per: Period, per_request: int) -> RateBasis:
    """Return the QPS ``tokens`` a ``per`` make at ``per_request`` tokens a request, at the peak."""
    rate = requests_rate(scan, tokens / per_request, per)
    return rate.model_copy(update={"kind": "token_volume", "amount": tokens, "per_request": per_request})
