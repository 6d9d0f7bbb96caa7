"""Workload numbers in a question: budget, training tokens, context, concurrency, QPS, batch, invalid values.

Each finder claims the text it reads (see :class:`assistant.reading.Scan`), so one number is read once.
"""

from __future__ import annotations

import re

from assistant.hardware_words import GPU_NAME
from assistant.rate_words import ABOUT, CALLS_EN, CALLS_ZH
from assistant.reading import NUM, OF, SUFFIX, Scan, as_int, compiled, parse_number

_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# "一万五" is 15,000 and "两千五" 2,500, as people say it: the digit after the unit is the next place down.
_CN_TAIL = (
    r"(?<![\d.一二两三四五六七八九十百千])([一二两三四五六七八九]|\d{1,3})(万|千)(?!一(?:个|年|月|天|周|星期|小时|台|张))"
    r"([一二三四五六七八九]|\d)"
    r"(?:千|百)?(?!(?!一(?:个|年|月|天|周|星期|小时|台|张))[\d一二两三四五六七八九十百千万])"
)  # "一万五一个月" is 15,000 a month: a "一" that starts "一个月" is no further digit


def spoken_chinese_amounts(text: str) -> str:
    """Write "一万五", "三万二", "1万5", "两千五" as "1.5万", "3.2万", "1.5万", "2.5千" for the number readers."""

    def digit(value: str) -> str:
        return str(_CN_DIGITS.get(value, value))

    return re.sub(_CN_TAIL, lambda m: f"{digit(m.group(1))}.{digit(m.group(3))}{m.group(2)}", text)


# "4k tokens each", "8k tokens per chat": a length per request (read as the context), not a training volume.
_PER_REQUEST = (
    r"(?!\s*(?:each(?!\s+(?:epoch|pass|round|step|time))|apiece|"
    r"(?:per|a)\s+(?:request|chat|conversation|user|person|query|message|prompt|turn|session)s?\b))"
)


def find_train_tokens(scan: Scan) -> float | None:
    m = scan.find(
        # "100M-token dataset" is a volume; "64k-token sessions" a length (a volume is millions or more)
        rf"{NUM}\s*(thousand|million|billion|trillion|百万|千万|[kKmMbBtT万亿])(?:(?<=[mMbBtTn])-)?(?:个)?\s*"
        r"(?:tokens?|token|词元)"
        + r"(?![A-Za-z])"
        + _PER_REQUEST
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
    r"(?:上下文(?:长度|窗口)?|context(?:\s+(?:length|window))?|ctx|序列(?:长度)?|seq(?:uence)?(?:[\s_]*len(?:gth)?)?(?![a-z])|"
    r"max[\s_\-]*(?:model[\s_\-]*)?len|输入长度|长度)"
)
_CTX_SUFFIX = r"(million|billion|[kKmM]|万|百万|亿)?"  # a huge context is read as written, then refused by its limit
# Words after a number that make it a count, not a length ("32k 上下文 50 并发": 50 is the concurrency).
_COUNTED = r"(?:个|路|位|并发|users?|concurren|qps|rps|张|卡|gpus?|台|requests?)"


_NOT_ITEMS = (
    r"(?!\s*(?:examples?|samples?|rows?|records?|pairs?|dialog(?:ue)?s?|conversations?|chats?|instructions?|"
    r"docs?|documents?|items?|questions?|users?|people|requests?|images?|条|个|对|篇))"
)


