"""Speed targets as people state them: per-user tokens/s, time to first token, total tokens/s.

"each user needs at least 30 tokens/s", "每人至少 15 token/s", "TPOT 40ms 以内" (a per-user rate of 25/s),
"首 token 延迟要在 1 秒内", "TTFT < 1s", "总吞吐要达到 1000 token/s", "整体每秒产出 500 个 token". A rate is
per user unless the words around it say total (total, overall, throughput, 总, 整体, 吞吐 ...): a user feels
the speed of their own stream. A rate in Chinese characters or English words per second ("20 字每秒") is
turned into tokens with the published ratio of :mod:`tools.lengths`, said as an assumption.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from assistant.reading import NUM, SUFFIX, compiled, parse_number
from tools.lengths import TextUnit, text_tokens


class SpeedTargets(BaseModel):
    """The speed the user asks for; ``None`` = not said."""

    model_config = ConfigDict(extra="forbid")

    per_stream: float | None = Field(default=None, description="each user's output tokens/s, at least")
    ttft_s: float | None = Field(default=None, description="seconds to the first token, at most")
    total: float | None = Field(default=None, description="all users' output tokens/s together, at least")
    unit: TextUnit = Field(default="tokens", description="the unit the rate was given in (字/words per second)")
    spans: list[tuple[int, int]] = Field(default_factory=list, exclude=True)

    def any(self) -> bool:
        """Whether any target was stated."""
        return any(v is not None for v in (self.per_stream, self.ttft_s, self.total))


_UNIT = r"(?:个\s*)?(tokens?|toks?|词元|(?:汉)?字|words?)"
_PER_SECOND = r"\s*(?:/\s*(?:s|sec|second|秒)(?![a-z])|per\s*(?:sec(?:ond)?|s)\b|每秒(?:钟)?|一秒)"
_RATE = (
    rf"{NUM}\s*{SUFFIX}\s*\+?\s*{_UNIT}{_PER_SECOND}",  # "30 tokens/s", "50+ tok/s", "20 字每秒"
    rf"{NUM}\s*{SUFFIX}\s*\+?\s*(tps|t/s)(?![a-z])",
    # "每秒产出 500 个 token", "每秒至少输出 40 个 token", "一秒能出 20 个字"
    rf"(?:每秒(?:钟)?|一秒)[^\d，,。？?\n]{{0,10}}?{NUM}\s*{SUFFIX}\s*{_UNIT}",
)
_TOTAL_WORDS = (
    r"\btotal\b|overall|aggregate|combined|all\s+users|throughput|batch\s+job|"
    r"总|整体|合计|一共|全部|吞吐|加起来|批量|离线"
)
_PER_USER_WORDS = (
    r"\bper\s+(?:user|stream|request|session|person|client|chat)|\beach\b|\bevery\b|每(?:个|一)?\s*(?:人|用户|路|请求|会话|并发)|"
    r"单(?:路|个用户|用户|人)|出字速度|体验"
)
_TIME = r"(ms|毫秒|s(?![a-z])|secs?\b|seconds?\b|秒)"
_TPOT = (
    r"(?:tpot|itl\b|inter[-\s]?token\s+latency|time\s+per\s+output\s+token|per[-\s]token\s+latency|"
    r"latency\s+(?:per|of\s+each|for\s+each)\s+(?:output\s+|generated\s+)?token|每\s*(?:个)?\s*token\s*(?:的)?\s*延迟|"
    r"token\s*(?:之间的?)?\s*间隔|出字间隔|每个\s*(?:输出\s*)?token\s*(?:的)?\s*(?:间隔|延迟|时间)|[（(]\s*tpot\s*[)）])"
)
_FIRST = (
    r"(?:ttft|time\s+to\s+(?:the\s+)?first\s+token|first[-\s](?:(?:response|output|generated)\s+)?token(?:\s+latency)?|"
    r"首\s*(?:个)?\s*(?:token|字|词元|包|响应)(?:\s*(?:延迟|时延|时间|响应|返回|耗时))?|第一个\s*(?:token|字))"
)
_START = r"(?:start|begin|appear|show\s+up|come\s+back|arrive|stream)(?:s|ing)?"
_TTFT = (
    rf"{_FIRST}[^\d\n]{{0,40}}?{NUM}\s*{_TIME}",
    rf"{NUM}\s*{_TIME}\s*(?:内|以内|之内)\s*(?:要|必须|得)?\s*(?:出|返回|吐出|给出|看到)\s*{_FIRST}",
    # "every reply should start within 1 s", "responses must begin streaming in under 800 ms"
    rf"(?:repl(?:y|ies)|responses?|answers?|outputs?|streaming)\s+(?:should|must|needs?\s+to|has\s+to|have\s+to|to)?\s*"
    rf"{_START}(?:\s+streaming)?\s+(?:with)?in\s+(?:under\s+|less\s+than\s+|about\s+)?{NUM}\s*{_TIME}",
    # "1 秒内开始输出", "回复要在 800 毫秒内开始返回"
    rf"{NUM}\s*{_TIME}\s*(?:内|以内|之内)\s*(?:就)?\s*(?:要|必须|得)?\s*开始\s*(?:输出|返回|响应|回答|出字|回复)",
)
_UNITS: dict[str, TextUnit] = {"字": "zh_characters", "汉字": "zh_characters", "word": "en_words", "words": "en_words"}


def read_speed_targets(text: str) -> SpeedTargets | None:
    """Return the speed targets ``text`` states, or None."""
    found = SpeedTargets()
    for pattern in _TTFT:
        if m := compiled(pattern).search(text):
            found.ttft_s = _seconds(parse_number(m.group(1)), m.group(2))
            found.spans.append(m.span())
            break
    if m := compiled(rf"{_TPOT}[^\d\n]{{0,24}}?{NUM}\s*{_TIME}").search(text):
        seconds = _seconds(parse_number(m.group(1)), m.group(2))
        if seconds > 0:
            found.per_stream = round(1 / seconds, 1)
            found.spans.append(m.span())
    for pattern in _RATE:
        for m in compiled(pattern).finditer(text):
            if any(a < m.end() and m.start() < b for a, b in found.spans):
                continue
            _rate(found, text, m)
    return found if found.any() else None


def _rate(found: SpeedTargets, text: str, m: re.Match[str]) -> None:
    """Record one rate as per user or in total, from the words of its clause."""
    value = parse_number(m.group(1), m.group(2))
    word = (m.group(3) or "tokens").lower()
    unit = _UNITS.get(word, "tokens")
    tokens = float(text_tokens(value, unit).tokens) if unit != "tokens" else value
    if tokens <= 0:
        return
    start = max(text.rfind(sep, 0, m.start()) for sep in ("。", "；", ";", "?", "？", "\n"))
    before, after = text[max(start + 1, m.start() - 60) : m.start()], text[m.end() : m.end() + 16]
    total = compiled(_TOTAL_WORDS).search(before + " " + after)
    per_user = compiled(_PER_USER_WORDS).search(before + " " + after)
    if total and not per_user:
        found.total = found.total or tokens
    else:
        found.per_stream = found.per_stream or tokens
    found.unit = unit if unit != "tokens" else found.unit
    found.spans.append(m.span())


def _seconds(value: float, unit: str) -> float:
    return value / 1000 if unit.lower() in ("ms", "毫秒") else value
