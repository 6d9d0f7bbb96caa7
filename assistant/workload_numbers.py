"""Workload numbers in a question: budget, training tokens, context, concurrency, QPS, batch, invalid values.

Each finder claims the text it reads (see :class:`assistant.reading.Scan`), so one number is read once.
"""

from __future__ import annotations

import re
from typing import Literal

from assistant.hardware_words import GPU_NAME
from assistant.reading import NUM, OF, SUFFIX, Scan, as_int, parse_number
from tools.prices import HOURS_PER_MONTH


def find_budget(scan: Scan) -> float | None:
    cur = r"(?:¥|￥|cny\s*|rmb\s*)"
    cur_after = r"(?:元|块|cny|rmb|yuan|人民币)"
    per_month = r"(?:/\s*月|每个?月|一个月|/\s*month|per\s+month|a\s+month|monthly|/\s*mo\b|月)"
    mid = (
        r"\s*(?:is|of|to|为|是|：|:|改成|改为|调到|提高到|降到|设为|increased\s+to|raised\s+to|cut\s+to)?\s*"
        r"(?:每个?月|per\s+month|monthly|a\s+month|月)?\s*"
        r"(?:不超过|最多|大约|约|around|about|under|up\s+to|of)?\s*"
    )
    money = rf"{cur}?{NUM}\s*{SUFFIX}\s*{cur_after}?"
    m = scan.first(
        rf"(?:预算|budget){mid}{money}",
        rf"(?:每个?月|月|monthly)\s*(?:的)?\s*(?:预算|budget){mid}{money}",
        rf"{cur}{NUM}\s*{SUFFIX}\s*{cur_after}?\s*{per_month}",
        rf"{NUM}\s*{SUFFIX}\s*{cur_after}\s*{per_month}",
        rf"(?:不超过|最多|以内|under|below|at\s+most|up\s+to|within)\s*{cur}?{NUM}\s*{SUFFIX}\s*{cur_after}",
    )
    if not m:
        return None
    after = scan.text[m.end() : m.end() + 12]
    if re.match(r"\s*(?:/\s*(?:小时|h\b|hour)|每小时|per\s+hour|an?\s+hour)", after, re.IGNORECASE):
        return None  # an hourly figure is not a monthly budget; the planner compares monthly prices
    return parse_number(m.group(1), m.group(2))


def find_train_tokens(scan: Scan) -> float | None:
    m = scan.find(
        rf"{NUM}\s*(thousand|million|billion|trillion|百万|千万|[kKmMbBtT万亿])\s*(?:个)?\s*(?:tokens?|token|词元)"
    )
    if not m:
        return None
    return parse_number(m.group(1), m.group(2))


def context_value(number: str, suffix: str | None) -> int:
    # "32k" context means 32,768 tokens (the models' own convention); "1M"/"100万" are decimal.
    value = parse_number(number)
    if suffix and suffix.lower() == "k":
        return as_int(value * 1024)
    return as_int(parse_number(number, suffix)) if suffix else as_int(value)


_CTX_WORDS = (
    r"(?:上下文(?:长度|窗口)?|context(?:\s+(?:length|window))?|ctx|序列长度|seq(?:uence)?(?:[\s_]*len(?:gth)?)?(?![a-z])|"
    r"max[\s_]*len|输入长度|长度)"
)
_CTX_SUFFIX = r"(million|[kKmM]|万|百万)?"
# Words after a number that make it a count, not a length ("32k 上下文 50 并发": 50 is the concurrency).
_COUNTED = r"(?:个|路|位|并发|users?|concurren|qps|rps|张|卡|gpus?|台|requests?)"


