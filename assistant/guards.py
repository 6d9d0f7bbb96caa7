"""Truthfulness guards for LLM answers: grounded numbers, no leaked secrets or system prompt.

Pure text functions (no LangChain), so both engines and the tests can use them directly.

Number grounding
----------------
Every number in an answer must appear in the evidence: a tool result, a cited passage, the user's
question or the earlier conversation. A displayed number matches an evidence value when they agree at the
displayed precision ("12.3" matches 12.34; "72" matches 72.4; "12,300" matches 12,345 because trailing
zeros of a number with at least two significant digits and four digits are read as rounding).
Unit conversions accepted, and no others: ``%`` (12% matches 12 or 0.12), ``万``/``亿`` (x1e4 / x1e8),
``K``/``k`` (x1000 or x1024), ``M`` (x1e6); a ``B`` after a number is a parameter count in billions and
is compared as written ("72B" matches 72). GiB<->GB and currency conversions are not accepted: the
prompt tells the model to keep the tools' units.
Not numbers: citation markers ``[1]``, list markers at line starts, and digits inside names that start
with a letter (``gn7i``, ``A100-80GB``, ``Qwen2.5-72B``, ``ecs.gn7i-c8g1.2xlarge``). Dates (2025-06-01)
must appear literally. Chinese numerals (三, 两) are not checked.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from assistant.language import detect_language
from assistant.phrases import spell_numbers
from assistant.reading import chinese_int

__all__ = [
    "Evidence",
    "NumberMention",
    "StreamRedactor",
    "detect_language",
    "extract_numbers",
    "redact_leaks",
    "redact_secrets",
    "remove_echoed_lines",
    "remove_numbers",
    "ungrounded_numbers",
]

REDACTED = "[redacted]"
REMOVED_NUMBER = "—"

_CITATION = re.compile(r"\[\d+(?:\s*[,，、]\s*\d+)*\]")
_LIST_MARKER = re.compile(r"(?m)^([ \t>]*(?:#+[ \t]*)?)\d+[.)、][ \t]")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_.\-/]*\d[A-Za-z0-9_.\-/]*")
_DATE = re.compile(r"(?<!\d)\d{4}-\d{2}(?:-\d{2})?(?!\d)")
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?"
    r"(?:[ \t]?(?P<unit>万|亿|%|％|[kKmMbB](?![A-Za-z])))?"
)
_ANY_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?(?:[ \t]?(?:万|亿|[kKmM](?![A-Za-z])))?")
_WORD_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_WORD_SCALE = re.compile(r"(\d+(?:,\d{3})*(?:\.\d+)?)\s*(thousand|million|billion|trillion)\b", re.IGNORECASE)
_CHINESE_NUMBER = re.compile(r"([零〇一二两三四五六七八九十百千]{1,8})\s*(万|亿)?")
_CHINESE_SCALES = {"万": 1e4, "亿": 1e8}
_SCALES: dict[str, tuple[float, ...]] = {
    "万": (1e4,),
    "亿": (1e8,),
    "k": (1e3, 1024.0),
    "m": (1e6,),
}


@dataclass(frozen=True)
class NumberMention:
    """A number as displayed in an answer.

    Attributes:
        start: Offset of the first character in the text.
        end: Offset after the last character (unit suffix included).
        raw: The text of the mention, unit included ("12,345", "1.5万", "72B", "90%").
        candidates: Values the mention may stand for, one per accepted unit reading.
        tolerances: Absolute tolerance of each candidate at the displayed precision.
        literal: For dates: the exact string that must appear in the evidence text.
    """

    start: int
    end: int
    raw: str
    candidates: tuple[float, ...] = ()
    tolerances: tuple[float, ...] = ()
    literal: str | None = None


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    # Replace matches by spaces of the same length so offsets stay valid.
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _tolerance(int_part: str, frac: str | None) -> float:
    if frac:
        return 0.5 * 10 ** -(len(frac) - 1)
    digits = int_part.replace(",", "")
    zeros = len(digits) - len(digits.rstrip("0"))
    significant = len(digits) - zeros
    if zeros and len(digits) >= 4 and significant >= 2:
        return 0.5 * 10**zeros
    return 0.5


def _mention(match: re.Match[str]) -> NumberMention:
    value = float(match["int"].replace(",", "") + (match["frac"] or ""))
    tol = _tolerance(match["int"], match["frac"])
    unit = (match["unit"] or "").lower()
    candidates: tuple[float, ...]
    tols: tuple[float, ...]
    if unit in ("%", "％"):
        candidates = (value, value / 100)
        tols = (tol, tol / 100)
    elif unit in _SCALES:
        candidates = (value, *(value * s for s in _SCALES[unit]))
        tols = (tol, *(tol * s for s in _SCALES[unit]))
    else:
        candidates, tols = (value,), (tol,)
    return NumberMention(match.start(), match.end(), match.group(0).strip(), candidates, tols)


def extract_numbers(text: str) -> list[NumberMention]:
    """Find every number an answer states, skipping citation and list markers and digits inside names.

    Args:
        text: Markdown answer text.

    Returns:
        Mentions in text order.
    """
    masked = _blank(_blank(_blank(text, _CITATION), _IDENTIFIER), _LIST_MARKER)
    mentions = [NumberMention(m.start(), m.end(), m.group(0), literal=m.group(0)) for m in _DATE.finditer(masked)]
    masked = _blank(masked, _DATE)
    mentions += [_mention(m) for m in _NUMBER.finditer(masked)]
    return sorted(mentions, key=lambda m: m.start)


class Evidence:
    """The numbers and text an answer may draw on: tool results, cited passages, the conversation."""

    def __init__(self, texts: Iterable[str] = (), payloads: Iterable[Any] = ()) -> None:
        """Collect evidence.

        Args:
            texts: Free text (passages, the question, earlier turns); every digit run counts, also
                inside names, so "Qwen2.5-72B" grounds both 2.5 and 72.
            payloads: JSON-able tool results; numeric leaves count, and strings are read like texts.
        """
        self._values: list[float] = []
        self._text_parts: list[str] = []
        for text in texts:
            self._add_text(text)
        for payload in payloads:
            self._add_payload(payload)
        self._values.sort()
        self._text = "\n".join(self._text_parts)

    def _add_text(self, text: str) -> None:
        self._text_parts.append(text)
        if (spelled := spell_numbers(text)) != text:
            text = f"{text}\n{spelled}"  # "fifty thousand examples" grounds 50,000 as well
        for m in _WORD_SCALE.finditer(text):  # "10 million tokens" grounds 10,000,000
            self._values.append(float(m.group(1).replace(",", "")) * _WORD_SCALES[m.group(2).lower()])
        for m in _ANY_NUMBER.finditer(text):
            mention = _NUMBER.match(m.group(0))
            if mention is not None:
                self._values.extend(_mention(mention).candidates)
        for m in _CHINESE_NUMBER.finditer(text):  # "日活两万" grounds 20,000: the user's own figure
            self._values.append(chinese_int(m.group(1)) * _CHINESE_SCALES.get(m.group(2) or "", 1.0))

    def _add_payload(self, payload: Any) -> None:
        if isinstance(payload, bool) or payload is None:
            return
        if isinstance(payload, int | float):
            if math.isfinite(payload):
                self._values.append(float(payload))
        elif isinstance(payload, str):
            self._add_text(payload)
        elif isinstance(payload, dict):
            for value in payload.values():
                self._add_payload(value)
        elif isinstance(payload, list | tuple):
            for value in payload:
                self._add_payload(value)
        else:
            self._add_text(json.dumps(payload, default=str, ensure_ascii=False))

    def supports(self, mention: NumberMention) -> bool:
        """Whether some evidence value matches the mention at its displayed precision."""
        if mention.literal is not None:
            return mention.literal in self._text
        for value, tol in zip(mention.candidates, mention.tolerances, strict=True):
            slack = tol + 1e-9 * abs(value)
            i = bisect.bisect_left(self._values, value - slack)
            if i < len(self._values) and self._values[i] <= value + slack:
                return True
        return False


def ungrounded_numbers(text: str, evidence: Evidence) -> list[NumberMention]:
    """Return the numbers in ``text`` that no evidence supports, in text order."""
    return [m for m in extract_numbers(text) if not evidence.supports(m)]


def remove_numbers(text: str, mentions: Iterable[NumberMention]) -> str:
    """Replace each mention's span by "—" (an em dash), leaving the rest of the text as it was."""
    for m in sorted(mentions, key=lambda m: m.start, reverse=True):
        text = text[: m.start] + REMOVED_NUMBER + text[m.end :]
    return text


