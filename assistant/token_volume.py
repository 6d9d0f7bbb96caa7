"""Tokens served a day or a month ("每天 5000 万 token 的调用量", "50M tokens a day through Qwen2.5-7B").

A volume per period is a load, not a training set: at the request length stated (else the planner's default
context) it is a number of requests, and at the peak's multiple of the average, the QPS to plan for.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from assistant.rate_words import Period, RateBasis, requests_rate
from assistant.reading import NUM, Scan, parse_number

_BIG = r"(thousand|million|billion|百万|千万|[kKmMbB万亿])"
_TOKENS = r"(?:个)?\s*(output\s+|generated\s+|completion\s+|输出\s*|生成\s*)?(?:tokens?|token|词元)(?![A-Za-z])"
_OUT_ZH = r"(?:输出|生成)?"
_PERIODS: tuple[tuple[Period, str, str], ...] = (
    ("day", r"(?:a|per|/|each|every)\s*day\b|daily", r"每天|每日|一天|日均|天"),
    ("week", r"(?:a|per|/|each|every)\s*week\b|weekly", r"每周|每个?星期|一周"),
    ("month", r"(?:a|per|/|each|every)\s*month\b|monthly", r"每月|每个月|一个月|月均"),
)


class TokenVolume(BaseModel):
    """Tokens served in a period: all of them (prompt and output), or only the output ones."""

    model_config = ConfigDict(extra="forbid")

    tokens: float
    per: Period
    output_only: bool = Field(description="'3M output tokens a day': the output of each request, not its whole length")


def find_token_volume(scan: Scan) -> TokenVolume | None:
    """Return the tokens served in a period ("50M tokens a day", "每天 5000 万 token 的调用量"), or None."""
    for period, en, zh in _PERIODS:
        m = scan.first(
            rf"{NUM}\s*{_BIG}\s*{_TOKENS}\s*(?:of\s+\w+\s+)?(?:{en})",
            rf"(?:{zh})\s*(?:大概|大约|约|有|处理|调用|跑|消耗|用掉|{_OUT_ZH})?\s*(?:大概|大约|约)?\s*{NUM}\s*{_BIG}\s*{_TOKENS}",
            rf"(?:daily|monthly|weekly)\s+(?:volume|usage|traffic)\s+(?:of\s+)?(?:about\s+|around\s+|~)?{NUM}\s*{_BIG}\s*"
            rf"{_TOKENS}",
        )
        if m:
            output = bool(m.group(3)) or bool(re.search(r"输出|生成", m.group(0)))
            return TokenVolume(tokens=parse_number(m.group(1), m.group(2)), per=period, output_only=output)
    return None


def token_rate(scan: Scan, volume: TokenVolume, per_request: int) -> RateBasis:
    """Return the QPS ``volume`` makes at ``per_request`` tokens a request (its output only if so), at the peak."""
    rate = requests_rate(scan, volume.tokens / per_request, volume.per)
    update = {"kind": "token_volume", "amount": volume.tokens, "per_request": per_request}
    return rate.model_copy(update=update | {"output_only": volume.output_only})