def find_context(scan: Scan, *, explicit: bool = False) -> int | None:
    """Context length; ``explicit`` reads only numbers next to a context word ("上下文 10M tokens").

    The explicit pass runs before training tokens are read, so a huge context stays a context (the
    planner then reports the model's limit) instead of turning into a training-token count.
    """
    patterns = [
        # "how many concurrent 32k users": a length per user in a capacity question, not 32,000 users
        rf"how\s+many\s+(?:concurrent\s+|simultaneous\s+|parallel\s+)?{NUM}\s*([kK])[\s\-]*(?:tokens?[\s\-]*)?"
        r"(?:context\s+)?(?:users|requests|sequences|sessions|chats|conversations)",
        # "if each convo is 32k tokens", "每个对话 16k": a length per conversation is the context
        rf"(?:each|every|per|a)\s+(?:convo|conversation|chat|session|request|dialog(?:ue)?)\s+(?:is|of|has|at|=|~)?\s*"
        rf"(?:about\s+|around\s+|roughly\s+|~)?{NUM}\s*([kK])[\s\-]*(?:tokens?)?(?![A-Za-z])",
        # "if conversations run to 8k tokens", "chats can reach 16k": how long a conversation gets is the context
        rf"(?:convos?|conversations?|chats?|sessions?|dialog(?:ue)?s?)\s+(?:run|go|get|grow|reach|stretch|"
        rf"can\s+(?:be|reach|get|grow)|are|average|up)\s+(?:(?:to|up\s+to|about|around|roughly|~)\s*)*{NUM}\s*([kK])"
        rf"[\s\-]*(?:tokens?)?(?![A-Za-z])",
        rf"每(?:个|一)?(?:对话|会话|请求|用户|人)\s*(?:是|有|约|大约|大概)?\s*{NUM}\s*([kK])",
        # "40 users, 8k tokens each": a length per user, not a count of training tokens
        rf"{NUM}\s*([kK])[\s\-]*tokens?\s+(?:each|apiece|per\s+(?:user|request|person|head|conversation|chat|session))\b",
        # "32k 上下文", but not the "8" of "bs8 seq4096" (a context word followed by its own number)
        rf"{NUM}\s*{_CTX_SUFFIX}[\s\-]*(?:tokens?[\s\-]*)?(?:of\s+|的)?\s*{_CTX_WORDS}(?!{OF}\d{{1,9}}(?![\d.])(?!\s*{_COUNTED}))",
        rf"{_CTX_WORDS}{OF}{NUM}\s*{_CTX_SUFFIX}(?![A-Za-z])",
        # "上下文开到 1 亿", "context set to 200k": a verb of setting between the word and its number
        rf"{_CTX_WORDS}\s*(?:开到|开成|设到|设为|设成|设置为|设置成|调到|拉到|加到|set\s+to|of\s+up\s+to|to\b){OF}{NUM}\s*"
        rf"{_CTX_SUFFIX}(?![A-Za-z])",
    ]
    if not explicit:
        patterns += [
            # not a speed: "200 tokens/s", "50 tokens per second" (\b stops "token" backtracking before "s/")
            rf"{NUM}\s*([kK])?[\s\-]*tokens?\b(?!\s*(?:/|per\s+sec|a\s+sec|每秒))",
            # not a count of items: "200k examples", "100k rows" (a training set's size, not a length)
            r"(?<![\w.¥￥])(2|4|8|16|32|64|128|256|200|100)\s*([kK])(?![\w])" + _NOT_ITEMS,
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
# People and requests at once come whole too ("并发 0.5 个", "2.5 users"); a scale word after the number
# ("1.5 万人", "2.5k users") makes it a whole count, so none may stand between.
_FRACTION_PEOPLE_RE = (
    r"(?<![\w.])\d{0,9}\.\d{1,6}\s*(?:个|位|名)?\s*(?:并发|用户|人(?!民币)|users?\b|people\b|concurrent\s+(?:users|requests))|"
    r"(?:并发(?:数|量)?|concurrency|concurrent\s+users)\s*(?:[:：=为是]|of)?\s*\d{0,9}\.\d{1,6}(?![\d.])(?!\s*(?:[kKwW万千]|million|billion))"
)
_QUANTITY_WORDS = (
    r"并发|concurren\w*|users?|requests?|用户|请求|人|张|块|卡|gpus?|cards?|qps|rps|batch|bs|批|"
    r"上下文|context|ctx|tokens?|预算|budget|元|cny|rmb|¥|￥|月|month|实例|instances?|台"
)


# "per million tokens" is a unit of cost, not a number of training tokens.
_TOKEN_COST_RE = (
    r"(?:每|per|/)[\s\-]*(?:百万|一百万|1\s*m|1\s*million|million|m|千|一千|1\s*k|thousand|k)[\s\-]*(?:个)?\s*"
    r"(?:(?:output|input|generated|prompt)\s+|输出|输入|生成的?)?\s*(?:tokens?|token|词元)"
)


# "token 成本", "cost per token", "per-token price": the cost of tokens asked without a unit count
_PER_TOKEN_RE = (
    r"tokens?\s*(?:的)?\s*(?:成本|单价|价格|费用|花费)|每\s*(?:个\s*)?tokens?\s*(?:的)?\s*(?:成本|价格|多少钱)|"
    r"\b(?:cost|price)s?\s+(?:per|a|of\s+a)\s+token\b|\bper[\s\-]token\s+(?:cost|price|pricing)|\btoken\s+(?:cost|price)s?\b|"
    # "what does one million tokens cost", "the price of 1M tokens", "一百万 token 多少钱" ("a"/"one" read as 1)
    r"\b(?:cost|price)s?\s+(?:of|for)\s+1\s*(?:million|m)\s+(?:output\s+)?tokens?\b|"
    r"\b1\s*(?:million|m)\s+(?:output\s+)?tokens?\s+(?:would\s+|will\s+)?(?:cost|costs|come\s+to|run)\b|"
    r"(?:一百万|1\s*百万|100\s*万)\s*(?:个)?\s*tokens?\s*(?:要|大概|大约|得)?\s*(?:多少钱|成本|花多少|的成本|的费用)|"
    # "most tokens per second per yuan", "每块钱多少 token": tokens for the money, the inverse of the cost per token
    r"\btokens?(?:\s*/\s*s|\s+per\s+second)?\s+(?:per|a|for\s+each)\s+(?:yuan|rmb|dollar|buck|¥)|"
    r"每(?:一)?(?:块钱|元钱?)\s*(?:能)?\s*(?:跑|生成|出)?\s*多少\s*tokens?"
)


def token_cost_asked(text: str) -> bool:
    """Whether ``text`` asks the cost of tokens ("per million tokens", "what does one million tokens cost")."""
    return bool(compiled(_TOKEN_COST_RE).search(text) or compiled(_PER_TOKEN_RE).search(text))


def find_token_cost(scan: Scan) -> bool:
    """Claim "每百万 tokens" / "per million tokens" so it is not read as a token count; "token 成本" asks it too."""
    return scan.find(_TOKEN_COST_RE) is not None or scan.find(_PER_TOKEN_RE) is not None


def find_invalid(scan: Scan) -> list[str]:
    """Claim and return negative quantities and fractional GPU counts, as written."""
    found: list[str] = []
    for m in re.finditer(_NEGATIVE_RE, scan.text):
        glued = scan.text[m.start() - 1 : m.start()]
        before = scan.text[: m.start()].rstrip()
        # "Qwen2.5-7B", "1-2 卡", "10 - 20": a hyphen glued to a name, or between numbers, is no minus sign.
        if (glued.isascii() and (glued.isalnum() or glued in "._")) or (before and before[-1] in "0123456789~"):
            continue
        if glued.isspace() and scan.text[m.start() + 1 : m.start() + 2].isspace():
            continue  # "sanity check - 2x H20": a dash between words, spaced on both sides, is punctuation
        near = scan.text[max(0, m.start() - 12) : m.end() + 14]
        if not re.search(_QUANTITY_WORDS, near, re.IGNORECASE):
            continue
        scan.claim(m.span())
        found.append(phrase(scan.text, m.start(), m.end()))
    for pattern in (_FRACTION_GPUS_RE.format(gpu=GPU_NAME), _FRACTION_PEOPLE_RE):
        for m in re.finditer(pattern, scan.text, re.IGNORECASE):
            value = re.search(r"\d*\.\d+", m.group(0))
            if value and not float(value.group(0)).is_integer() and not scan.is_used(*m.span()):
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


_PEOPLE = (
    r"(?:users?|people|ppl|persons|folks|clients|customers|employees|staff|students|agents|members|requests?|"
    r"sessions?)"
)
# People by their role, for whom a service is run ("20 个销售", "40 analysts").
_ROLES_ZH = (
    r"(?:员工|同事|销售|客服|坐席|学生|同学|老师|医生|律师|分析师|工程师|研发|开发|用户|客户|成员|学员|运营|员|人员)"
)
_ROLES_EN = (
    r"(?:sales\s*people|salespeople|sales\s+reps|reps|analysts|lawyers|doctors|nurses|engineers|developers|devs|"
    r"agents|teachers|researchers|colleagues|coworkers|co-workers|students|members|testers)"
)  # not "employees"/"staff": a company's head-count is a population at a share (rate_words.find_head_count)
# "at the same time", and the non-native "in same time" / "at same time": the people served at once.
_AT_ONCE = r"(?:(?:at|in)\s+(?:the\s+)?same\s+(?:time|moment)|at\s+once|concurrently|simultaneously|in\s+parallel)"


def find_concurrency(scan: Scan) -> int | None:
    m = scan.first(
        rf"{NUM}\s*{SUFFIX}\s*(?:个|路)?\s*(?:并发|concurren(?:t|cy)|conc\b|simultaneous|parallel\s+(?:users|requests))",
        # "8 parallel jobs", "4 concurrent streams": work items running at once
        rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*(?:parallel|concurrent|simultaneous)\s+(?:jobs?|streams?|tasks?|workers?|"
        r"pipelines?|generations?|chats?|sessions?|conversations?)\b",
        rf"(?<![\w.]){NUM}\s*{SUFFIX}[\s\-]*way\s+(?:concurrency|parallel)",
        rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*(?:requests?|users?|jobs?|documents?|docs|files|pdfs|chats|sessions)?\s*"
        r"at\s+(?:a\s+time|once)",
        rf"(?:并发(?:数|量|用户数?|请求数?)?|concurrency|conc\b|concurrent\s+users|concurrent\s+requests){OF}{NUM}\s*{SUFFIX}",
        rf"(?:并发|用户|人数|concurrency|users)(?:数|量)?\s*(?:改成|改为|调到|提高到|增加到|加到|降到|减到|设为|涨到|升到|上升到|"
        rf"增长到|增至|变成|变为|扩到|扩大到|扩展到|翻到|到了|(?:changed?|increased?|raised?|bumped?|cut|reduced?|set|"
        rf"grows?|goes|went|jumps?|climbs?|rises?|rose)\s+(?:up\s+)?to){ABOUT}{NUM}\s*{SUFFIX}",
        # "同时有 100 来个人在聊", "200 多人同时用": an approximate count is still the count
        rf"(?:同时\s*(?:有)?\s*)?{NUM}\s*{SUFFIX}\s*(?:来|多|左右|上下)\s*(?:个|位)?\s*(?:用户|人)\s*(?:同时|在线|在聊|在用)",
        rf"同时\s*(?:有)?\s*{NUM}\s*{SUFFIX}\s*(?:来|多|左右|上下)\s*(?:个|位)?\s*(?:用户|人|会话|请求)",
        rf"同时\s*(?:有)?\s*{NUM}\s*{SUFFIX}\s*(?:个|位)?\s*(?:用户|请求|人|会话)",
        rf"{NUM}\s*{SUFFIX}\s*(?:个|位)?\s*(?:用户|请求|人)\s*同时",
        # "10 个客服同时用", "20 名员工一起在线", "10 人并发": people (by their role), at once
        rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*(?:个|位|名)?\s*(?:{_ROLES_ZH}|人)(?:们)?\s*(?:同时|一起|并发)",
        # "同时在线峰值约三百人", "高峰在线 500 人", "在线人数峰值 200"
        rf"(?:同时在线|在线)\s*(?:人数|用户数?)?\s*(?:的)?\s*(?:峰值|高峰)?{ABOUT}{NUM}\s*{SUFFIX}\s*(?:个|位)?\s*(?:人|用户)?",
        rf"(?:高峰|峰值)(?:期|时|时段)?\s*(?:有)?{ABOUT}{NUM}\s*{SUFFIX}\s*(?:个|位)?\s*(?:人|用户)\s*(?:同时)?\s*(?:在线|在用|使用|访问)",
        rf"{NUM}\s*{SUFFIX}\s*(?:users?|requests?|sessions?)\s*(?:at\s+(?:the\s+same\s+time|once)|concurrently|in\s+parallel)",
        # "a hundred folks chatting at the same time", "80 agents using it simultaneously"
        rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*{_PEOPLE}\s+(?:[a-z]+\s+){{0,4}}?{_AT_ONCE}",
        # "~30 tickets being answered at the same moment": work items in flight at once
        rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*(?:tickets|chats|conversations|requests|queries|questions|calls|sessions)\s+"
        rf"(?:[a-z]+\s+){{0,4}}?{_AT_ONCE}",
        # "200 customers, perhaps 40 of whom would be chatting at the same time": the share at once
        rf"(?<![\w.]){NUM}\s*{SUFFIX}\s+of\s+(?:them|whom|those|these|which)\s+(?:[a-z']+\s+){{0,4}}?{_AT_ONCE}",
        rf"(?:for|serve|serving|with)\s+{NUM}\s*{SUFFIX}\s*(?:simultaneous\s+|active\s+)?(?:users|people|clients|sessions)",
        rf"{NUM}\s*{SUFFIX}\s*(?:个|位)\s*(?:用户|人)",
        # "给 20 个销售用", "供 30 名客服同事使用", "for 20 salespeople": the people it is for, by their role
        rf"(?:给|供|让|提供给|为)\s*{NUM}\s*{SUFFIX}\s*(?:个|位|名)?\s*{_ROLES_ZH}(?:人员|同事|同学|们)?\s*(?:同时)?\s*"
        r"(?:用|使用|访问|在用|提供|部署|开放|搭建|服务)",
        # "给 50 人用", "供三十人使用": a team that size (up to 99) are its users; "给 3000 人用" is a head-count
        # (rate_words); "500 人同时用" says at once, at any size
        r"(?:给|供|让|提供给|为)\s*(\d{1,2}|[一二两三四五六七八九十]{1,3})()\s*(?:多|来)?\s*(?:个|位|名)?\s*人\s*(?:同时)?\s*"
        r"(?:用|使用|访问|在用|提供|部署|开放|搭建|服务)",
        rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*(?:多|来)?\s*人\s*同时\s*(?:用|使用|访问|在用|在线)",
        # "做内部知识库问答，50 人用": the same team-sized users as a clause of its own, without 给/供
        r"(?:^|[，,。；;、\s])(\d{1,2}|[一二两三四五六七八九十]{1,3})()\s*(?:多|来)?\s*(?:个|位|名)?\s*人\s*(?:在)?\s*"
        r"(?:用|使用)(?![户])",
        rf"\b(?:for|to|with)\s+(?:~|about\s+|around\s+|roughly\s+)?{NUM}\s*{SUFFIX}\s*(?:concurrent\s+|simultaneous\s+|active\s+)?{_ROLES_EN}\b",
        # "keep 60 analysts happy", "can it serve 40 lawyers?": the people a verb serves
        rf"\b(?:keep|serve|support|handle|host|take|cope\s+with)\s+(?:~|about\s+|around\s+|roughly\s+)?{NUM}\s*{SUFFIX}\s*"
        rf"(?:concurrent\s+|simultaneous\s+|active\s+)?(?:{_ROLES_EN}|users|people|clients|customers)\b",
        # "to ~20 staff": a team that size are the users; "2,000 employees" is a head-count (rate_words)
        r"\b(?:for|to|with)\s+(?:~|about\s+|around\s+|roughly\s+)?(\d{1,2})()\s*(?:employees|staff)\b",
        rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*(?:concurrent\s+|simultaneous\s+|active\s+)?(?:users|people|ppl|clients)\b",
        # "a 20 user RAG chatbot", "our 50-user pilot": the count as an adjective of what is deployed (not "1B user
        # events", a data volume)
        rf"(?<![\w.]){NUM}\s*{SUFFIX}[\s\-]*(?:concurrent[\s\-]+)?(?:user|person|seat)[\s\-]+{_DEPLOYED}",
        # "a handful of users, say 4", "users - maybe 20": the count given after the people
        rf"\b(?:users|people|ppl|folks|clients|staff|students|colleagues)\s*[,(\-–—]?\s*(?:say|maybe|perhaps|like|"
        rf"about|around|roughly|~)\s*{NUM}\s*{SUFFIX}(?![\w.])(?!\s*(?:tokens?|gb|gib|k\b|%))",
        # "maybe 5 internal users", "a small team of 10", "a 12-person team": the people served at once.
        rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*(?:internal|in-house|beta|paying|pilot|test)\s+(?:users|people|clients|staff)\b",
        rf"\b(?:team|group)\s+of\s+{NUM}\s*{SUFFIX}(?!\s*(?:gpus?|cards?|nodes?|machines?|servers?|instances?)\b)",
        rf"(?<![\w.]){NUM}{SUFFIX}[\s\-]*(?:person|people|member|man)\s+(?:team|group|startup|company|lab|shop|studio)\b",
        # "a dozen analysts hammering the bot", "15 lawyers using it": a team that size (up to 99) are its users
        rf"(?<![\w.,])(\d{{1,2}})()\s+{_ROLES_EN}\s+(?:will\s+be\s+|would\s+be\s+|are\s+)?(?:using|hammering|hitting|"
        r"sharing|querying|chatting|on)\b",
    )
    if not m:
        if me_and := scan.first(_ME_AND_EN, _ME_AND_ZH):  # "me and 2 friends": the asker is one of them
            return as_int(parse_number(me_and.group(1), me_and.group(2)) + 1)
        return 1 if re.search(_SOLO_RE, scan.text, re.IGNORECASE) else None
    return as_int(parse_number(m.group(1), m.group(2)))


_DEPLOYED = (
    r"(?:internal\s+|in-house\s+)?(?:rag|chat\w*|bot|app\w*|service|deployment|team|pilot|poc|tool|setup|product|"
    r"assistant|system|platform|prototype|helpdesk|support|demo|beta|copilot|knowledge|search|workload)\b"
)
# "me and 2 friends", "myself plus three teammates", "我和另外两个同学": those named and the asker.
_ME_AND_EN = (
    rf"\b(?:me|myself)\s+(?:and|plus|\+|&)\s+(?:(?:my|about|around|maybe)\s+)?{NUM}\s*{SUFFIX}\s+(?:other\s+)?"
    r"(?:friends?|colleagues?|co-?workers?|teammates?|classmates?|labmates?|others|people|users|devs?|"
    r"students|researchers|engineers)\b"
)
_ME_AND_ZH = (
    rf"(?:我|自己)\s*(?:和|跟|加上?|带)\s*(?:另外|其他)?\s*{NUM}\s*{SUFFIX}\s*(?:个|位|名)?\s*{_ROLES_ZH}?"
    r"(?:朋友|同学|同事|队友|人)"
)


# "just me using it", "only for myself", "就我一个人用", "自己一个人玩": one user, said without a number.
_SOLO_RE = (
    r"\b(?:just|only)\s+(?:me|myself)(?:\s+(?:using|uses?|will\s+use|on\s+it)\b|\s*[,.;!?)]|\s*$)|\b(?:for|by)\s+myself\b|\b(?:a\s+)?single\s+user\b|\bone\s+user\b|"
    r"(?:就|只有|只)\s*(?:我|自己)\s*(?:一个人)?\s*(?:用|使用|在用|玩)|自己一个人\s*(?:用|玩)|个人自用|一个人用"
)


# "QPS of 128-token queries": a number followed by "-token"/"字" is a length, never a rate.
_NOT_LENGTH = r"(?![\d.,]*\s*[kK]?\s*[\-\s]?\s*(?:tokens?\b|token|个?字|个?汉字|words?\b|char))"


_NOT_PEOPLE = r"(?!\s*(?:users?|people|persons|ppl|concurrent|online|sessions|chats|个|位|名|人|用户|并发|在线|路))"
# "2 requests a second on average but 10 at peak", "平均 QPS 2，峰值 10": the peak is what the plan must carry
_PEAK_QPS = (
    rf"(?<![\w.]){NUM}\s*{SUFFIX}\s*(?:qps|rps|req/s|(?:requests?|queries|calls?)\s*(?:per\s+second|/\s*s(?:ec)?\b|a\s+second))?"
    r"\s*(?:at|during|in)\s+(?:the\s+)?(?:peak|busiest)",
    rf"\bpeak(?:s|ing)?\s*(?:of|at|is|around|about|=|:)?\s*(?:qps|rps)?{ABOUT}{NUM}\s*{SUFFIX}(?![\w.%]){_NOT_PEOPLE}",
    rf"(?:峰值|高峰)(?:期|时|时段)?\s*(?:qps|rps|每秒)?{ABOUT}{NUM}\s*{SUFFIX}(?![\w.%]){_NOT_PEOPLE}",
)
_PER_SECOND = r"qps|rps|req/s|per\s+second|a\s+second|每秒"


def find_qps(scan: Scan) -> float | None:
    if re.search(_PER_SECOND, scan.text, re.IGNORECASE) and (peak := scan.first(*_PEAK_QPS)):
        _find_average_qps(scan)  # the average beside it is said, not planned for: claimed so nothing else reads it
        return parse_number(peak.group(1), peak.group(2))
    return _find_average_qps(scan)


def _find_average_qps(scan: Scan) -> float | None:
    m = scan.first(
        # "QPS 要到一千万": the scale word after the number counts (it was read as 1,000)
        rf"(?:qps|rps|每秒请求数?)\s*(?:峰值|高峰|peak|at\s+peak)?\s*(?:要到|要求|需要|要|能上|能到|能达到|达到|上|到|跑到|做到|冲到|破)?"
        rf"{ABOUT}{NUM}\s*{SUFFIX}"
        rf"(?![A-Za-z]){_NOT_LENGTH}",  # "an RPS of 15 with": "w" starts a word, it is no 万
        # not the "20" of "L20 QPS": a number glued to a letter belongs to a name
        rf"(?<![A-Za-z]){NUM}\s*{SUFFIX}\s*(?:qps|rps|req/s|(?:requests?|queries|query|calls?|messages)\s*"
        r"(?:per\s+second|/\s*s(?:ec)?\b|a\s+second))",
        rf"每秒\s*(?:处理)?\s*{NUM}\s*{SUFFIX}\s*(?:个|次)?\s*(?:请求|query|查询|调用)",
    )
    if m:
        return parse_number(m.group(1), m.group(2))
    # "1200 requests per minute", "每分钟 600 次调用": a rate per second all the same
    m = scan.first(
        rf"{NUM}\s*{SUFFIX}\s*{CALLS_EN}\s*(?:per|a|/|each)\s*(?:minute|min)\b",
        rf"(?:每分钟|一分钟)\s*(?:约|大约|大概)?\s*{NUM}\s*{SUFFIX}\s*{CALLS_ZH}",
        rf"{NUM}\s*{SUFFIX}\s*{CALLS_ZH}\s*(?:/|每)\s*分钟",
    )
    if m:
        return round(parse_number(m.group(1), m.group(2)) / 60, 2)
    # "36,000 requests an hour", "每小时 1.8 万次调用": the hour's requests spread over its seconds
    m = scan.first(
        rf"{NUM}\s*{SUFFIX}\s*{CALLS_EN}\s*(?:per|an?|/|each)\s*(?:hour|hr|h)\b",
        rf"(?:每小时|一小时|每个小时)\s*(?:约|大约|大概|有)?\s*{NUM}\s*{SUFFIX}\s*{CALLS_ZH}",
        rf"{NUM}\s*{SUFFIX}\s*{CALLS_ZH}\s*(?:/|每)\s*(?:小时|h\b)",
    )
    return round(parse_number(m.group(1), m.group(2)) / 3600, 2) if m else None


def find_batch(scan: Scan) -> int | None:
    m = scan.first(
        rf"(?:batch[\s_]*size|micro[\s\-_]*batch|batch|bs|批大小|批量大小|批次大小|批量){OF}{NUM}",
        rf"{NUM}\s*(?:的)?\s*(?:batch|批)",
    )
    return as_int(parse_number(m.group(1))) if m else None
