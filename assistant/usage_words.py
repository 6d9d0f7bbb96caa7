"""How users pay and how long they run, read from the question.

The billing mode ("包年包月", "pay as you go", "spot") and part-time use ("10 hours a day on weekdays",
"工作日白天", "200 hours a month"). Split from :mod:`assistant.rate_words`, which reads the rates and loads;
the usage hours price a part-time month.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assistant.billing_words import SUBSCRIPTION_WORDS
from assistant.reading import NUM, Scan, parse_number
from tools.prices import HOURS_PER_MONTH

Billing = Literal["pay-as-you-go", "subscription", "spot"]
_BILLING_RES: tuple[tuple[Billing, str], ...] = (
    ("spot", r"抢占式|竞价实例|\bspot\b|preemptible"),
    # "monthly or hourly?": the two modes weighed by their period words alone
    ("subscription", SUBSCRIPTION_WORDS + r"|\bmonthly(?=\s+(?:or|vs\.?|versus)\s+(?:hourly|by\s+the\s+hour))"),
    ("pay-as-you-go", r"按量|按需|按小时(?:付费|计费)|pay[\s\-]*as[\s\-]*you[\s\-]*go|on[\s\-]*demand|\bpayg\b|"
     r"\bpa(?:y|ying|id)\s+(?:by\s+the\s+hour|hourly|per\s+hour)\b|\bhourly\s+billing\b|"
     r"\bhourly(?=\s+(?:or|vs\.?|versus)\s+(?:monthly|subscription))|"
     r"(?<=monthly or )hourly\b|(?<=monthly vs )hourly\b"),
)


def find_billing(text: str) -> Billing | None:
    """Return the billing mode a workload question asks to price in ("包年包月", "pay as you go", "spot"), or None.

    When several are named ("包月还是按量"), the one named first is the one the plan ranks by.
    """
    found = [(m.start(), code) for code, pattern in _BILLING_RES if (m := re.search(pattern, text, re.IGNORECASE))]
    return min(found)[1] if found else None


def billing_modes(text: str) -> list[Billing]:
    """Every billing mode ``text`` names, in the order named ("spot or pay-as-you-go?" -> both)."""
    found = [(m.start(), code) for code, pattern in _BILLING_RES if (m := re.search(pattern, text, re.IGNORECASE))]
    return [code for _, code in sorted(found)]


_DAYS_PER_MONTH = HOURS_PER_MONTH / 24  # the planner's 730 h month
_HOURS_EN = r"(?:hours?|hrs?|h)\s*(?:a|per|/|each)\s*(?:day|working\s+day|weekday)"
_WEEKDAYS_RE = (
    r"weekdays?|working\s+days|business\s+days|mon(?:day)?\s*(?:-|to|–|through)\s*fri(?:day)?|工作日|周一(?:到|至)周五"
)


class UsageHours(BaseModel):
    """When a deployment runs, if not around the clock."""

    model_config = ConfigDict(extra="forbid")

    per_day: float = Field(gt=0, lt=24)
    days_per_week: float = Field(gt=0, le=7)
    per_month: float = Field(description="hours a month: per_day x days a week over the planner's 730 h month")
    stated: bool = Field(default=True, description="False: 'office hours' read as nine hours on weekdays")
    monthly: bool = Field(default=False, description="stated as hours a month ('100 小时一个月'), not a day")


_RANGE_EN = (
    r"(?<![\d.:])(\d{1,2})(?::00)?\s*(am|pm)?\s*(?:-|–|to|until|till|through)\s*(\d{1,2})(?::00)?\s*(am|pm)\b"
    r"|(?<![\d.:])(\d{1,2}):00\s*(?:-|–|to)\s*(\d{1,2}):00"
    # "9 to 6 on weekdays", "open 9-5": bare hours of a working day, the end in the afternoon
    rf"|(?<![\d.:$¥])(\d{{1,2}})\s*(?:-|–|to)\s*(\d{{1,2}})(?![\d.:%])(?=\s+(?:on\s+)?(?:{_WEEKDAYS_RE}))"
)
_RANGE_ZH = (
    r"(早上?|上午)?\s*(\d{1,2})\s*点\s*(?:到|至|-|~|–)\s*(晚上?|下午)?\s*(\d{1,2})\s*点"
    r"|早\s*(\d{1,2})\s*晚\s*(\d{1,2})"
)


def _range_hours(text: str) -> float | None:
    """Hours between two clock times ("9am-6pm", "9:00-18:00", "早上9点到晚上6点", "早9晚6"), or None."""
    if m := re.search(_RANGE_EN, text, re.IGNORECASE):
        if m.group(1):
            start, end = int(m.group(1)), int(m.group(3))
            start += 12 if (m.group(2) or "").lower() == "pm" and start < 12 else 0
            end += 12 if m.group(4).lower() == "pm" and end < 12 else 0
        elif m.group(5):
            start, end = int(m.group(5)), int(m.group(6))
        else:  # "9 to 6": a working day ends in the afternoon
            start, end = int(m.group(7)), int(m.group(8))
            end += 12 if end <= start else 0
    elif m := re.search(_RANGE_ZH, text):
        if m.group(2):
            start, end = int(m.group(2)), int(m.group(4))
            end += 12 if m.group(3) and end < 12 else 0
        else:
            start, end = int(m.group(5)), int(m.group(6)) + 12
    else:
        return None
    return float(end - start) if 0 <= start < end <= 24 else None


def _monthly_hours(scan: Scan) -> float | None:
    """Return the hours a month stated as such ("300 hours a month", "一个月用 300 小时"), under a full month."""
    m = scan.first(
        rf"(?<![\w.]){NUM}\s*(?:hours?|hrs?|h)\s*(?:a|per|/|each|every)\s*month\b",
        rf"(?:每月|一个月|每个月)[^\d，,。；;]{{0,6}}?{NUM}\s*(?:个)?\s*(?:小时|钟头)",
        rf"{NUM}\s*(?:个)?\s*小时\s*(?:/|每)\s*月",
    )
    hours = parse_number(m.group(1)) if m else None
    return hours if hours is not None and 0 < hours < HOURS_PER_MONTH else None


def find_usage_hours(scan: Scan) -> UsageHours | None:
    """Return when the deployment runs: hours a day, days a week and the hours a month that makes.

    Read from "10 hours a day on weekdays", "每天只在白天用 8 小时", "weekdays 9am-6pm", "早9晚6"; "office
    hours" alone is nine hours on weekdays (stated as assumed). None: it runs around the clock.
    """
    m = scan.first(
        rf"(?<![\w.]){NUM}\s*{_HOURS_EN}",
        rf"(?:每天|一天|每日|白天)[^\d，,。；;]{{0,8}}?{NUM}\s*(?:个)?\s*(?:小时|钟头|h\b)",
        rf"{NUM}\s*(?:个)?\s*(?:小时|钟头)\s*(?:/|每)\s*(?:天|日)",
    )
    office = re.search(
        r"office\s+hours|business\s+hours|working\s+hours|上班时间|办公时间|工作时间|工作日(?:的)?白天", scan.text, re.I
    )
    stated = True
    if m is None and (monthly := _monthly_hours(scan)) is not None:  # "300 hours a month": spread over every day
        return UsageHours(
            per_day=round(monthly / _DAYS_PER_MONTH, 2), days_per_week=7.0, per_month=monthly, monthly=True
        )
    if m:
        per_day: float | None = parse_number(m.group(1))
    elif (per_day := _range_hours(scan.text)) is None and office:
        per_day, stated = 9.0, False
    if per_day is None or not 0 < per_day < 24:
        return None
    days = 5.0 if office or re.search(_WEEKDAYS_RE, scan.text, re.IGNORECASE) else 7.0
    if re.search(r"\bweekends?\b|周末|双休日", scan.text, re.IGNORECASE) and not office:
        days = 2.0 if days == 7.0 else 7.0  # "only on weekends"; "weekdays and weekends" is every day
    month = round(per_day * _DAYS_PER_MONTH * days / 7, 1)
    return UsageHours(per_day=per_day, days_per_week=days, per_month=month, stated=stated)
