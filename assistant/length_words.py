"""Per-request lengths the first reading (:func:`assistant.phrases.stated_lengths`) leaves out or misreads.

* retrieved context stated as a count of chunks ("5 chunks of 512 tokens", "检索 5 段，每段 512 token"): the
  prompt carries all of them;
* an output length given without its unit when the question speaks in tokens ("输入 8k token，输出 1k");
* a length the text is cut down to ("summarise them to 200 words", "压缩到 300 字"): the answer, not the input.
"""

from __future__ import annotations

import re

from assistant.phrases import StatedLength, number_value
from assistant.reading import compiled
from tools.lengths import text_tokens

_N = r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*([kK千])?"
_CHUNKS = r"(?:retrieved\s+|rag\s+)?(?:chunks?|passages?|snippets?|documents?|docs|segments?)"
_CHUNKS_ZH = r"(?:个|段|篇|条)?\s*(?:片段|段落|文档片段|文本块|chunk)?"
_CHUNK_RES = (
    # "5 chunks of 512 tokens", "top-5 chunks of ~512 tokens", "8 passages x 300 tokens"
    rf"(?:top[\s\-]?)?{_N}\s*{_CHUNKS}\s*(?:of|x|×|\*|at|,)?\s*(?:about\s+|around\s+|~)?{_N}[\s\-]*tokens?",
    # "5 × 512-token chunks"
    rf"{_N}\s*(?:x|×|\*)\s*{_N}[\s\-]*tokens?\s*{_CHUNKS}",
    # "检索 5 段，每段 512 token", "召回 5 个 512 token 的片段"
    rf"{_N}\s*{_CHUNKS_ZH}\s*[，,]?\s*每(?:段|个|篇|条|块)\s*(?:约|大约|大概)?\s*{_N}\s*(?:个)?\s*tokens?",
    rf"{_N}\s*个\s*{_N}\s*(?:个)?\s*tokens?\s*的\s*(?:片段|段落|文本块|chunk|文档)",
)
_OUT_BARE = (  # a full stop after the figure ends the sentence ("answers ~300."), a decimal point does not
    r"(?:输出|回答|回复|生成|output|outputs|completions?|answers?|replies)\s*(?:约|大约|大概|about|around|~|≈|of)?\s*"
    rf"{_N}(?![\w%]|\.\d)(?!\s*(?:字|词|个|万|亿|千|百万|tokens?|words?|chars?|characters?|pages?|页))"
)
_CUT_TO = (
    r"(?:summari[sz]\w*|condens\w*|shorten\w*|boil\w*|distil\w*)[^,，。;；\d]{0,30}?(?:in)?to\s*(?:about\s+|~)?$|"
    r"(?:压缩|精简|缩写|总结|概括)(?:成|到|为)\s*(?:约|大约)?\s*$"
)


def more_lengths(text: str, found: list[StatedLength]) -> list[StatedLength]:
    """Return ``found`` with retrieved chunks and unit-less outputs added, and cut-to lengths made outputs."""
    found = [_as_output(s) if s.role == "prompt" and _cut_to(text, s) else s for s in found]
    for pattern in _CHUNK_RES:
        for m in compiled(pattern).finditer(text):
            if _overlaps(m.span(), found):
                continue
            chunks, tokens = _value(m, 1), _value(m, 3)
            if 1 <= chunks <= 200 and tokens > 0:
                found.append(StatedLength(role="prompt", count=text_tokens(chunks * tokens, "tokens"), span=m.span()))
    if re.search(r"tokens?", text, re.IGNORECASE) and not any(s.role == "output" for s in found):
        m = compiled(_OUT_BARE).search(text)
        if m and not _overlaps(m.span(), found) and (value := _value(m, 1)) > 0:
            found.append(StatedLength(role="output", count=text_tokens(value, "tokens"), span=m.span()))
    return found


def _value(m: re.Match[str], group: int) -> float:
    return number_value(m, group)  # "1k": the scale word counts


def _overlaps(span: tuple[int, int], found: list[StatedLength]) -> bool:
    return any(s.span[0] < span[1] and span[0] < s.span[1] for s in found)


def _cut_to(text: str, length: StatedLength) -> bool:
    """Whether the text is cut down to this length ("summarise them to 200 words")."""
    return bool(re.search(_CUT_TO, text[max(0, length.span[0] - 40) : length.span[0]], re.IGNORECASE))


def _as_output(length: StatedLength) -> StatedLength:
    return length.model_copy(update={"role": "output"})