def find_context(scan: Scan, *, explicit: bool = False) -> int | None:
    """Context length; ``explicit`` reads only numbers next to a context word ("上下文 10M tokens").

    The explicit pass runs before training tokens are read, so a huge context stays a context (the
    planner then reports the model's limit) instead of turning into a training-token count.
    """
    patterns = [
        # "how many concurrent 32k users": a length per user in a capacity question, not 32,000 users
        rf"how\s+many\s+(?:concurrent\s+|simultaneous\s+|parallel\s+)?{NUM}\s*([kK])[\s\-]*(?:tokens?[\s\-]*)?"
        r"(?:context\s+)?(?:users|requests|sequences|sessions|chats|conversations)",
        # "32k 上下文", but not the "8" of "bs8 seq4096" (a context word followed by its own number)
        rf"{NUM}\s*{_CTX_SUFFIX}[\s\-]*(?:tokens?[\s\-]*)?(?:的)?\s*{_CTX_WORDS}(?!{OF}\d{{1,9}}(?![\d.])(?!\s*{_COUNTED}))",
        rf"{_CTX_WORDS}{OF}{NUM}\s*{_CTX_SUFFIX}(?![A-Za-z])",
    ]
    if not explicit:
        patterns += [
            rf"{NUM}\s*([kK])?[\s\-]*(?:tokens?|token)(?!\s*/)",
            r"(?<![\w.¥￥])(2|4|8|16|32|64|128|256|200|100)\s*([kK])(?![\w])",
        ]
    m = scan.first(*patterns)
    if not m:
        return None
    return context_value(m.group(1), m.group(2))


# Nothing in a sizing question is negative, and GPUs come whole: such values are refused, never rounded.
_NEGATIVE_RE = r"-\s?\d{1,15}(?:\.\d{1,6})?(?!\s*[bB](?![A-Za-z]))(?![\d.])\s*(?:[kKwW万千]\b)?"
_FRACTION_GPUS_RE = (
    r"(?<![\w.])\d{{0,9}}\.\d{{1,6}}\s*(?:张|块|个)?\s*(?:nvidia\s*)?(?:(?:" + "{gpu}" + r")\s*)?"
    r"(?:卡|显卡|gpus?|cards?)(?![a-z])"
)
_QUANTITY_WORDS = (
    r"并发|concurren\w*|users?|requests?|用户|请求|人|张|块|卡|gpus?|cards?|qps|rps|batch|bs|批|"
    r"上下文|context|ctx|tokens?|预算|budget|元|cny|rmb|¥|￥|月|month|实例|instances?|台"
)


# "per million tokens" is a unit of cost, not a number of training tokens.
_TOKEN_COST_RE = r"(?:每|per|/)\s*(?:百万|一百万|1\s*m|million|m)\s*(?:个)?\s*(?:tokens?|token|词元)"


def find_token_cost(scan: Scan) -> bool:
    """Claim "每百万 tokens" / "per million tokens" so it is not read as a token count."""
    return scan.find(_TOKEN_COST_RE) is not None


def find_invalid(scan: Scan) -> list[str]:
    """Claim and return negative quantities and fractional GPU counts, as written."""
    found: list[str] = []
    for m in re.finditer(_NEGATIVE_RE, scan.text):
        glued = scan.text[m.start() - 1 : m.start()]
        before = scan.text[: m.start()].rstrip()
        # "Qwen2.5-7B", "1-2 卡", "10 - 20": a hyphen glued to a name, or between numbers, is no minus sign.
        if (glued.isascii() and (glued.isalnum() or glued in "._")) or (before and before[-1] in "0123456789~"):
            continue
        near = scan.text[max(0, m.start() - 12) : m.end() + 14]
        if not re.search(_QUANTITY_WORDS, near, re.IGNORECASE):
            continue
        scan.claim(m.span())
        found.append(phrase(scan.text, m.start(), m.end()))
    for m in re.finditer(_FRACTION_GPUS_RE.format(gpu=GPU_NAME), scan.text, re.IGNORECASE):
        if not float(re.match(r"\d*\.\d+", m.group(0)).group(0)).is_integer():  # type: ignore[union-attr]
            scan.claim(m.span())
            found.append(m.group(0).strip())
    return found


