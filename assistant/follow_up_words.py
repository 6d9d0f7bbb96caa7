"""How a turn relates to the conversation: a change of the previous question, or a yes to the defaults.

"那换成 L20 呢", "what about 64 users?", "ok, same thing but with Qwen2.5-32B": the workload of the conversation
with one thing changed; "ok", "默认就行": go on with the defaults offered.
"""

from __future__ import annotations

import re

from assistant.phrases import spell_numbers
from assistant.reading import NUM, SUFFIX, parse_number
from assistant.workload_numbers import spoken_chinese_amounts


def is_follow_up(text: str) -> bool:
    """Return whether a turn is phrased as a change of the previous question ("那换成 L20 呢")."""
    return bool(
        re.match(
            r"\s*(?:那|那么|如果|换成|改成|改用|换用|要是|假如|再|还有|and\b|what\s+about|how\s+about|what\s+if|"
            r"and\s+if|instead|then|with\b|using\b|on\b|switch|change|make\s+it|try)",
            text,
            re.IGNORECASE,
        )
        or re.search(r"呢\s*[?？]?\s*$|instead\s*[?.]?\s*$", text, re.IGNORECASE)
        # "how does that compare with two A10s?", "跟 2 张 H20 比呢": the same workload on other hardware.
        or re.search(r"how\s+(?:does|do|would)\s+(?:that|it|this)\s+(?:compare|stack\s+up|measure\s+up)|"
                     r"compared?\s+(?:with|to)\s+(?!each)", text, re.I)
        # "how does the T4 compare?", "can we use A10s only?", "只用 A10 行不行": other hardware for the same load
        or re.search(_OTHER_HARDWARE_RE, text, re.IGNORECASE)
        # "how does L20 stack up against A10 for that?": "for that" points back at the workload
        or re.search(r"\bfor\s+(?:that|this|it|the\s+same(?:\s+\w+)?)\s*[?？.!]*\s*$|同样的负载|这个负载", text, re.I)
        or re.search(_POINTS_BACK_RE, text, re.IGNORECASE)
        # "Confirm that, and also: what if we needed 32k context?": the change comes after a first clause.
        or _LATER_CHANGE_RE.search(text)
        # "what would that be per million tokens?", "how many could it hold at 16k?": a short question about the
        # deployment just answered, pointed at with a pronoun
        or (len(text) <= _SHORT_TURN and bool(_ABOUT_THAT_RE.search(text)))
    )


_OTHER_HARDWARE_RE = (
    r"^\s*how\s+(?:does|do|would)\s+(?:the\s+|an?\s+)?[\w\-]+(?:\s+\w+)?\s+(?:compare|stack\s+up|do)\s*[?？.!]*\s*$|"
    r"^\s*(?:can|could|should)\s+(?:we|i)\s+(?:just\s+)?(?:use|go\s+with|stick\s+(?:to|with))\b|"
    r"^\s*(?:only|just)\s+[\w\-]+s?\b|\bonly\s*(?:please|pls)?\s*[?？.!]*\s*$|"
    r"^\s*(?:只用|只要|就用|能不能用|可不可以用|可以用|能用)"
)
_SHORT_TURN = 80
_ABOUT_THAT_RE = re.compile(
    # "is that overkill?", "wouldn't it be too slow?", "那是不是大材小用": a verdict on what was just answered
    r"\b(?:is|isn'?t|would|wouldn'?t|will|won'?t)\s+(?:that|it|this)\s+(?:\w+\s+){0,2}?"
    r"(?:overkill|enough|too\s+\w+|excessive|a\s+waste|wasteful|over[\s\-]?(?:sized|provisioned|powered))|"
    r"^\s*(?:那|这)(?:个|样)?(?:是不是|会不会|算不算)?\s*(?:大材小用|太浪费|浪费|过剩|够用?吗|太贵)|"
    r"\b(?:what|how\s+much|how\s+many(?:\s+\w+)?|how\s+fast)\s+(?:would|will|does|do|could|can|is)\s+(?:that|it|this)\s+"
    r"(?:be|cost|come\s+to|run\s+(?:us|me)|hold|fit|serve|take|handle|support|do)\b|"
    r"(?:那|这)(?:样)?(?:的话)?\s*(?:每|一)(?:个)?(?:月|小时|年|百万)",
    re.IGNORECASE,
)


