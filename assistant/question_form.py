"""The form of a question: what its first line must answer (a yes/no, a winner, a number, a price, a time).

Read by rules over the words that make a question a question, not over its topic: "能不能", "够不够",
"扛得住不", "来得及吗", "is it realistic?", "any chance ...", "true?" ask for a yes or a no whatever they are
about; "多少钱" asks for a price, "多久" for a time, "哪个实例" for an instance. Alongside, the limits a yes/no
is judged against that the workload slots do not carry: a deadline ("within 24 hours", "两天之内") and an amount
of money asked about ("包月 3000 块能拿下吗").
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assistant import render
from assistant.messages import say
from assistant.reading import compiled, parse_number

Form = Literal["yes_no", "which", "how_many", "how_much", "how_long", "what_to_rent", "open"]

# A-not-A questions (能不能, 够不够, 扛不扛得住), particles that close a yes/no question (吗, 不?, 没?, 么)
# and the words that only ask whether (是否, 能否, 来得及, 有没有必要).
_YES_NO_ZH = (
    r"能不能|可不可以|行不行|够不够|是不是|会不会|值不值|要不要|需不需要|适不适合|划不划算|靠不靠谱|有没有必要|"
    r"(?P<a>[\u4e00-\u9fff])不(?P=a)|"  # any A-not-A: 稳不稳, 快不快, 好不好
    r"是否|能否|可否|来得及|来不来得及|有必要|真的假的|对不对|"
    r"吗\s*(?:[?？!！。，,]|$)|(?:得住|得动|得下|得了|靠谱|够|行|可以|能行|划算|稳)\s*不\s*(?:[?？]|$)|"
    r"[了得]\s*么\s*(?:[?？]|$)|吧\s*[?？]"
)
# An English yes/no question opens with an auxiliary verb, or ends on a one-word check ("viable?", "true?").
_YES_NO_EN = (
    r"(?:^|[.!?;:,]\s+|\b(?:so|and|but|ok|okay|hmm|also|then|well|honestly|seriously)\s+)"
    r"(?:can|could|will|would|is|are|was|does|do|did|should|shall|am|has|have|may|might|must)"
    r"(?:n'?t)?\s+(?:i|we|it|this|that|these|those|they|you|a|an|one|two|three|four|eight|the|my|our|[¥￥$]?\s*\d+|"
    r"[a-z0-9][\w.\-]*)\b|"
    r"\b(?:viable|feasible|realistic|doable|possible|true|right|correct|enough|ok(?:ay)?|fine|sensible|"
    r"reasonable|legit|overkill|worth\s+it)\s*\?|"
    r"\bany\s+(?:chance|way|hope|reason\s+not\s+to)\b|\bis\s+it\s+(?:possible|realistic|feasible|ok(?:ay)?)\b|"
    r"\bget\s+away\s+with\b|\bam\s+i\s+(?:dreaming|crazy|wrong)\b|\bor\s+not\s*\?|\benough\s+to\b[^?]*\?|"
    r"\bgood\s+(?:idea|choice|pick|option|fit)\b|\bmake\s+sense\b|\bworth\s+(?:it|getting|using|paying)\b"
)
# "Could you recommend an instance ...", "can you please suggest ...": a request put as a question, not a yes/no.
_POLITE_REQUEST = (
    r"(?:^|(?<=[.!?;:,]\s))\s*(?:hi|hey|hello)?[,!\s]*(?:can|could|would|will)\s+you\s+(?:please\s+|kindly\s+)?"
    # "would you choose the V100 over the A10?" and "would you recommend the L20 for it?" stay yes/no questions
    r"(?=(?:(?:recommend|suggest|propose)\s+(?:me\s+|us\s+)?(?:an?|some|what|which|something|anything|the\s+(?:best|right|"
    r"cheapest))|help|tell|give|show|size|estimate|advise|plan|list|find|work\s+out)\b)"
)
# Two or more named options weighed against each other: the first line names the winner (i8cmp3's leads).
_WHICH = (
    r"\bvs\.?\b|\bversus\b|compared?\s+(?:to|with)|\bor\b(?!\s+not\b)(?!\s+so\b)|还是|或者|对比|比较|哪个(?:更|好|快|便宜|划算)|"
    r"\bwhich\s+(?:is|one|of)\b|\bbetter\b|更(?:快|便宜|好|划算|合适)|相比|比起"
)
_HOW_LONG = (
    r"多久|多长时间|几天|多少天|多少小时|how\s+long|how\s+many\s+(?:gpu[\s\-]*)?(?:hours|days|weeks)|"
    r"time\s+to\s+train|how\s+much\s+time|要多少时间|training\s+time|(?:would|will|does)\s+it\s+take"
)
_HOW_MUCH = r"how\s+much|\bcost\b|\bprice\b|多少钱|费用|价格|花多少|多贵|贵不贵|what\s+does\s+.{0,40}\bcost"
_HOW_MANY = r"how\s+many|多少(?:个|张|台|人|路|并发|用户|请求)|几(?:个|张|台|路)|最多.{0,12}多少"
_WHAT_TO_RENT = (
    r"\bwhich\s+(?:instance|gpu|machine|card|box|type|setup|config)|"
    r"\bwhat\s+(?:instance|gpu|machine|card|hardware|setup|config|should\s+(?:i|we)\s+(?:rent|use|get|buy|pick))|"
    r"推荐|选(?:什么|哪)|用(?:什么|哪)|租(?:什么|哪)|哪(?:个|款|种|一款)(?:实例|规格|机器|卡|GPU|配置)|"
    r"需要(?:什么|哪些)(?:实例|卡|配置|机器)"
)

# A deadline: "within 24 hours", "in under 3 days", "by tomorrow", "两天之内", "24 小时内", "一周内训完".
_UNIT_HOURS = {"hour": 1.0, "hr": 1.0, "h": 1.0, "day": 24.0, "week": 168.0, "month": 730.0, "小时": 1.0,
               "钟头": 1.0, "天": 24.0, "日": 24.0, "周": 168.0, "星期": 168.0, "礼拜": 168.0, "月": 730.0}  # fmt: skip
_NUM = r"\d+(?:\.\d+)?|[一二两三四五六七八九十]+"
_NUM_EN = {"one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0, "seven": 7.0, "eight": 8.0,
           "nine": 9.0, "ten": 10.0, "a couple of": 2.0, "a few": 3.0}  # fmt: skip
_DEADLINE_EN = (
    rf"\b(?:within|in\s+under|in\s+less\s+than|under|inside|in)\s+(?:~\s*|about\s+|around\s+|roughly\s+)?"
    rf"(?:a\s+|an\s+|(?P<n>{_NUM}|"
    + "|".join(_NUM_EN) + r")\s*)"
    r"(?P<u>hours?|hrs?|h|days?|weeks?|months?)\b"
)
# "We have 5 days.", "we've only got two weeks", "只有 3 天", "给我们一周时间": the time there is, a deadline too.
_TIME_LEFT_EN = (
    r"\b(?:we\s+have|we've\s+got|we\s+got|i\s+have|i've\s+got|got|have|there\s+are|leaves?\s+us)\s+"
    r"(?:only\s+|just\s+|about\s+|roughly\s+)?(?:a\s+|an\s+|(?P<n>\d+(?:\.\d+)?|"
    + "|".join(_NUM_EN) + r")\s*)(?P<u>hours?|hrs?|days?|weeks?|months?)\b(?!\s+(?:of|worth)\b)"
)
# "64 H800s for two weeks", "8 cards for 3 days": the time the named hardware is there for, so the run's deadline
_HARDWARE_FOR_EN = (
    r"\b(?:gpus?|cards?|[ahlv]\d{2,3}s?|h\d{3}s?|nodes?|instances?|boxes|machines?|servers?)\s+for\s+"
    r"(?:only\s+|just\s+|about\s+)?(?:a\s+|an\s+|(?P<n>\d+(?:\.\d+)?|" + "|".join(_NUM_EN) + r")\s*)"
    r"(?P<u>hours?|hrs?|days?|weeks?|months?)\b"
)
_TIME_LEFT_ZH = (
    rf"(?:只有|只剩|还有|就|给(?:我们|我)?)\s*(?P<n>{_NUM})\s*(?:个)?\s*(?P<u>小时|钟头|天|周|星期|礼拜|月)(?:时间)?"
    r"(?!\s*(?:的数据|的日志))"
)
# "两天之内", "24 小时内训完", "一天够吗", "三天时间够不够": the time the run must fit in
_DEADLINE_ZH = (
    rf"(?<![天日周晚]\s)(?<![天日周晚])(?P<n>{_NUM})\s*(?:个)?\s*(?P<u>小时|钟头|天|日|周|星期|礼拜|月)\s*(?:的?时间)?\s*"
    r"(?:之内|以内|内|之前|前|里|能|要|够|来得及|搞得定|跑得完|训得完)"
)
# "is 4 hours enough to LoRA-tune ...?", "will two days be enough?": the time there is, weighed
_ENOUGH_TIME_EN = (
    r"\b(?:a\s+|an\s+|(?P<n>\d+(?:\.\d+)?|" + "|".join(_NUM_EN) + r")\s*)(?P<u>hours?|hrs?|days?|weeks?)\s+"
    r"(?:be\s+|is\s+)?(?:enough|sufficient)\b"
)
# "overnight (12 hours)": the hours written beside the word are the deadline, not a whole day
_OVERNIGHT_HOURS = (
    r"\bovernight\s*[(（]\s*(?:~|about\s+|roughly\s+)?(?P<n>\d+(?:\.\d+)?)\s*(?P<u>hours?|hrs?|h)\s*[)）]"
)
_TOMORROW = r"\bby\s+tomorrow\b|\bovernight\b|明天(?:早上|上午|之前|前)|一晚上|一个晚上|一夜"
# An amount of money the question weighs: "3000 块能拿下吗", "is 20k RMB a month enough".
_MONEY = (
    r"(?:¥|￥|rmb\s*|cny\s*)?(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<k>k|w|万|千)?\s*(?:块|元|rmb|cny|yuan|¥|￥|(?:的)?预算)"
    r"|(?:¥|￥|rmb\s*|cny\s*|预算\s*(?:只有|才|是|为|就)?\s*|budget\s+(?:of|is)\s+)(?P<n2>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<k2>k|w|万|千)?"
)
# Whether it is worth it: a card that fits but costs more than another that also fits answers "no" here.
_WORTH = (
    r"\bworth\b|good\s+value|cost[\s\-]effective|value\s+for\s+money|bang\s+for|\bmakes?\s+sense\b|"
    r"\b(?:sensible|smart|good)\s+buy\b|\bstill\s+(?:a\s+)?(?:sensible|smart|good|viable|decent)\b|"
    # "should I use an A100 for a 7B?", "该不该用 H20": whether to pick it, which a cheaper fit answers no
    r"\bshould\s+(?:i|we)\s+(?:really\s+)?(?:use|rent|go\s+(?:with|for)|pick|choose|get|buy|take)\b|该不该|应不应该|"
    r"值不值|值得|划算|划不划算|性价比|浪费"
)
# Whether it is the cheapest way ("is a T4 the cheapest option?", "这是最便宜的吗"): no when a cheaper one fits.
_CHEAPEST = r"\bcheapest\b|\bleast\s+expensive\b|最便宜|最省钱|最划算|最低成本|成本最低"
# A speed the answer is judged against: "30 tokens/s per user", "每秒 50 个 token", "50 tok/s".
_SPEED = (
    r"(?P<n>\d+(?:\.\d+)?)\s*(?:tokens?|toks?|个\s*token|字)\s*(?:/\s*s(?:ec)?\b|per\s+sec(?:ond)?|每秒|一秒)|"
    r"(?:每秒|一秒)\s*(?:能)?(?:出|生成|输出|到|达到)?\s*(?P<n2>\d+(?:\.\d+)?)\s*(?:个)?\s*(?:tokens?|字)"
)
_SPEED_TOTAL = r"\b(?:total|aggregate|overall|combined)\b|总(?:吞吐|共|计)?|合计|整体"
# A yes/no whose "yes" is the failure ("will it OOM?", "会不会爆显存", "is a T4 too small?"): "yes, it fits"
# would answer it backwards, so the lead says whether it fails.
_FAILURE = (
    r"\b(?:oom|ooms|out\s+of\s+(?:gpu\s+)?memory|run\s+out\s+of\s+(?:gpu\s+)?(?:memory|vram)|crash(?:es)?|"
    r"too\s+(?:small|little|weak|tight)|not\s+(?:be\s+)?enough)\b|爆显存|显存(?:会)?(?:不够|爆|溢出)|会不会\s*oom|撑爆|会爆|不够吧"
)
# ... unless the turn also asks the usual way round ("is it enough, or will we run out of memory?"): the first
# question is answered as asked.
_SUCCESS = (
    r"(?<!not\s)(?<!not\sbe\s)\benough\b|\bfits?\b|\bhandle\b|\bwork\b|\bcut\s+it\b|够不够|能不能|行不行|放得下|跑得动|"
    r"(?<!不)够(?:吗|用)"
)
# A yes/no whose "yes" is a bad choice ("would it be a mistake to serve X on one H20?", "是不是不明智"): a fit is no.
_MISTAKE = (
    r"\b(?:a\s+)?(?:mistake|bad\s+(?:idea|call|choice|move)|wrong\s+choice|poor\s+choice|any\s+reason\s+not\s+to)\b|"
    r"不明智|是个错误|失误|会后悔|踩坑|馊主意|"
    # "is it dumb to rent 8 H20s for a 7B?", "would it be crazy to run 72B on one A10?": a bad choice, said plainly
    r"\b(?:is|would)\s+(?:it|that|this)\s+(?:be\s+)?(?:dumb|silly|stupid|crazy|insane|ridiculous|absurd|nuts)\b|"
    r"(?:是不是|会不会)(?:很|太)?(?:傻|蠢|疯了|离谱)"
)
# A why-question ("why does it OOM?", "为啥跑不起来"): the reason leads, whatever else the turn asks.
_WHY = r"\bwhy\b|为什么|为啥|为何|怎么会|咋会|\bhow\s+come\b|what\s+causes|是什么原因|什么原因"
_SCALE = {"k": 1e3, "千": 1e3, "w": 1e4, "万": 1e4}


class QuestionForm(BaseModel):
    """What the first line of the answer must be, and the limits a yes/no is judged against."""

    model_config = ConfigDict(extra="forbid")

    form: Form = Field(description="the question's form; 'yes_no' above all others when both are asked")
    also: list[Form] = Field(default_factory=list, description="other forms the same turn asks ('行不行，要多久')")
    deadline_hours: float | None = Field(default=None, description="'within 24 hours': the time a run must fit in")
    amount_cny: float | None = Field(default=None, description="'包月 3000 块能拿下吗': money the yes/no is about")
    speed_tokens_s: float | None = Field(default=None, description="'at least 30 tokens/s', '每秒 50 个 token'")
    speed_total: bool = Field(default=False, description="the speed is the whole deployment's, not one user's")
    worth: bool = Field(default=False, description="'is it worth it', '值不值', '划算吗': asks about value, not fit")
    cheapest: bool = Field(default=False, description="'is a T4 the cheapest way?': no when a cheaper one fits")
    why: bool = Field(default=False, description="'why does it OOM?', '为什么跑不起来': the reason leads")
    failure: bool = Field(default=False, description="'will it OOM?', '会不会爆显存': yes means it does not fit")
    mistake: bool = Field(default=False, description="'would it be a mistake to ...?': yes means a bad choice")


def read_form(question: str) -> QuestionForm:
    """Read the form of one user turn (Chinese or English) and the deadline or amount it states."""
    text = question.strip()
    found: list[Form] = []
    if compiled(_WHICH, re.IGNORECASE).search(text):
        found.append("which")
    asked = compiled(_POLITE_REQUEST, re.IGNORECASE).sub("", text)  # "could you recommend X?" asks for X
    if compiled(_YES_NO_ZH, 0).search(asked) or compiled(_YES_NO_EN, re.IGNORECASE).search(asked.lower()):
        found.append("yes_no")
    for form, pattern in (("how_long", _HOW_LONG), ("how_much", _HOW_MUCH), ("how_many", _HOW_MANY),
                          ("what_to_rent", _WHAT_TO_RENT)):  # fmt: skip
        if compiled(pattern, re.IGNORECASE).search(text):
            found.append(form)  # type: ignore[arg-type]
    first: Form = found[0] if found else "open"
    return QuestionForm(form=first, also=found[1:], deadline_hours=deadline_hours(text), amount_cny=amount_cny(text),
                        worth=bool(compiled(_WORTH, re.IGNORECASE).search(text)),
                        cheapest=bool(compiled(_CHEAPEST, re.IGNORECASE).search(text)),
                        why=bool(compiled(_WHY, re.IGNORECASE).search(text)),
                        failure=_asks_failure(text), mistake=bool(compiled(_MISTAKE, re.IGNORECASE).search(text)),
                        **_speed(text))  # fmt: skip


def _asks_failure(text: str) -> bool:
    """Whether a yes answers that it fails ("will it OOM?"), not that it works."""
    return bool(compiled(_FAILURE, re.IGNORECASE).search(text)) and not compiled(_SUCCESS, re.IGNORECASE).search(text)


# "done in ~half a day", "半天之内训完": twelve hours
_HALF_DAY = (
    r"\b(?:within|in|under|inside)\s+(?:~\s*|about\s+|around\s+|roughly\s+)?half\s+a\s+day\b|"
    r"半天\s*(?:之内|以内|内|能|要|来得及|搞得定|跑得完|训得完)"
)


def deadline_hours(text: str) -> float | None:
    """Return the time a run must finish in, in hours ("within 24 hours" -> 24, "两天之内" -> 48), or None."""
    if compiled(_HALF_DAY, re.IGNORECASE).search(text):
        return 12.0
    patterns = (_OVERNIGHT_HOURS, _DEADLINE_EN, _DEADLINE_ZH, _TIME_LEFT_EN, _TIME_LEFT_ZH, _HARDWARE_FOR_EN,
                _ENOUGH_TIME_EN)  # fmt: skip
    for pattern in patterns:
        if m := compiled(pattern, re.IGNORECASE).search(text):
            word = (m.group("n") or "").lower()
            n = _NUM_EN.get(word) or (parse_number(word) if word else 1.0)
            unit = m.group("u").lower()
            per = next((h for u, h in _UNIT_HOURS.items() if unit.startswith(u)), None)
            if n and per:
                return n * per
    if compiled(_TOMORROW, re.IGNORECASE).search(text):
        return 24.0
    return None


def amount_cny(text: str) -> float | None:
    """Return an amount of money named in the turn, CNY ("3000 块" -> 3000, "20k RMB" -> 20000), or None."""
    m = compiled(_MONEY, re.IGNORECASE).search(text)
    if m is None:
        return None
    number, scale = (m.group("n"), m.group("k")) if m.group("n") else (m.group("n2"), m.group("k2"))
    return float(number.replace(",", "")) * _SCALE.get((scale or "").lower(), 1.0)


def _speed(text: str) -> dict[str, float | bool | None]:
    m = compiled(_SPEED, re.IGNORECASE).search(text)
    if m is None:
        return {}
    total = bool(compiled(_SPEED_TOTAL, re.IGNORECASE).search(text))
    return {"speed_tokens_s": float(m.group("n") or m.group("n2")), "speed_total": total}


def deadline_label(hours: float, lang: str) -> str:
    """Say a deadline as the user likely wrote it: whole days as days ('10 天', '3 days'), else hours."""
    if hours == 24:
        return say("deadline.one_day", lang)
    if hours >= 24 and hours % 24 == 0:
        return say("deadline.days", lang, n=render.fig(hours / 24))
    return say("deadline.hours", lang, n=render.fig(hours))
