"""Rates as users state them: the figures behind a concurrency or a QPS.

* groups x people ("twelve teams of 5 people", "8 个小组，每组 6 人") and a user base x the share online
  ("500 employees, about 10% active at any moment") -> concurrency;
* requests a day x the peak's multiple of the average ("2 million requests a day", "每天 100 万次调用，
  高峰是平均的 3 倍") -> QPS.

How they pay and for how many hours is read by :mod:`assistant.usage_words`.

Each finder claims the text it reads (see :class:`assistant.reading.Scan`); :class:`RateBasis` keeps the
derivation so the answer can say it.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assistant.phrases import DEFAULT_PEAK_SHARE
from assistant.reading import NUM, SUFFIX, Scan, as_int, compiled, parse_number

# Hedges between a rate word and its number: "峰值 QPS 大概 10", "rps of roughly 20".
ABOUT = (
    r"\s*(?:of|is|=|:|：|为|是|达到|到|在)?\s*(?:约|大约|大概|差不多|估计|预计|预估|最多|around|about|roughly|"
    r"approximately|approx\.?|~|≈)?\s*"
)

CALLS_EN = r"(?:requests?|calls?|queries|messages|prompts|chats|conversations)"
CALLS_ZH = r"(?:个|次)?\s*(?:请求|调用|对话|查询|问答|提问|次)"
# "50k API calls per day", "2 million customer emails a month": each item sent to the model is a request
_ITEMS_EN = (
    rf"(?:(?:chat|api|user|customer|support|inbound|incoming)\s+)?(?:{CALLS_EN}|emails|tickets|documents|docs|"
    r"reviews|comments|articles|transcripts)(?:\s+(?:processed|handled|classified|summari[sz]ed|through\s+\S+))?"
)
DEFAULT_PEAK_FACTOR = 3.0  # peak over the daily average when the user gives none (stated in the answer)


def find_daily_requests(scan: Scan) -> RateBasis | None:
    """Return requests a day (or a week, a month) and the peak's multiple of the average, as the QPS to size for.

    "2 million requests a day", "每天 100 万次调用，高峰是平均的 3 倍"; without a stated multiple the
    peak is taken as :data:`DEFAULT_PEAK_FACTOR` times the daily average (said in the answer).
    """
    m = scan.first(
        rf"{NUM}\s*{SUFFIX}\s*{_ITEMS_EN}\s*(?:per|a|/|each|every)\s*day\b",
        # "每天 2 万条（文案）": items made or answered a day are requests too
        rf"(?:每天|日均|一天|每日)\s*(?:约|大约|大概|有)?\s*{NUM}\s*{SUFFIX}\s*(?:{CALLS_ZH}|(?:条|篇|份)(?!\s*(?:训练)?(?:样本|数据|语料|日志)))",
        rf"(?:日调用量|日请求量|日均请求|日均调用|daily\s+requests|requests\s+per\s+day){ABOUT}{NUM}\s*{SUFFIX}",
    )
    per: Period = "day"
    for period, words_en, words_zh in _LONGER_PERIODS:  # "1.2 million requests per month", "每周 50 万次调用"
        if m:
            break
        m = scan.first(
            rf"{NUM}\s*{SUFFIX}\s*{_ITEMS_EN}\s*(?:per|a|/|each|every)\s*{words_en}\b",
            rf"(?:{words_zh})\s*(?:约|大约|大概|有|的)?\s*(?:调用量|请求量)?\s*{NUM}\s*{SUFFIX}\s*{CALLS_ZH}",
        )
        per = period
    if not m:
        return None
    return requests_rate(scan, parse_number(m.group(1), m.group(2)), per)


def requests_rate(scan: Scan, amount: float, per: Period = "day") -> RateBasis:
    """Return the QPS ``amount`` requests a ``per`` make at the peak: the stated multiple of the average, else 3."""
    peak = scan.first(
        rf"(?:高峰|峰值|peak)[^\d，,。;；]{{0,12}}?{NUM}\s*(?:倍|x\b|×|times)",
        rf"{NUM}\s*(?:x|×|times)\s*(?:the\s+)?(?:daily\s+)?(?:average|mean)",
        rf"peak(?:[\s\-]to[\s\-]average)?\s*(?:factor|ratio)?{ABOUT}{NUM}",
    )
    factor = parse_number(peak.group(1)) if peak else DEFAULT_PEAK_FACTOR
    qps = amount / (86_400 * _DAYS[per]) * factor
    qps = max(round(qps, 1 if per == "day" and qps >= 1 else 2), 0.01)  # a light load is still a load
    return RateBasis(kind="daily_requests", amount=amount, factor=factor, stated=peak is not None, result=qps, per=per)


# "summarize 1 million documents within 48 hours": a batch job whose deadline sets the rate to plan for
_JOB_VERBS = (
    r"summari[sz]\w*|classif\w*|translat\w*|extract\w*|label\w*|tag(?:ging)?\b|process\w*|rewrit\w*|annotat\w*|"
    r"generat\w*|总结|摘要|分类|翻译|抽取|提取|标注|处理|改写|生成|跑完|跑批|离线\s*(?:跑|推理)|批量\s*(?:跑|推理)"
)
_DEADLINE = (
    r"(?:within|in|under|inside|by)\s+(?:the\s+next\s+)?(\d{1,4}(?:\.\d)?)\s*(hours?|hrs?|h|days?)\b|"
    r"(\d{1,4}(?:\.\d)?)\s*(个?小时|天)\s*(?:之?内|以内)"
)


def find_job_deadline(scan: Scan, items: float | None) -> RateBasis | None:
    """Return the requests/s a batch job of ``items`` needs to finish by its stated deadline, or None."""
    if not items or not re.search(_JOB_VERBS, scan.text, re.IGNORECASE):
        return None
    m = re.search(_DEADLINE, scan.text, re.IGNORECASE)
    if not m:
        return None
    amount, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    hours = float(amount) * (24 if unit.lower().startswith(("d", "天")) else 1)
    if hours <= 0:
        return None
    qps = round(items / (hours * 3600), 2)
    return RateBasis(kind="job_deadline", amount=items, factor=hours, result=qps) if qps > 0 else None


Period = Literal["day", "week", "month"]
_DAYS: dict[Period, int] = {"day": 1, "week": 7, "month": 30}  # a month of requests spread over 30 days
_LONGER_PERIODS: tuple[tuple[Period, str, str], ...] = (
    ("month", r"(?:month|mo)", r"每月|每个月|一个月|月均|月调用|月请求"),
    ("week", r"(?:week|wk)", r"每周|每个?星期|一周|周均"),
)


# ------------------------------------------------------------------------------------------ rates in groups

RateKind = Literal["groups", "user_share", "daily_requests", "job_deadline", "token_volume"]


class RateBasis(BaseModel):
    """How a stated rate was derived: groups x people, users x share online, requests a day x peak factor."""

    model_config = ConfigDict(extra="forbid")

    kind: RateKind
    amount: float = Field(description="groups, users, or requests a day")
    factor: float = Field(description="people per group, share online (0-1), or the peak's multiple of the average")
    stated: bool = Field(default=True, description="False: the factor is the stated default")
    result: float = Field(description="the concurrency (groups, user_share) or QPS (daily_requests, job) it makes")
    per: Literal["day", "week", "month"] = Field(default="day", description="the period requests were counted over")
    users: float | None = Field(default=None, description="daily_requests: the users whose requests these are")
    per_user: float | None = Field(default=None, description="daily_requests: requests one user sends a day")
    per_request: int | None = Field(default=None, description="token_volume: tokens a request (prompt + output)")
    output_only: bool = Field(default=False, description="token_volume: output tokens only, per_request their share")


_GROUP_EN = r"(?:teams?|groups?|departments?|classes|class|squads?|offices?|shifts?|branches|stores?)"
_PEOPLE_EN = r"(?:people|persons|users|members|engineers|agents|staff|students|employees|analysts)"
_GROUP_ZH = r"(?:团队|小组|组|部门|班级|班|门店|分店|分公司|科室)"


def find_group_concurrency(scan: Scan) -> RateBasis | None:
    """Return groups times people per group ("twelve teams of 5 people", "8 个小组，每组 6 人") as one figure."""
    m = scan.first(
        rf"(?<![\w.]){NUM}\s*{_GROUP_EN}\s+(?:of|with)\s+{NUM}\s*(?:more\s+)?{_PEOPLE_EN}",
        rf"(?<![\w.]){NUM}\s*{_GROUP_EN}[\s,]+(?:each\s+(?:with|of|having)\s+|with\s+){NUM}\s*{_PEOPLE_EN}(?:\s+each)?",
        rf"{NUM}\s*个?\s*{_GROUP_ZH}\s*[，,、]?\s*(?:每(?:个)?\s*{_GROUP_ZH}?|各)\s*(?:有|约|大约)?\s*{NUM}\s*"
        r"(?:个|位|名)?\s*(?:人|用户|成员|同学|员工|学生|学员|工程师|客服|坐席)",
    )
    if not m:
        return None
    groups, people = parse_number(m.group(1)), parse_number(m.group(2))
    return RateBasis(kind="groups", amount=groups, factor=people, result=as_int(groups * people))


_BASE_EN = r"(?:registered\s+)?(?:employees|staff|users|people|students|members|engineers|agents|customers|subscribers)"
_SHARE_WORDS = (
    r"(?:active|online|concurren\w*|simultaneous|at\s+(?:the\s+same\s+time|once|any\s+(?:one\s+)?(?:time|moment))|"
    r"同时|在线|活跃|并发)"
)


def find_user_share(scan: Scan) -> RateBasis | None:
    """Return a user base times the share online at once ("500 employees, 10% active at any moment").

    Nothing is claimed unless both the base and the share are there: "10 个用户" alone is a concurrency.
    """
    base = _unclaimed(
        scan,
        rf"(?<![\w.%]){NUM}\s*{SUFFIX}\s*{_BASE_EN}",
        rf"(?:注册用户|员工|用户|学生|客户)(?:数|总数)?\s*(?:约|大约|有|共)?\s*{NUM}\s*{SUFFIX}\s*(?:人|名|个)?",
        rf"{NUM}\s*{SUFFIX}\s*(?:个|名|位)?\s*(?:注册用户|员工|用户|学生|客户)",
    )
    share = _unclaimed(
        scan,
        rf"{NUM}\s*%\s*(?:of\s+(?:them|users|people)\s+)?(?:are\s+|is\s+)?[^\d%，,。]{{0,12}}?{_SHARE_WORDS}",
        rf"{_SHARE_WORDS}[^\d%，,。]{{0,12}}?{NUM}\s*%",
    )
    if base is None or share is None:
        return None
    users, pct = parse_number(base.group(1), base.group(2)), parse_number(share.group(1))
    if not 0 < pct <= 100 or users <= 0:
        return None
    scan.claim(base.span())
    scan.claim(share.span())
    return RateBasis(kind="user_share", amount=users, factor=pct / 100, result=max(1, round(users * pct / 100)))


# A head-count is a population, not the people served at once ("全公司 3000 人", "2,000 employees"): with no
# share online stated, the plan sizes for the share daily users have at peak (phrases.DEFAULT_PEAK_SHARE, the
# engine's one such assumption) and says it is assumed. Daily active users are read by phrases.daily_users.
DEFAULT_ONLINE_SHARE = DEFAULT_PEAK_SHARE
_POPULATION_EN = (
    r"(?:employees|staff(?:\s+members)?|registered\s+users|subscribers|headcount|devs|developers|engineers|"
    r"programmers|researchers|analysts|lawyers|attorneys|doctors|nurses|teachers|consultants|accountants)"
)
_ORG_ZH = r"(?:全公司|公司|集团|企业|单位|全员|全校|学校|全院|医院|律所|事务所|银行)"
_ORG_EN = r"(?:company|firm|organi[sz]ation|org|school|university|hospital|business|agency|bank|practice|workforce)"
_STAFF_EN = (
    r"(?:people|persons|employees|staff|lawyers|attorneys|doctors|nurses|engineers|developers|analysts|teachers|"
    r"researchers|agents|consultants|accountants|salespeople|members)"
)
_STAFF_ZH = r"(?:人|员工|同事|学生|职工|律师|医生|护士|老师|教师|工程师|销售|客服|研发|员)"
# An organisation's size: read before any concurrency, so "a company of 1,500 people" is not 1,500 at once.
_ORG_SIZE = (
    rf"\b(?:{_ORG_EN}|headcount)\s+of\s+(?:about\s+|around\s+|~)?{NUM}\s*{SUFFIX}",
    # "our law firm has 400 lawyers", "a hospital with 2,000 staff"
    rf"\b{_ORG_EN}\s+(?:has|have|with|employs|employing)\s+(?:about\s+|around\s+|roughly\s+|~)?{NUM}\s*{SUFFIX}\s*"
    rf"{_STAFF_EN}\b",
    rf"(?<![\w.]){NUM}\s*{SUFFIX}[\s\-]*(?:person|people|employee|staff)\s+(?:company|org\w*|firm|business)",
    rf"{_ORG_ZH}\s*(?:上下)?\s*(?:有|共|一共|总共|大概|大约|约)?\s*{NUM}\s*{SUFFIX}\s*(?:多)?\s*(?:个|名|位)?\s*"
    rf"{_STAFF_ZH}",
    rf"{NUM}\s*{SUFFIX}\s*(?:多)?\s*人的\s*(?:公司|团队|企业|单位)",
)
# A bare head-count ("2,000 employees", "2000 员工"): read only after the concurrency, so "给 20 个员工用"
# (the people it is for) stays a concurrency.
_HEAD_COUNT = (
    # "8 engineers will use it at the same time" states a concurrency: no head-count share of it
    rf"(?<![\w.%]){NUM}\s*{SUFFIX}\s*{_POPULATION_EN}\b"
    r"(?!.{0,60}?\b(?:at\s+(?:the\s+same\s+time|once)|concurrently|simultaneously|in\s+parallel)\b)",
    rf"(?:注册用户|员工)(?:数|总数|人数)?\s*(?:约|大约|大概|有|共|是)?\s*{NUM}\s*{SUFFIX}",
    rf"{NUM}\s*{SUFFIX}\s*(?:多)?\s*(?:个|名|位)?\s*(?:员工|职工)",
    rf"(?:给|供|提供给)\s*{NUM}\s*{SUFFIX}\s*(?:多)?\s*(?:个|名|位)?\s*人\s*(?:用|使用|访问)",
    rf"(?:大概|大约|约|差不多|将近|有)\s*{NUM}\s*{SUFFIX}\s*(?:多)?\s*(?:个|名|位)?\s*人\s*(?:用|使用|访问)(?!.{{0,20}}同时)",
    # People on a support desk ("our support team (about 30 agents)", "20 sales reps"): a team, not 30 at once.
    # "agents" alone may be software agents, each a stream of requests, so a desk word must come first.
    rf"(?:support|service|sales|help\s*desk|call[\s\-]cent(?:er|re))\b[^.?!;]{{0,30}}?(?<![\w.]){NUM}\s*{SUFFIX}\s*"
    r"(?:human\s+|live\s+)?(?:agents|reps|representatives)\b",
    rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*(?:customer\s+)?(?:support|service|sales|help\s*desk)\s+(?:agents|reps|representatives|staff)\b",
)


def find_org_size(scan: Scan) -> RateBasis | None:
    """Return an organisation's size ("全公司 3000 人", "a company of 1,500 people") at the assumed share."""
    return _population(scan, _ORG_SIZE)


