"""Money in a question: a budget (per month, per year, or for a run) and amounts in a foreign currency.

"预算每月 3 万", "a budget of 5000 a month", "8 万预算一年" (a year's budget, per month); "$2000/month" is money
the prices (CNY) cannot be compared with without a rate, so it is returned as written.
"""

from __future__ import annotations

import re

from assistant.reading import NUM, SUFFIX, Scan, parse_number

_PER_YEAR = r"(?:每年|一年|全年|/\s*年|per\s+year|a\s+year|/\s*yr\b|annually|yearly|per\s+annum)"


def _yearly_budget(scan: Scan, money: str, cur: str, cur_after: str) -> float | None:
    """Return a budget stated per year ("8 万预算一年", "年预算 10 万", "annual budget of 100k") a month."""
    year = r"(?:每年|一年|全年|年度|年|annual|yearly|per\s+year|a\s+year)"
    m = scan.first(
        rf"(?:预算|budget)\s*(?:是|为|:|：|of)?\s*{_PER_YEAR}\s*(?:的)?\s*(?:大概|大约|约|about|around)?\s*{money}",
        rf"{year}\s*(?:的)?\s*(?:预算|budget)\s*(?:是|为|of|is|:|：)?\s*(?:大概|大约|约|about|around)?\s*{money}",
        rf"{money}\s*(?:的)?\s*(?:预算|budget)\s*{_PER_YEAR}",
        rf"{cur}{NUM}\s*{SUFFIX}\s*{cur_after}?\s*{_PER_YEAR}",
        rf"{NUM}\s*{SUFFIX}\s*{cur_after}\s*{_PER_YEAR}",
    )
    return float(round(parse_number(m.group(1), m.group(2)) / 12)) if m else None  # whole yuan a month


_PER_MONTH = r"/\s*月|每个?月|一个月|月预算|/\s*month|per\s+month|a\s+month|monthly|/\s*mo\b"


def is_monthly_budget(text: str) -> bool:
    """Whether money in ``text`` is said per month: a training budget without it is for the whole run."""
    return bool(re.search(_PER_MONTH, text, re.IGNORECASE))


def find_budget(scan: Scan) -> float | None:
    cur = r"(?:¥|￥|cny\s*|rmb\s*)"
    cur_after = r"(?:元|块|cny|rmb|yuan|人民币)"
    per_month = r"(?:/\s*月|每个?月|一个月|/\s*month|per\s+month|a\s+month|monthly|/\s*mo\b|月)"
    mid = (
        r"\s*(?:is|of|to|为|是|：|:|改成|改为|调到|提高到|降到|设为|increased\s+to|raised\s+to|cut\s+to)?\s*"
        r"(?:每个?月|一个?月|per\s+month|monthly|a\s+month|月)?\s*(?:的)?\s*"
        r"(?:不超过|最多|大约|约|大概|around|about|under|up\s+to|of)?\s*"
    )
    money = rf"{cur}?{NUM}\s*{SUFFIX}\s*{cur_after}?"
    spend = r"(?:每个?月|一个?月|月)\s*(?:最多|顶多|只能|能|可以)?\s*(?:花|用|出|掏)\s*(?:不超过|最多)?\s*"
    if yearly := _yearly_budget(scan, money, cur, cur_after):
        return yearly
    m = scan.first(
        rf"(?:预算|budget){mid}{money}(?!\s*年)",  # "预算一年 ..." is no budget of ¥1
        # "每月一万的预算", "一个月就 1500 块的预算"
        rf"(?:每个?月|一个?月|月)\s*(?:就|只有|才|只|大概|约)?\s*{money}\s*(?:的)?\s*(?:预算|budget)",
        rf"{cur}?{NUM}\s*{SUFFIX}\s*{cur_after}\s*(?:的)?\s*(?:预算|budget)",  # "就 1500 块预算", "3 万元的预算"
        rf"(?:每个?月|月|monthly)\s*(?:的)?\s*(?:预算|budget){mid}{money}",
        rf"{cur}{NUM}\s*{SUFFIX}\s*{cur_after}?\s*{per_month}",
        rf"{NUM}\s*{SUFFIX}\s*{cur_after}\s*{per_month}",
        # "is ¥30,000 enough for a month of 72B serving?": the sum, a few words, then the month it pays for
        rf"{cur}{NUM}\s*{SUFFIX}\s*{cur_after}?\s*(?:[a-z]+\s+){{0,3}}?(?:for|per|in|covers?)\s+(?:a|one|each|every)\s+month\b",
        rf"{NUM}\s*{SUFFIX}\s*{cur_after}\s*(?:[a-z]+\s+){{0,3}}?(?:for|per|in|covers?)\s+(?:a|one|each|every)\s+month\b",
        # "每月一万块够不够", "一个月 5000 元能跑吗": the month first, then a sum with its currency word
        rf"(?:每个?月|一个?月)\s*(?:就|只有|才|只|大概|约|花)?\s*{cur}?{NUM}\s*{SUFFIX}\s*{cur_after}",
        rf"(?:不超过|最多|以内|under|below|at\s+most|up\s+to|within)\s*{cur}?{NUM}\s*{SUFFIX}\s*{cur_after}",
        # "for under 10k a month": a ceiling on what a month costs is a budget, its currency the prices' own
        rf"\b(?:under|below|less\s+than|no\s+more\s+than|at\s+most|within)\s+{NUM}\s*{SUFFIX}\s*{per_month}",
        # "每个月最多花 3 万": what the user can spend a month is the budget (i8cmp3)
        rf"{spend}{cur}{NUM}\s*{SUFFIX}",
        rf"{spend}{NUM}\s*{SUFFIX}\s*{cur_after}?(?<=[万千kKwW元块])",  # a sum of money, not "用 8 张卡"
    )
    if not m:
        return None
    after = scan.text[m.end() : m.end() + 12]
    hourly = r"\s*(?:/\s*(?:小时|h\b|hour)|每小时|per\s+hour|an?\s+hour)"
    if re.match(hourly, after, re.IGNORECASE) or re.search(r"\bhours?\b|\bhr\b|每小时", m.group(0), re.IGNORECASE):
        return None  # an hourly figure is not a monthly budget; the planner compares monthly prices
    if re.match(_FOREIGN_AFTER, after, re.IGNORECASE) or re.search(r"[$€£]\s*$", scan.text[: m.start(1)]):
        return None  # "budget 1500 USD a month" is no ¥1,500: the currency is asked for (find_foreign_money)
    return parse_number(m.group(1), m.group(2))


