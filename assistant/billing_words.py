"""Billing-mode and region-comparison words in a question ("包月", "spot", "哪个地域最便宜", "cheapest region").

Read by the intent rules (is this a price question?) and by :mod:`assistant.intents.prices` (which billing
modes to show); no other imports, so both can use it without a cycle.
"""

from __future__ import annotations

import re
from typing import Literal

# Subscription billing as people name it; "I'd pay monthly", "billed monthly", "按月付费", "月付": paying by the
# month is the subscription. Shared with the workload reader (assistant/rate_words.py) so both read the same words.
SUBSCRIPTION_WORDS = (
    r"包年包月|包月|包年|subscription|subscribe|monthly\s+(?:plan|billing|contract|commitment)|reserved\s+instances?|"
    r"\bpa(?:y|ying|id)\s+(?:(?:by\s+the|per|each|every)\s+)?month(?:ly)?\b|\bbilled\s+monthly\b|"
    r"按月(?:付|计费|购买|租)|月付|年付"
)
_BILLING_WORDS = (
    ("subscription-monthly", SUBSCRIPTION_WORDS + r"|reserved"),  # a price question: "the reserved price"
    ("pay-as-you-go", r"按量|按需|按小时|pay[\s\-]*as[\s\-]*you[\s\-]*go|on[\s\-]*demand|payg"),
    ("spot", r"抢占式?|竞价|spot|preemptible"),
)
_REGION_ASK = (
    r"地域|区域|哪里最便宜|哪儿最便宜|哪个地方|在哪(?:里|儿)?(?:买|开)?.{0,4}便宜|\bregions?\b|"
    r"where\s+(?:is\s+)?(?:it\s+)?(?:the\s+)?cheapest|cheapest\s+(?:region|place|location)"
)
# "ballpark $ per month", "hourly rate", "monthly figure", "price tag": an amount of money per period is asked (not
# "1.2 million requests per month", a rate, nor "monthly active users"). Shared by the plan's and the periods' leads.
MONEY_ASK = (
    r"(?:[$¥]|\busd\b|\bdollars?\b|\byuan\b|\brmb\b|\bcny\b)\s*(?:per|a|an|/|each)\s*(?:month|hour|day|year)\b|"
    r"\b(?:monthly|hourly|daily|yearly)\s+(?:rate|fee|figure|total|spend|outlay|expense|budget|price|cost|bill)|"
    r"\bhow\s+much\s+(?:\w+\s+){0,3}?(?:per|an?|each)\s+(?:month|hour)\b|\bprice\s+tag\b|\bexpenses?\b|"
    r"\b(?:what'?s|what\s+is|the)\s+(?:\w+\s+)?damage\b|"  # "what's the monthly damage?"
    # "what's the monthly?", "and the yearly?": the period's bill, its noun left out
    r"\b(?:what'?s|what\s+is|and|so)\s+the\s+(?:monthly|hourly|yearly|annual|daily|weekly)\s*(?:then\s*)?[?？.!]*\s*$"
)
_PRICE_ASK = (
    r"多少钱|价格|价钱|费用|便宜|贵|划算|成本|花多少|每月|一个月|每小时|几块钱|多少块|几毛钱|一个钟头|每个钟头|"
    # "how much faster/longer" asks for speed or time, not money
    r"\bcost\w*|\bprices?\b|\bpriced\b|cheap\w*|expensive|"
    r"how\s+much(?!\s+(?:faster|slower|quicker|better|worse|longer|shorter|speed\w*|latency|throughput)\b)"
    # "how much does AWQ hurt quality?": an effect, not a price
    r"(?!\s+(?:does|do|will|would|can)\s+(?:\S+\s+){1,3}?(?:hurt|affect|degrade|impact|reduce|lose|drop|harm|help|"
    r"improve|slow|speed|change)\w*\b)|"
    r"per\s+(?:month|hour)|save|saving|"
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


# Commitment schemes the price list has no figures for, and advice between billing schemes: the guidance answers.
_COMMITMENT_ADVICE = r"savings?\s+plans?|节省计划|makes?\s+(?:more\s+)?sense|break[\s\-]*even|盈亏平衡"


def asks_commitment_advice(text: str) -> bool:
    """Whether ``text`` asks advice on committing (savings plan, reserved instances, break-even), not a price."""
    return bool(re.search(_COMMITMENT_ADVICE, text, re.IGNORECASE))


def asks_price_gap(text: str) -> bool:
    """Whether ``text`` asks how far two prices are apart ("cost difference", "差多少钱"): figures, not a why."""
    return bool(re.search(_PRICE_GAP, text, re.IGNORECASE))


def asks_type_gap(text: str) -> bool:
    """Whether ``text`` weighs the prices of what it names ("贵多少", "which is cheaper", "哪个便宜")."""
    return asks_price_gap(text) or bool(re.search(_CHEAPER, text, re.IGNORECASE))


_CHEAPER = r"\bcheaper\b|\bmore\s+expensive\b|\bpricier\b|哪(?:个|一个|款)\s*(?:更|比较)?\s*(?:便宜|贵|划算|省钱)"
_PRICE_GAP = (
    r"how\s+much\s+(?:more|less|cheaper|dearer)\b|"
    r"(?:cost|price|bill)\s+difference|difference\s+in\s+(?:cost|price)|差多少钱?|差价|价差|贵多少|便宜多少|省多少"
)


def price_question(text: str, named: bool = False) -> bool:
    """Tell whether ``text`` asks for prices by region or billing mode ("哪个地域最便宜", "包月多少钱", "那按量呢?")."""
    if re.search(_COMMITMENT_ADVICE, text, re.IGNORECASE):
        return False  # "savings plan or reserved instances, which makes more sense?" asks the guidance
    priced = bool(re.search(_PRICE_ASK, text, re.IGNORECASE))
    if asks_region(text) and (priced or billings(text)):
        return True
    # A billing mode next to a named instance, family or GPU ("乌兰察布 A10 包月") asks for that price too.
    return bool(billings(text)) and (priced or named or bool(re.search(_FOLLOW_UP, text, re.IGNORECASE)))


def asks_price(text: str) -> bool:
    """Whether ``text`` asks what something costs ("how much does ecs.gn8is.4xlarge cost", "一个月多少钱")."""
    return bool(re.search(_PRICE_ASK, text, re.IGNORECASE) or re.search(MONEY_ASK, text, re.IGNORECASE))


CostPeriod = Literal["year", "week", "day", "hour", "requests"]

# "一年多少钱", "annual bill", "包年呢": a year's cost. "包年包月" is the name of subscription billing, not a year.
_YEAR_ASK = (
    r"一年|每年|全年|年度|年费|年成本|年花费|按年|包年(?!包月)|\bper\s+(?:year|annum)\b|\ba\s+year\b|\bannual\w*|\byearly\b|"
    r"/\s*(?:yr|year)\b|twelve\s+months|12\s*(?:个)?月"
)
# "一天要烧多少钱", "cost per day", "a day of serving": a day's cost, not "8 hours a day" (hours it runs) or
# "每天 5 万次请求" (a rate).
_DAY_ASK = (
    r"(?:一天|每天|每日|日均|单日)(?:要|得|大概|大约|的|下来)?\s*(?:花|烧|烧掉|花掉|要花)?\s*(?:多少钱|多少|费用|成本|花费|开销)|"
    r"日成本|日花费|日开销|\bdaily\s+(?:cost|bill|spend|price|burn)|\b(?:cost|spend|bill|burn)\w*\s+(?:us\s+|per\s+|a\s+|each\s+)*day\b|\bper\s+day\s+(?:cost|bill|spend)|"
    r"\b(?:a|one|per)\s+day\s+of\s+(?:serving|running|hosting|inference)|"
    r"\bhow\s+much\b[^?!]{0,60}?\b(?:per|a|each)\s+day\b"  # "how much is gn7e-c16g1.16xlarge per day?"
)
_HOURS_A_DAY = r"\d+(?:\.\d+)?\s*(?:hours?|hrs?|h)\s+(?:a|per|each)\s+day|(?:每天|一天)\s*(?:只)?(?:跑|开|用|运行)"
# "per week", "一周多少钱", "weekly bill": a week's cost
_WEEK_ASK = (
    r"一周|每周|一个星期|每个?星期|一礼拜|周成本|\bper\s+week\b|\ba\s+week\b|\bweekly\b|/\s*(?:wk|week)\b|"
    r"\bseven\s+days\b|7\s*天"
)
# "cost per hour", "一小时多少钱", "时租": the hourly price, not "36,000 requests an hour" (a rate)
_HOUR_ASK = (
    r"(?:每|一)\s*(?:个)?小时\s*(?:要|得|大概|的)?\s*(?:多少钱|多少|费用|成本|价格|花费)|时租|"
    r"按小时(?:算|计)?(?:多少|的价格)|"
    r"\b(?:cost|price|rate|bill|spend|pay)\w*\s+(?:\w+\s+){0,3}?(?:per|an|a|each)\s+hour\b|"
    r"\bhourly\s+(?:cost|price|rate|bill)|\bper[\s\-]hour\s+(?:cost|price|rate)|"
    r"how\s+much\s+(?:\S+\s+){0,6}?(?:per|an|a)\s+hour\b"
)
# "每千次调用", "per 1,000 requests", "cost per request": a price per request.
_REQUESTS_ASK = (
    r"(?:每|一)\s*(?:千|1000|1,000|1k)\s*次|千次(?:调用|请求)|(?:每次|每个|单次|每条)(?:调用|请求)(?:的)?(?:成本|费用|多少钱|花费|要花)|"
    # "how much would 1 million requests cost", "cost of 100k calls": a number of requests priced
    r"\bhow\s+much\s+(?:would|will|do|does|for)\s+(?:[\d.,]+\s*(?:k|m|million|thousand)?|an?\s+(?:million|thousand))\s+"
    r"(?:requests?|calls?|queries)\b|"
    r"\bper\s+(?:1,?000|1k|one\s+thousand|thousand|a\s+thousand)\s+(?:requests?|calls?|queries|generations|answers)|"
    r"\b(?:cost|price)\s+(?:per|of\s+(?:a|one|each))\s+(?:requests?|calls?|query)\b|\bper[\s-](?:request|call|query)\s+cost"
)


# A budget's own period ("预算一年 8 万", "8 万预算一年", "年预算", "annual budget", "budget per year").
_BUDGET_PERIOD = (
    r"(?:预算|budget)\s*(?:是|为|:|：|of)?\s*(?:每年|一年|全年|per\s+year|a\s+year|annually|yearly|per\s+annum)|"
    r"(?:每年|一年|全年|年度|年|annual|yearly)\s*(?:的)?\s*(?:预算|budget)|"
    r"(?:per\s+year|a\s+year|/\s*(?:yr|year))(?=\s*(?:budget|预算))"
)


def cost_period(text: str) -> CostPeriod | None:
    """Return the period (or unit) a cost question asks the price in besides the month, if any.

    "一年多少钱" -> year, "what does that come to per week" -> week, "一天要烧多少钱" -> day, "cost per hour" ->
    hour, "每千次调用成本" -> requests; None for a monthly or an unstated period. Hours a day the deployment runs
    ("每天只跑 8 小时") are usage, not a day's cost.
    """
    text = re.sub(_BUDGET_PERIOD, " ", text, flags=re.IGNORECASE)  # "8 万预算一年" states a budget, asks no year
    if re.search(_REQUESTS_ASK, text, re.IGNORECASE):
        return "requests"
    if re.search(_YEAR_ASK, text, re.IGNORECASE):
        return "year"
    if re.search(_WEEK_ASK, text, re.IGNORECASE) and not re.search(r"工作日|weekdays?", text, re.IGNORECASE):
        return "week"
    day = re.search(_DAY_ASK, text, re.IGNORECASE)
    if day and not re.search(_HOURS_A_DAY, text[max(0, day.start() - 12) : day.end()], re.IGNORECASE):
        return "day"
    return "hour" if re.search(_HOUR_ASK, text, re.IGNORECASE) else None


_PERIOD_HOURS = {"day": 24.0, "week": 168.0, "year": 8760.0}


def asked_hours(text: str, rental_hours: float | None) -> float | None:
    """Return the hours a price question asks about: a rental ("3 days of it") or a period ("一天多少钱"), else None."""
    return rental_hours or _PERIOD_HOURS.get(cost_period(text) or "")


# A period named alone in a follow-up of a cost question ("what about per day?", "一天呢", "for a whole year?"):
# the cost words are in the earlier turn, so these need none of their own.
_BARE_PERIODS: tuple[tuple[CostPeriod, str], ...] = (
    ("year", r"\b(?:whole|full|entire)\s+year\b|\bover\s+a\s+year\b|\b(?:per|a|for\s+a|for\s+the)\s+year\b|"
     r"\bannual(?:ly)?\b|\byearly\b|一整年|整年|一年|每年|全年"),
    ("week", r"\bper\s+week\b|\ba\s+week\b|\bweekly\b|一周|每周"),
    ("day", r"\bper\s+day\b|\ba\s+day\b|\bdaily\b|一天|每天|每日"),
    ("hour", r"\bper\s+hour\b|\ban\s+hour\b|\bhourly\b|每小时|一小时"),
)


def follow_up_period(text: str) -> CostPeriod | None:
    """Return the period a follow-up turn names, with or without cost words of its own.

    A bare period counts only in a turn without figures: "每天 10 小时" is usage, "每天 5 万次" a rate.
    """
    if (found := cost_period(text)) or re.search(r"\d|[一二两三四五六七八九十百千万]\s*(?:个|次|小时|人)", text):
        return found
    return next((period for period, pattern in _BARE_PERIODS if re.search(pattern, text, re.IGNORECASE)), None)
