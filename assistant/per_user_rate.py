"""Use per person ("each user sends ~20 messages a day", "每人每天问 15 个问题"): times the users it is the load.

A daily-user figure or a head-count says how many people use the service; how often each of them asks says how
many requests a day they send together, and that (at the peak's multiple of the average) is the QPS to plan for.
Read before the requests-a-day finder, so "20 messages a day" said of one user is never the whole service's load.
"""

from __future__ import annotations

from assistant.rate_words import CALLS_EN, RateBasis, requests_rate
from assistant.reading import NUM, SUFFIX, Scan, compiled, parse_number

_ASKS_EN = rf"(?:{CALLS_EN}|questions|queries|turns|requests)"
_PERSON_EN = r"(?:user|person|employee|member|customer|student|agent|one|of\s+them)"
_HEDGE_EN = r"(?:about|around|roughly|approximately|maybe|like|up\s+to|on\s+average|an?\s+average\s+of|~|≈)?\s*"
_DAY_EN = r"(?:a|per|/|each|every)\s*(?:day|workday|working\s+day)\b"
_PER_USER_EN = (
    # "each user sends ~20 messages a day", "every employee asks about 10 questions per day"
    rf"\b(?:each|every|per|the\s+average|an\s+average|a\s+typical)\s+{_PERSON_EN}\s+(?:\w+\s+){{0,2}}?{_HEDGE_EN}"
    rf"{NUM}\s*{SUFFIX}\s*{_ASKS_EN}\s*{_DAY_EN}",
    # "3,000 daily users and each sends around 20 messages a day", "everyone asks 5 questions a day"
    rf"\b(?:each|everyone|everybody|every\s+one)\s+(?:of\s+them\s+)?(?:sends?|asks?|makes?|submits?|fires?\s+off|"
    rf"averages?|has|does|types?|runs?)\s+{_HEDGE_EN}{NUM}\s*{SUFFIX}\s*{_ASKS_EN}\s*{_DAY_EN}",
    # "1,000 users a day, each chats 10 times": how often each of the day's users asks
    rf"\b(?:each|everyone|everybody)\s+(?:of\s+them\s+)?(?:user\s+)?(?:chats?|asks?|sends?|talks?|uses?\s+it|"
    rf"queries|calls?\s+it)\s+{_HEDGE_EN}{NUM}\s*{SUFFIX}\s*times\b",
    # "20 messages per user per day", "10 questions a day per person", "20 messages a day each"
    rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*{_ASKS_EN}\s*(?:per|a|/)\s*{_PERSON_EN}\s*(?:per|a|/|each|every)\s*day\b",
    rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*{_ASKS_EN}\s*{_DAY_EN}\s*(?:per|for\s+each|from\s+each|a)\s*{_PERSON_EN}\b",
    rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*{_ASKS_EN}\s*{_DAY_EN}\s*each\b",
)
_PERSON_ZH = r"(?:每人|每个人|每个用户|每用户|每位用户|每名用户|人均|每个员工|每位员工|每名员工|每个同学|每位同事)"
_DAY_ZH = r"(?:每天|每日|一天|日均|平均每天)"
_PER_USER_ZH = (
    # "每人每天大概问 15 个问题", "人均每天 20 次调用", "每天每人发 30 条消息"
    rf"(?:{_PERSON_ZH}\s*{_DAY_ZH}|{_DAY_ZH}\s*{_PERSON_ZH})\s*(?:大概|大约|约|平均|差不多)?\s*"
    r"(?:会|要)?\s*(?:问|发|调用|提问|请求|用|对话|聊|提)?\s*(?:大概|大约|约)?\s*"
    rf"{NUM}\s*{SUFFIX}\s*(?:个|次|条|轮)",
)


def find_per_user_daily(scan: Scan) -> float | None:
    """Return the requests one user sends a day, as stated ("each user sends ~20 messages a day"), or None."""
    m = scan.first(*_PER_USER_EN, *_PER_USER_ZH)
    if m is None:
        return None
    each = parse_number(m.group(1), m.group(2))
    return each if each > 0 else None


def per_user_rate(scan: Scan, users: float, each: float) -> RateBasis:
    """Return the QPS ``users`` people sending ``each`` requests a day make at the peak (stated or assumed)."""
    rate = requests_rate(scan, users * each)
    return rate.model_copy(update={"users": users, "per_user": each})


# "what's the monthly cost per user", "摊到每个用户每月多少钱": the month shared out over the people served
_USER_COST = (
    r"\b(?:cost|price|spend|bill)\w*\s+(?:\w+\s+){0,2}?(?:per|for\s+each|of\s+each|a)\s+(?:user|seat|head|employee|person|"
    r"student|customer|member)\b|\bper[\s\-](?:user|seat|head|employee|capita)\s+(?:\w+\s+){0,2}?(?:cost|price|spend)|"
    r"\bhow\s+much\s+(?:\w+\s+){0,3}?(?:per|for\s+each|each)\s+(?:user|seat|employee|person|head)\b|"
    r"(?:摊到|分摊到|平均到|折合到|折算到)\s*(?:每个?|每位|每名)?(?:用户|人|员工|座席)|"
    r"(?:每个?用户|每位用户|每人|人均|每个员工|每个人)\s*(?:每月|一个月|每个月)?\s*(?:的)?\s*(?:成本|费用|花费|多少钱|要花)|"
    # a follow-up naming only the unit: "and per user?", "how much per seat per month?", "那每个用户呢"
    r"\bper[\s\-](?:user|head|seat|employee|person)(?:\s+(?:per|a)\s+month)?\s*[?？.]?\s*$|"
    r"(?:每个?用户|每位用户|每人|人均)\s*(?:每月|一个月)?\s*(?:呢|是多少|多少)\s*[?？]?\s*$"
)
_ONLINE = r"(?!\s*(?:同时|在线|并发|online|at\s+once|concurrent|simultaneous|at\s+the\s+same|at\s+peak))"
_POPULATION = (
    rf"(?<![\w.%~]){NUM}\s*{SUFFIX}\s*(?:registered\s+|active\s+|monthly\s+active\s+)?"
    rf"(?:employees|staff|users|people|students|members|customers|subscribers|seats)\b{_ONLINE}",
    rf"(?:注册用户|员工|用户|学生|客户|会员)(?:数|总数|人数)?\s*(?:约|大约|大概|有|共|是)?\s*{NUM}\s*{SUFFIX}{_ONLINE}",
    rf"{NUM}\s*{SUFFIX}\s*(?:多)?\s*(?:个|名|位)?\s*(?:注册用户|员工|用户|学生|客户|会员|同事)(?!\s*(?:同时|在线|并发))",
)


def asks_user_cost(text: str) -> bool:
    """Whether the question asks the cost per user ("monthly cost per user", "摊到每个用户每月多少钱")."""
    return compiled(_USER_COST).search(text) is not None


def population(text: str) -> float | None:
    """Return the people a service is for in all ("200 employees", "500 个注册用户"), not those online at once."""
    for pattern in _POPULATION:
        if m := compiled(pattern).search(text):
            people = parse_number(m.group(1), m.group(2))
            return people if people >= 1 else None
    return None
