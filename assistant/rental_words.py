"""How long a deployment is rented when only for a while: "for a 2-day hackathon", "只需要用 3 天", "一周的 POC".

The total of such a rental is its pay-as-you-go hours, not a month: the answer leads with it. Hours a day ("8 hours
a day") are usage hours (:mod:`assistant.rate_words`), and a time limit ("within 2 days", "3 天内训练完") is a
deadline, so neither is read here.
"""

from __future__ import annotations

import re

from assistant.reading import NUM, compiled, parse_number
from tools.prices import HOURS_PER_MONTH

_HOURS = {"hour": 1, "hr": 1, "day": 24, "week": 168}
_HOURS |= {"小时": 1, "天": 24, "日": 24, "周": 168, "星期": 168, "礼拜": 168}
_UNIT_EN = r"(hour|hr|day|week)s?\b"
_UNIT_ZH = r"(小时|天|日|周(?!末)|星期|礼拜)"
_EVENT_EN = (
    r"(?:hackathon|pilot|poc|proof\s+of\s+concept|trial|workshop|event|demo|test(?:ing)?|experiment|sprint|"
    r"campaign|conference|course|class|bootcamp|competition|launch|promotion|run)"
)
_EVENT_ZH = r"(?:活动|测试|试用|试点|POC|poc|演示|比赛|黑客松|培训|会议|项目|实验|课程|评测|压测|验证)"
_NOT_RATE = r"(?!\s*(?:a|an|per|each|every|/)\s*(?:day|week|month)\b)(?!\s*(?:a|per)\s+(?:day|week)\b)"
_PER_DAY_BEFORE = r"(?:每|一)\s*(?:天|日|周|晚|个?工作日|个?月)\s*(?:只|就|仅|大概|大约)?\s*$"
_PATTERNS = (
    # "for 2 days", "for a week", "over 48 hours" (not "for 8 hours a day")
    rf"\b(?:for|over)\s+(?:(?:a|an|one)\s+|{NUM}[\s\-]*){_UNIT_EN}{_NOT_RATE}(?!\s+(?:of\s+)?(?:training|fine))",
    # "3 days of an 8xA100 box", "2 weeks of Qwen": a count of days or weeks is a rental ("a day of serving" is a rate)
    rf"(?<![\w.]){NUM}[\s\-]*(day|week)s\s+of\s+(?!training|fine|pre)",
    # "a 3-day workshop", "a one-week pilot", "two week POC"
    rf"(?:\b(?:a|an|one)[\s\-]+|{NUM}[\s\-]*){_UNIT_EN}\s+(?:long\s+)?{_EVENT_EN}\b",
    # "hackathon, 2 days", "pilot of two weeks", "the trial lasts 3 days"
    rf"\b{_EVENT_EN}\b[\s,:(\-–]*(?:of|lasting|lasts|for|that\s+lasts|over)?\s*(?:(?:a|an|one)\s+|{NUM}\s*){_UNIT_EN}"
    rf"{_NOT_RATE}",
    # "只需要用 3 天", "租两周", "就跑一个星期" (not "3 天内", "每天 8 小时")
    rf"(?<!每)(?:只|就|仅)?(?:需要|要)?(?:用|租|开|跑|部署|上线)\s*{NUM}\s*(?:个)?\s*{_UNIT_ZH}(?![内之以完])",
    rf"为期\s*{NUM}\s*(?:个)?\s*{_UNIT_ZH}",
    r"(?<!每)(?:用|租|开|跑|部署)\s*(半)个月",  # "跑半个月": half of the planner's 730 h month
    rf"{NUM}\s*(?:个)?\s*{_UNIT_ZH}\s*(?:的|左右的)\s*{_EVENT_ZH}",
)


# "a weekend test", "just one weekend", "周末两天想测一下": Saturday and Sunday, rented once (not "on weekends",
# "每个周末", which are days of the week it runs: usage hours); a long weekend adds the Friday or Monday.
_WEEKEND = (
    r"\b(?:a|one|the|this|next|that)\s+(long\s+)?weekend\b(?!s)(?!\s+(?:days?|hours?)\b)",
    rf"\b(long\s+)?weekend[\s\-]+{_EVENT_EN}\b",
    r"(?<!每)(?<!每个)(?<!只在)(?<!只有)(?:这个|下个|一个)?(长)?周末\s*(?:两天|2\s*天|三天|3\s*天)?\s*(?:想|要|打算|准备|就|先)?\s*"
    r"(?:测|试|跑|用|租|做|搞|玩|开|部署|上线|黑客松|活动|演示)",
    r"(?:一个|这个|下个|租|用|跑|开)\s*(?:一个|这个|下个)?\s*(长)?周末",  # "那一个周末呢", "租一个周末"
)
_WEEKEND_OFF = r"\b(?:on|every|most|only|weekdays\s+and)\s+(?:the\s+)?weekends?\b|每个?周末|周末才|只在周末|周末不"


def find_rental_hours(text: str) -> float | None:
    """Return the hours a deployment is rented in all, when the question says it is only for a while."""
    if not re.search(_WEEKEND_OFF, text, re.IGNORECASE):
        for pattern in _WEEKEND:
            if m := compiled(pattern).search(text):
                return 72.0 if m.group(1) or re.search(r"三天|3\s*天", m.group(0)) else 48.0
    for pattern in _PATTERNS:
        m = compiled(pattern).search(text)
        if m is None or re.search(_PER_DAY_BEFORE, text[max(0, m.start() - 8) : m.start()]):
            continue  # "每天只开 8 小时": hours a day it runs (usage hours), not a rental
        if m.group(0).endswith("半个月"):
            return HOURS_PER_MONTH / 2
        number, unit = (m.group(1), m.group(2)) if m.lastindex and m.lastindex >= 2 else (None, m.group(1))
        count = parse_number(number) if number else 1.0
        hours = count * _HOURS[unit.lower()]
        if 0 < hours <= 8760:
            return hours
    return None
