"""Reading numbers and claiming text: the shared scanner of the rule-based understanding.

Numbers may be written "32k", "5 万", "两张", "1B", "10亿"; every pattern uses bounded repeats so a reading
stays linear in the question's length. :class:`Scan` remembers the characters an extractor used, so
"50k" in a budget is not read again as a context length.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

# ------------------------------------------------------------------------------------------ numbers

_CN_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000}
MULTIPLIER = {
    "k": 1e3,
    "千": 1e3,
    "w": 1e4,
    "万": 1e4,
    "m": 1e6,
    "百万": 1e6,
    "千万": 1e7,
    "亿": 1e8,
    "b": 1e9,
    "t": 1e12,
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
}
# Digits glued to a precision name belong to it: "INT4 并发" is not 4 concurrent requests, "fp16" not 16.
NUM = (
    r"(?<!int)(?<!fp)(?<!bf)(?<!nf)(?<!\bw)(?<!\da)(?<![\d.])"
    r"(?<![零〇一二两三四五六七八九十百千])"
    # Bounded repeats keep every pattern linear in the question's length (a 4,000-character run of digits).
    r"(\d{1,3}(?:,\d{3}){1,5}(?:\.\d{1,6})?|\d{1,15}(?:\.\d{1,6})?|[零〇一二两三四五六七八九十百千]{1,8})"
)
SUFFIX = r"(thousand|million|billion|trillion|百万|千万|[kK千wW万mM亿bBtT])?"


def chinese_int(text: str) -> int:
    """Read a Chinese numeral below 10,000: "五" 5, "二十" 20, "十二" 12, "一百二十八" 128."""
    total, digit = 0, 0
    for ch in text:
        if ch in _CN_DIGIT:
            digit = _CN_DIGIT[ch]
        elif ch in _CN_UNIT:
            total += (digit or 1) * _CN_UNIT[ch]
            digit = 0
    return total + digit


def parse_number(text: str, suffix: str | None = None) -> float:
    """Turn "5", "3.5", "50,000", "两", "二十" and an optional multiplier ("万", "k", "B") into a float."""
    text = text.replace(",", "")
    value = float(text) if re.fullmatch(r"\d+(?:\.\d+)?", text) else float(chinese_int(text))
    if suffix:
        value *= MULTIPLIER[suffix.lower()]
    return value


def as_int(value: float) -> int:
    return int(round(value))


# ------------------------------------------------------------------------------------------ text scanning


@dataclass
class Scan:
    """The question being read, and the characters extractors have already used (a mask: O(1) per check)."""

    text: str
    mask: bytearray = field(default_factory=bytearray)

    def __post_init__(self) -> None:
        self.mask = bytearray(len(self.text))

    def is_used(self, start: int, end: int) -> bool:
        """Whether any character of ``text[start:end]`` was claimed (an empty span: its position)."""
        return 1 in self.mask[start : max(end, start + 1)]

    def claim(self, span: tuple[int, int]) -> None:
        """Mark ``text[start:end]`` as used."""
        start, end = span
        self.mask[start:end] = b"\x01" * (end - start)

    def find(self, pattern: str | re.Pattern[str]) -> re.Match[str] | None:
        """First match of ``pattern`` that does not overlap text already used; claims it."""
        for m in matches(pattern, self.text):
            if not self.is_used(*m.span()):
                self.claim(m.span())
                return m
        return None

    def find_all(self, pattern: str | re.Pattern[str]) -> list[re.Match[str]]:
        """Every match of ``pattern`` on unused text, in one pass; claims them."""
        out = []
        for m in matches(pattern, self.text):
            if not self.is_used(*m.span()):
                self.claim(m.span())
                out.append(m)
        return out

    def first(self, *patterns: str) -> re.Match[str] | None:
        """First pattern (in order of preference) that matches unused text."""
        for pattern in patterns:
            if m := self.find(pattern):
                return m
        return None


@lru_cache(maxsize=4096)
def compiled(source: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    """Compile ``source`` once (case-insensitive unless told otherwise).

    The readers hold more patterns than the ``re`` module's own cache (512), so ``re.search(str, ...)``
    recompiled them in turn: about a tenth of an answer's time went to compiling the same patterns again.
    """
    return re.compile(source, flags)


def matches(pattern: str | re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """Case-insensitive matches of a pattern string, or of a pattern compiled with its own flags."""
    if isinstance(pattern, re.Pattern):
        return pattern.finditer(text)
    return compiled(pattern).finditer(text)


def normalise(text: str) -> str:
    # Full-width digits, letters and punctuation occur in Chinese input ("３２Ｋ", "，", "？"). A Chinese comma
    # separates clauses, never thousands: "输出 500，100 并发" is 500 and 100, so it keeps a space after it.
    text = text.replace("\uff0c", ", ")
    text = text.translate({cp: cp - 0xFEE0 for cp in range(0xFF01, 0xFF5F)})
    return text.replace("\u3000", " ")


# Quantities as people say them: "a couple of hundred users", "half a trillion tokens", "a million docs",
# "32 thousand tokens" (read "32k", so a context stays the models' 32,768).
_SPOKEN_AMOUNTS = (
    # vague amounts at their usual reading, shown back in the "understood" line: a handful 5, a few dozen 36
    (r"\ba\s+couple\s+(?:of\s+)?dozen\b", "24"),
    (r"\ba\s+few\s+dozen\b", "36"),
    (r"\ba\s+few\s+hundred\b", "300"),
    (r"\ba\s+few\s+thousand\b", "3000"),
    # ... unless the figure follows ("a handful of users, say 4"): the figure said is the one
    (r"\ba\s+handful\s+of\b(?![^.?!,]{0,20},?\s*(?:say|maybe|perhaps|like|about|around|roughly|~)\s*\d)", "5"),
    (r"\ba\s+couple\s+(?:of\s+)?hundred\b", "200"),
    (r"\ba\s+couple\s+(?:of\s+)?thousand\b", "2000"),
    (r"\ba\s+couple\s+of\b", "2"),
    (r"\ba\s+pair\s+of\b", "2"),  # "a pair of A10s"
    (r"\bhalf\s+a\s+dozen\b", "6"),
    (r"\bhalf\s+an?\s+(million|billion|trillion)\b", r"0.5 \1"),
    (r"\b(?:a|one)\s+(million|billion|trillion)\b", r"1 \1"),
    (r"(?<![\w.,])(\d{1,4}(?:\.\d{1,3})?)\s+thousand\b", r"\1k"),
)


_AMOUNT = r"(\d(?:[\d,]*\d)?(?:\.\d+)?\s*[kK]?)"  # a list comma after it ("1500, output") is no digit
# Workload words as English speakers abbreviate them, respelled into the words the readers know: "a dozen
# folks" (users), "1k in / 256 out" (input and output tokens), "500 completion" (output tokens), "1500 users a
# day" (daily users, so a peak share applies instead of 1,500 at once).
_COLLOQUIAL = (
    (r"\b(?:folks|peeps)\b", "users"),
    (rf"{_AMOUNT}\s*(?:tokens?\s+)?in\s*(?:/|,|and|\+)\s*{_AMOUNT}\s*(?:tokens?\s+)?out\b",
     r"\1 input tokens, \2 output tokens"),  # fmt: skip
    (rf"{_AMOUNT}\s+(?:tokens?\s+(?:of\s+)?)?completions?(?!\s*tokens?)\b", r"\1 output tokens"),
    # not "input 2k output 500": there the 2k is the input's, named before it (assistant/bare_lengths.py)
    (rf"(?<!input )(?<!inputs )(?<!prompt )(?<!prompts )(?<!output ){_AMOUNT}\s+(prompt|input|output)"
     r"(?!\s*(?:tokens?|words?|char\w*|pages?|lengths?)\b)\b", r"\1 \2 tokens"),
    (rf"{_AMOUNT}\s+(?:users|people|visitors|customers)\s+(?:a|per|each|every|/)\s*day\b", r"\1 daily users"),
)


def spoken_amounts(text: str) -> str:
    """Replace spoken quantities by digits ("a couple of hundred" 200, "half a trillion" 0.5 trillion).

    Then colloquial workload words by the plain ones ("a dozen folks" is 12 users, "1k in / 256 out").
    """
    for pattern, repl in (*_SPOKEN_AMOUNTS, *_COLLOQUIAL):
        text = compiled(pattern).sub(repl, text)
    return text


OF = r"\s*(?:of|is|=|:|为|是|：|达到|到|约|大约|around|about|~|≈)?\s*"