_LATER_CHANGE_RE = re.compile(
    r"[,，:：;；.。!！?？]\s*(?:and\s+)?(?:also\s+)?(?:what\s+if|what\s+about|how\s+about)\b|"
    r"[,，:：;；。！？]\s*(?:另外|顺便问下?|还有)?\s*(?:那|如果|要是|换成|改成)",
    re.IGNORECASE,
)
# "ok, same thing but with Qwen2.5-32B", "right, and with 4 GPUs?", "Qwen2.5-14B instead of the 7B",
# "其他不变，换成 L20": the workload of the conversation, one thing changed.
_POINTS_BACK_RE = (
    r"\bsame\s+(?:thing|setup|workload|question|scenario|numbers|deal|again|as\s+(?:before|above))\b|"
    r"\binstead\s+of\b|\b(?:swap|replace)\w*\b.{0,40}?\b(?:with|for|to|in)\b|"
    r"^\s*(?:ok(?:ay)?|alright|right|cool|great|thanks?|hmm+|so)[\s,.!]+"
    r"(?:and|what\s+about|how\s+about|what\s+if|now|but|then|instead|same|switch|change|make\s+it|try)\b|"
    r"其他(?:的)?(?:都)?不变|其余不变|别的不变|同样的(?:条件|配置|需求)"
)


def accepts_defaults(text: str) -> bool:
    """Return whether a turn only accepts the defaults offered ("ok", "默认就行", "go ahead")."""
    return bool(
        re.fullmatch(
            r"\s*(?:好的?|好吧|行|可以|没问题|默认(?:就行|即可|吧)?|按默认(?:的)?(?:来|吧)?|随便|都行|你定|就这样|"
            r"ok(?:ay)?|sure|yes|yep|go\s+ahead|fine|defaults?(?:\s+(?:are|is)\s+fine)?|use\s+the\s+defaults?|"
            r"whatever|you\s+decide|sounds\s+good|(?:just\s+)?(?:assume|use)\s+(?:it|that|those|them|your\s+defaults?)|"
            r"just\s+assume|go\s+with\s+(?:it|that|the\s+defaults?)|按你说的(?:来|办)?|就这么办)[\s!.。！,，]*",
            text,
            re.IGNORECASE,
        )
    )


# "100 人呢？", "what about 100?", "and 200 users", "那两百个人呢": nothing but a count, after a workload.
_BARE_COUNT_RE = re.compile(
    r"\s*(?:那么?|那如果|如果是?|要是|换成|改成|变成|加到|增加到|(?:and|so)\s+)?"
    r"(?:(?:what|how)\s+about|what\s+if(?:\s+(?:it(?:'s|\s+is|\s+were)|we\s+(?:have|had|get)))?|with|for)?\s*"
    + NUM
    + SUFFIX
    + r"\s*(?:个|位|名)?\s*(人|用户|users?|people|persons?|folks|concurrent(?:\s+users?)?|并发)?\s*"
    r"(?:of\s+them\s*)?(?:呢|的话呢?|的话|instead|then)?\s*[?？.。!！]*\s*",
    re.IGNORECASE,
)


def bare_count(text: str) -> tuple[int, bool] | None:
    """Return the count of a turn that says nothing but a count ("100 人呢？", "what about 100?").

    With it, whether the turn names people: a bare number only makes sense as the rate the conversation has.
    """
    m = _BARE_COUNT_RE.fullmatch(spell_numbers(spoken_chinese_amounts(text)))
    if m is None:
        return None
    people = m.group(3) is not None
    if m.group(2) and not people:
        return None  # "32k 呢" is a length, not a head-count
    value = parse_number(m.group(1), m.group(2))
    if value < 1 or value != int(value):
        return None
    return int(value), people