def find_head_count(scan: Scan) -> RateBasis | None:
    """Return a bare head-count ("2,000 employees") at the assumed share; call it after the concurrency."""
    return _population(scan, _HEAD_COUNT)


def _population(scan: Scan, patterns: tuple[str, ...]) -> RateBasis | None:
    """Claim the first population figure and size it at :data:`DEFAULT_ONLINE_SHARE` (stated=False)."""
    m = _unclaimed(scan, *patterns)
    if m is None or (users := parse_number(m.group(1), m.group(2))) < 1:
        return None
    scan.claim(m.span())
    share = DEFAULT_ONLINE_SHARE
    return RateBasis(kind="user_share", amount=users, factor=share, stated=False, result=max(1, round(users * share)))


def _unclaimed(scan: Scan, *patterns: str) -> re.Match[str] | None:
    """Return the first match of the first matching pattern on text no extractor used, without claiming it."""
    for pattern in patterns:
        for m in compiled(pattern).finditer(scan.text):
            if not scan.is_used(*m.span()):
                return m
    return None


# ------------------------------------------------------------------------------------------ relative changes

_FACTORS: tuple[tuple[str, float], ...] = (
    (r"double[sd]?|twice|2\s*x|翻倍|加倍|翻一番|两倍|2\s*倍", 2.0),
    (r"triple[sd]?|three\s+times|3\s*x|三倍|3\s*倍", 3.0),
    (r"quadruple[sd]?|four\s+times|4\s*x|四倍|4\s*倍", 4.0),
    (r"ten\s+times|10\s*x|十倍|10\s*倍", 10.0),
    (r"half|halve[sd]?|减半|一半|砍半", 0.5),
)
_TARGETS: tuple[tuple[str, str], ...] = (
    ("concurrency", r"users?|concurren\w*|people|sessions|并发|用户|人数|在线"),
    ("qps", r"qps|rps|traffic|requests?|load|流量|请求|调用"),
    ("context", r"context|prompts?|length|上下文|长度"),
    ("budget_cny_month", r"budget|预算"),
    ("train_tokens", r"data(?:set)?|tokens|训练数据|数据量|语料"),
)