# Money in another currency ("$2000/month", "500 USD", "2k dollars", "3000 美元"): the prices are CNY list prices
# and no exchange rate is shipped, so the amount is said back and asked for in CNY, never converted or dropped.
_FOREIGN_MONEY = (
    rf"(?:US\s*\$|\$|€|£|usd\s*|eur\s*)\s*{NUM}\s*{SUFFIX}",
    rf"{NUM}\s*{SUFFIX}\s*(?:usd|us\s+dollars?|dollars?|bucks|eur|euros?|gbp|pounds?|美元|美金|欧元|英镑)\b",
    rf"{NUM}\s*{SUFFIX}\s*(?:美元|美金|欧元|英镑)",
)


_FOREIGN_AFTER = r"\s*(?:usd|us\s+dollars?|dollars?|bucks|eur|euros?|gbp|pounds?)\b|\s*(?:美元|美金|欧元|英镑)"


_BUDGET_CONTEXT = (
    r"budget|预算|\bspend|\bafford|花费|能花|最多花|/\s*(?:mo|month|月|yr|year|年)\b|per\s+(?:month|year)|a\s+(?:month|year)|"
    r"monthly|每个?月|一个月|每年|一年"
)


def find_foreign_money(text: str) -> str | None:
    """Return a budget in another currency as written ("$2000/month"), if the question states one."""
    if not re.search(_BUDGET_CONTEXT, text, re.IGNORECASE):
        return None  # "I'll tip you $200": money, but no budget to size against
    for pattern in _FOREIGN_MONEY:
        if m := re.search(pattern, text, re.IGNORECASE):
            return m.group(0).strip()
    return None


# "rough budget in USD", "how many dollars", "用美元算多少": a figure asked in another currency (no amount given).
_IN_FOREIGN_RE = (
    r"\b(?:in|into|to|as)\s+(?:usd|us\s*dollars?|dollars|euros?|eur|gbp|pounds?(?:\s+sterling)?)\b|"
    r"\bhow\s+many\s+(?:dollars|bucks|euros)\b|\busd\b|(?:用|按|换算成|折合|多少)\s*(?:美元|美金|欧元)"
)


def asks_in_foreign_currency(text: str) -> bool:
    """Return whether a figure is asked in another currency than CNY ("budget in USD", "折合多少美元")."""
    return bool(re.search(_IN_FOREIGN_RE, text, re.IGNORECASE))
