"""Per-request lengths written without a unit: "2k prompts and 500 output tokens", "input 2k output 500".

A number written right after "input"/"output"/"输入"/"输出" is that request part's length in tokens; one glued
to "prompts"/"inputs" with a thousands suffix is the prompt's length when an output length is said beside it
(alone, "8k prompts" stays the context size, as "8k context" does). A count followed by a rate ("2k prompts
a day", "500 outputs per hour") is a load, not a length.
"""

from __future__ import annotations

import re

from assistant.phrases import StatedLength, number_value
from assistant.reading import compiled
from tools.lengths import text_tokens

# No thousands separators: a normalised "输出 500，100 并发" must not read as 500,100.
_NUMBER = r"(?<![A-Za-z0-9_.,])(\d{1,7}(?:\.\d{1,3})?)\s*([kK千])?"
_RATE_AFTER = r"\s*(?:(?:per|a|an|every|each)\s+(?:second|sec|minute|min|hour|day|week|month)\b|/\s*[smhd]\b|每)"
# "2k prompts", "4K-token inputs" (no "tokens" after: the unit-ful form is phrases.stated_lengths')
_GLUED = rf"{_NUMBER}[\s\-]*(prompts?|inputs?|outputs?|answers?|responses?)\b"
# "input 2k", "output: 500", "输入 2k，输出 500", "prompt ~1500"
_AFTER_ROLE = (
    rf"(?<![A-Za-z])(inputs?|prompts?|outputs?|输入|输出|回答)\s*(?:length|长度|len)?\s*(?:[:：=]|is|of|about|约|大约|~)?\s*"
    rf"{_NUMBER}(?!\d|,\d|\s*(?:[%xX×]|万|亿|百万|tokens?|个|字|词|words?|chars?|characters?|pages?|页|张|条|次|人|users?|gb|gib))"
)
_OUTPUT_ROLES = ("output", "outputs", "answer", "answers", "response", "responses", "输出", "回答")
# "2k in 500 out", "2k in / 500 out": the pair, each bare; never one "in" alone ("2k in Beijing")
_SECOND = _NUMBER.replace("(?<![A-Za-z0-9_.,])", "(?<![A-Za-z0-9_.])")  # "2k in, 500 out": a comma may precede
_IN_OUT = rf"{_NUMBER}\s*in\s*(?:,|/|and|&|\+)?\s*{_SECOND}\s*out\b"


def bare_lengths(text: str, found: list[StatedLength]) -> list[StatedLength]:
    """Return unit-less prompt/output lengths not already among ``found`` (spans overlapping one are skipped)."""
    out: list[StatedLength] = []
    for m in compiled(_IN_OUT).finditer(text):
        if any(s.span[0] < m.end() and m.start() < s.span[1] for s in found):
            continue
        prompt, output = number_value(m, 1), number_value(m, 3)
        if 16 <= prompt <= 1_000_000 and 1 <= output <= 1_000_000:
            out += [StatedLength(role="prompt", count=text_tokens(prompt, "tokens"), span=(m.start(), m.start(3))),
                    StatedLength(role="output", count=text_tokens(output, "tokens"), span=(m.start(3), m.end()))]
    for pattern, role_group, number_group in ((_AFTER_ROLE, 1, 2), (_GLUED, 3, 1)):
        for m in compiled(pattern).finditer(text):
            suffix = (m.group(number_group + 1) or "").lower()
            if pattern == _GLUED and suffix not in ("k", "千"):
                continue  # "50 prompts" counts prompts; "2k prompts" is each prompt's length
            if pattern == _GLUED and not any(s.role == "output" for s in [*found, *out]):
                continue  # alone, "8k prompts" is the usual context size (8,192), as "8k context" is
            if re.match(_RATE_AFTER, text[m.end() :], re.IGNORECASE):
                continue
            if any(s.span[0] < m.end() and m.start() < s.span[1] for s in [*found, *out]):
                continue
            tokens = number_value(m, number_group)
            if not 16 <= tokens <= 1_000_000:
                continue  # "input of 3 documents": a count of things, not a length
            role = "output" if m.group(role_group).lower() in _OUTPUT_ROLES else "prompt"
            out.append(StatedLength(role=role, count=text_tokens(tokens, "tokens"), span=m.span()))
    return out