def relative_change(text: str) -> dict[str, float] | None:
    """Return the workload figures a follow-up scales ("what if we double the users?", "并发翻倍呢"), or None."""
    for factor_re, factor in _FACTORS:
        for field, target_re in _TARGETS:
            near = rf"(?:{factor_re})\s*(?:the\s+|our\s+|of\s+the\s+)?(?:number\s+of\s+)?(?:{target_re})"
            after = rf"(?:{target_re})[^,，。;；?？]{{0,6}}?(?:{factor_re})"
            if compiled(rf"{near}|{after}").search(text):
                return {field: factor}
    return None


# ------------------------------------------------------------------------------------------ capacity asked

_NOT_SERVED = r"(?!(?:gpus?|cards?|instances?|machines?|nodes?|servers?|boxes|vms?|replicas?|copies|tokens?)\b)"
_SERVED_EN = (
    r"(?:users|people|persons|folks|chats|sessions|conversations|convos|requests|sequences|streams|customers|"
    r"clients|agents|employees|students|seats|callers|dialogues)"
)
_AT_ONCE_EN = (
    r"at\s+once|simultaneous\w*|concurren\w*|in\s+parallel|at\s+the\s+same\s+time|at\s+a\s+time|going|"
    r"\b(?:hold|holds|serve|serves|support|supports|handle|handles|fit|fits|sustain|accommodate|take)\b"
)
_SERVED_ZH = r"(?:人|用户|会话|对话|请求|路|并发|客户|坐席|同学|员工)"
_CAPACITY_ASKS = (
    # "how many 8k-token chats can a single L20 keep going at once": the count of what runs at once
    rf"\bhow\s+many\s+(?:{_NOT_SERVED}[\w\-]+\s+){{0,3}}?{_SERVED_EN}\b[^?.!;]{{0,80}}?(?:{_AT_ONCE_EN})",
    rf"\bmax(?:imum)?\s+(?:number\s+of\s+)?(?:concurrent|simultaneous|parallel)\s+{_SERVED_EN}\b",
    # "最多几个人能同时聊", "多少用户可以一起在线": a count of people, then doing it at once
    rf"(?:多少|几)\s*(?:个|位|路|名)?\s*{_SERVED_ZH}[^，,。？?；;]{{0,12}}?(?:同时|一起|并发|在线)",
    # "8k 的会话能同时挂多少个", "能同时开几路": at once, any verb, then the count (not of cards or money)
    r"同时\s*[\u4e00-\u9fff]{1,3}?\s*(?:多少|几)\s*(?:个|路|位|名)?(?![张块台卡元钱GgTt万])",
    r"(?:挂|开|跑|撑|带|接)(?:得了|得住|住)?\s*(?:多少|几)\s*(?:个|路|位)\s*(?:会话|对话|请求|用户|人|并发)",
    # "能支撑的并发是多少", "最大并发数有多少": the concurrency it sustains, asked as a figure
    r"(?:支撑|支持|承载|撑|扛|跑)(?:得了|得住)?的\s*(?:最大)?\s*并发(?:数|量)?\s*(?:是|有|能到|大概|大约)?\s*(?:多少|几)",
    r"并发(?:的)?(?:上限|极限|容量|能力|天花板)|(?:上限|最多)(?:是|有|能到|大概|大约)?\s*(?:多少|几)\s*(?:个|路|位)?\s*并发",
)


def asks_capacity(text: str) -> bool:
    """Whether the question asks how many users, chats or requests the hardware serves at once."""
    return any(compiled(p).search(text) for p in _CAPACITY_ASKS)