def phrase(text: str, start: int, end: int) -> str:
    """Return the value with the word it quantifies ("并发 -5", "-5 users"), for the refusal message."""
    after = re.match(r"\s*(?:个|位)?\s*([A-Za-z]+|[\u4e00-\u9fff]{1,2})", text[end:])
    if after and re.fullmatch(_QUANTITY_WORDS, after.group(1), re.IGNORECASE):
        return text[start : end + after.end()].strip()
    before = re.search(r"([A-Za-z]+|[\u4e00-\u9fff]{1,4})\s*(?:[:：=为是])?\s*$", text[:start])
    if before:
        return text[before.start() : end].strip()
    return text[start:end].strip()


# Hedges between a rate word and its number: "峰值 QPS 大概 10", "在线峰值约三百人", "rps of roughly 20".
_ABOUT = (
    r"\s*(?:of|is|=|:|：|为|是|达到|到|在)?\s*(?:约|大约|大概|差不多|估计|预计|预估|最多|around|about|roughly|"
    r"approximately|approx\.?|~|≈)?\s*"
)


def find_concurrency(scan: Scan) -> int | None:
    m = scan.first(
        rf"{NUM}\s*{SUFFIX}\s*(?:个|路)?\s*(?:并发|concurren(?:t|cy)|simultaneous|parallel\s+(?:users|requests))",
        rf"(?:并发(?:数|量|用户数?|请求数?)?|concurrency|concurrent\s+users|concurrent\s+requests){OF}{NUM}\s*{SUFFIX}",
        rf"同时\s*(?:有)?\s*{NUM}\s*{SUFFIX}\s*(?:个|位)?\s*(?:用户|请求|人|会话)",
        rf"{NUM}\s*{SUFFIX}\s*(?:个|位)?\s*(?:用户|请求|人)\s*同时",
        # "同时在线峰值约三百人", "高峰在线 500 人", "在线人数峰值 200"
        rf"(?:同时在线|在线)\s*(?:人数|用户数?)?\s*(?:的)?\s*(?:峰值|高峰)?{_ABOUT}{NUM}\s*{SUFFIX}\s*(?:个|位)?\s*(?:人|用户)?",
        rf"(?:高峰|峰值)(?:期|时|时段)?\s*(?:有)?{_ABOUT}{NUM}\s*{SUFFIX}\s*(?:个|位)?\s*(?:人|用户)\s*(?:同时)?\s*(?:在线|在用|使用|访问)",
        rf"{NUM}\s*{SUFFIX}\s*(?:users?|requests?|sessions?)\s*(?:at\s+(?:the\s+same\s+time|once)|concurrently|in\s+parallel)",
        rf"(?:for|serve|serving|with)\s+{NUM}\s*{SUFFIX}\s*(?:simultaneous\s+|active\s+)?(?:users|people|clients|sessions)",
        rf"{NUM}\s*{SUFFIX}\s*(?:个|位)\s*(?:用户|人)",
        rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*(?:concurrent\s+|simultaneous\s+|active\s+)?(?:users|people|clients)\b",
    )
    if not m:
        return None
    return as_int(parse_number(m.group(1), m.group(2)))


def find_qps(scan: Scan) -> float | None:
    m = scan.first(
        rf"(?:qps|rps|每秒请求数?){_ABOUT}{NUM}",
        rf"{NUM}\s*(?:qps|rps|req/s|requests?\s*(?:per\s+second|/\s*s(?:ec)?\b))",
        rf"每秒\s*(?:处理)?\s*{NUM}\s*(?:个|次)?\s*(?:请求|query|查询|调用)",
    )
    return parse_number(m.group(1)) if m else None


def find_batch(scan: Scan) -> int | None:
    m = scan.first(
        rf"(?:batch[\s_]*size|micro[\s\-_]*batch|batch|bs|批大小|批量大小|批次大小|批量){OF}{NUM}",
        rf"{NUM}\s*(?:的)?\s*(?:batch|批)",
    )
    return as_int(parse_number(m.group(1))) if m else None


# ------------------------------------------------------------------------------------------ rates in groups