# ---------------------------------------------------------------------------------------------------
# Leaks: secrets and the system prompt.

_SECRET_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{12,}"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{8,}"),
    re.compile(r"\bxapp-[A-Za-z0-9\-]{8,}"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9_\-.]{16,}"),
)
# Shorter configured "secrets" would blank ordinary words (tests use keys like "test").
_MIN_SECRET_CHARS = 8
_LEAK_WORDS = 8
_PUNCT = "\"'`*_()[]{}<>.,;:!?，。；：！？、"


def _secret_spans(text: str, secrets: Iterable[str]) -> list[tuple[int, int]]:
    spans = []
    for secret in secrets:
        if len(secret) >= _MIN_SECRET_CHARS:
            spans += [(m.start(), m.end()) for m in re.finditer(re.escape(secret), text)]
    for pattern in _SECRET_PATTERNS:
        spans += [(m.start(), m.end()) for m in pattern.finditer(text)]
    return _merge(spans)


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _replace_spans(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in reversed(spans):
        text = text[:start] + REDACTED + text[end:]
    return text


def redact_secrets(text: str, secrets: Iterable[str]) -> tuple[str, bool]:
    """Replace configured secrets and anything shaped like an API key or token by "[redacted]".

    Returns:
        The text and whether anything was replaced.
    """
    spans = _secret_spans(text, list(secrets))
    return _replace_spans(text, spans), bool(spans)


def _words(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group(0).strip(_PUNCT).lower()) for m in re.finditer(r"\S+", text)]


@lru_cache(maxsize=8)
def _prompt_grams(system_prompt: str) -> frozenset[tuple[str, ...]]:
    grams: set[tuple[str, ...]] = set()
    for line in system_prompt.splitlines():
        words = [w for _, _, w in _words(line)]
        grams.update(tuple(words[i : i + _LEAK_WORDS]) for i in range(len(words) - _LEAK_WORDS + 1))
    return frozenset(grams)


def _prompt_spans(text: str, system_prompt: str) -> list[tuple[int, int]]:
    # Any run of 8 words copied from one line of the prompt counts as a leak: catches partial quotes,
    # ignores the odd shared phrase.
    grams = _prompt_grams(system_prompt)
    words = _words(text)
    spans = []
    for i in range(len(words) - _LEAK_WORDS + 1):
        if tuple(w for _, _, w in words[i : i + _LEAK_WORDS]) in grams:
            spans.append((words[i][0], words[i + _LEAK_WORDS - 1][1]))
    return _merge(spans)


def redact_leaks(text: str, *, secrets: Iterable[str], system_prompt: str) -> tuple[str, list[str]]:
    """Remove secrets and passages of the system prompt from an answer.

    Args:
        text: The answer.
        secrets: Secret values from the settings (API keys, tokens).
        system_prompt: The system prompt the model was given; any 8 consecutive words of one of its
            lines quoted in the answer are redacted (case and surrounding punctuation ignored).

    Returns:
        The cleaned text and what was found: a subset of ``["secret", "system_prompt"]``.
    """
    found = []
    text, had_secret = redact_secrets(text, secrets)
    if had_secret:
        found.append("secret")
    spans = _prompt_spans(text, system_prompt)
    if spans:
        text = _replace_spans(text, spans)
        found.append("system_prompt")
    return text, found


# Guard instructions are short; a run of 4 of their words in an answer is a copy, not a coincidence.
_ECHO_WORDS = 4


def remove_echoed_lines(text: str, instructions: Iterable[str]) -> tuple[str, bool]:
    """Drop every line of ``text`` that copies 4 consecutive words of one of the ``instructions``.

    Small models copy the guard's rewrite request into the rewritten answer ("Here is the full
    corrected answer: ..."); such a line is the request, not an answer, so it goes whole.

    Returns:
        The remaining text (stripped) and whether any line was dropped.
    """
    grams: set[tuple[str, ...]] = set()
    for instruction in instructions:
        words = [w for _, _, w in _words(instruction) if w]
        grams.update(tuple(words[i : i + _ECHO_WORDS]) for i in range(len(words) - _ECHO_WORDS + 1))
    kept, dropped = [], False
    for line in text.splitlines():
        words = [w for _, _, w in _words(line) if w]
        if any(tuple(words[i : i + _ECHO_WORDS]) in grams for i in range(len(words) - _ECHO_WORDS + 1)):
            dropped = True
        else:
            kept.append(line)
    return "\n".join(kept).strip(), dropped


class StreamRedactor:
    """Redacts secrets from streamed text, holding back just enough characters to see a whole secret.

    Feed deltas in order; each call returns the text that is safe to show now. ``flush`` returns the
    rest at the end of the stream.
    """

    def __init__(self, secrets: Iterable[str], holdback: int = 64) -> None:
        """Prepare for one stream.

        Args:
            secrets: Secret values to redact besides key-shaped tokens.
            holdback: Minimum characters kept back; raised to the longest secret's length.
        """
        self._secrets = [s for s in secrets if len(s) >= _MIN_SECRET_CHARS]
        self._holdback = max([holdback, *(len(s) + 1 for s in self._secrets)])
        self._pending = ""
        self.redacted = False

    def feed(self, delta: str) -> str:
        """Add a delta; return the safe prefix of everything not yet released."""
        self._pending += delta
        cut = len(self._pending) - self._holdback
        if cut <= 0:
            return ""
        spans = _secret_spans(self._pending, self._secrets)
        for start, end in spans:
            if start < cut < end:  # never split a (possibly growing) secret
                cut = start
        return self._release(cut, spans)

    def flush(self) -> str:
        """Release everything still held back, redacted."""
        return self._release(len(self._pending), _secret_spans(self._pending, self._secrets))

    def _release(self, cut: int, spans: list[tuple[int, int]]) -> str:
        inside = [(s, e) for s, e in spans if e <= cut]
        self.redacted = self.redacted or bool(inside)
        out = _replace_spans(self._pending[:cut], inside)
        self._pending = self._pending[cut:]
        return out