_GROUP_EN = r"(?:teams?|groups?|departments?|classes|class|squads?|offices?|shifts?|branches|stores?)"
_PEOPLE_EN = r"(?:people|persons|users|members|engineers|agents|staff|students|employees|analysts)"
_GROUP_ZH = r"(?:团队|小组|组|部门|班级|班|门店|分店|分公司|科室)"


def find_group_concurrency(scan: Scan) -> int | None:
    """Return groups times people per group ("twelve teams of 5 people", "8 个小组，每组 6 人") as one figure."""
    m = scan.first(
        rf"(?<![\w.]){NUM}\s*{_GROUP_EN}\s+(?:of|with)\s+{NUM}\s*(?:more\s+)?{_PEOPLE_EN}",
        rf"(?<![\w.]){NUM}\s*{_GROUP_EN}[\s,]+(?:each\s+(?:with|of|having)\s+|with\s+){NUM}\s*{_PEOPLE_EN}(?:\s+each)?",
        rf"{NUM}\s*个?\s*{_GROUP_ZH}\s*[，,、]?\s*(?:每(?:个)?\s*{_GROUP_ZH}?|各)\s*(?:有|约|大约)?\s*{NUM}\s*"
        r"(?:个|位|名)?\s*(?:人|用户|成员|同学|员工)",
    )
    if not m:
        return None
    return as_int(parse_number(m.group(1)) * parse_number(m.group(2)))


# ------------------------------------------------------------------------------------------ billing and hours

Billing = Literal["pay-as-you-go", "subscription", "spot"]
_BILLING_RES: tuple[tuple[Billing, str], ...] = (
    ("spot", r"抢占式|竞价实例|\bspot\b|preemptible"),
    ("subscription", r"包年包月|包月|包年|subscription|monthly\s+plan|reserved\s+instances?"),
    ("pay-as-you-go", r"按量|按需|按小时(?:付费|计费)|pay[\s\-]*as[\s\-]*you[\s\-]*go|on[\s\-]*demand|\bpayg\b"),
)


def find_billing(text: str) -> Billing | None:
    """Return the billing mode a workload question asks to price in ("包年包月", "pay as you go", "spot"), or None.

    When several are named ("包月还是按量"), the one named first is the one the plan ranks by.
    """
    found = [(m.start(), code) for code, pattern in _BILLING_RES if (m := re.search(pattern, text, re.IGNORECASE))]
    return min(found)[1] if found else None


_DAYS_PER_MONTH = HOURS_PER_MONTH / 24  # the planner's 730 h month
_HOURS_EN = r"(?:hours?|hrs?|h)\s*(?:a|per|/|each)\s*(?:day|working\s+day|weekday)"
_WEEKDAYS_RE = (
    r"weekdays?|working\s+days|business\s+days|mon(?:day)?\s*(?:-|to|–|through)\s*fri(?:day)?|工作日|周一(?:到|至)周五"
)


def find_usage_hours(scan: Scan) -> tuple[float, float, float] | None:
    """Hours a day and days a week the deployment runs, and the hours a month that makes.

    Read from "10 hours a day on weekdays", "每天只在白天用 8 小时", "工作日每天 12 小时"; "office hours"
    alone is 9 hours on weekdays (stated as an assumption by the caller). None: runs around the clock.
    """
    m = scan.first(
        rf"(?<![\w.]){NUM}\s*{_HOURS_EN}",
        rf"(?:每天|一天|每日|白天)[^\d，,。；;]{{0,8}}?{NUM}\s*(?:个)?\s*(?:小时|钟头|h\b)",
        rf"{NUM}\s*(?:个)?\s*(?:小时|钟头)\s*(?:/|每)\s*(?:天|日)",
    )
    if m:
        per_day = parse_number(m.group(1))
    elif re.search(r"office\s+hours|business\s+hours|上班时间|办公时间|工作时间", scan.text, re.IGNORECASE):
        per_day = 9.0
    else:
        return None
    if not 0 < per_day < 24:
        return None
    days = 5.0 if re.search(_WEEKDAYS_RE, scan.text, re.IGNORECASE) else 7.0
    return per_day, days, round(per_day * _DAYS_PER_MONTH * days / 7, 1)
