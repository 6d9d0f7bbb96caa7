"""Guidance passages in answers: their best sentences quoted with our citation numbers, and the source list.

Split from :mod:`assistant.render` (which re-exports these names); ``render`` is read at call time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant import render
from assistant.answer import Language
from assistant.messages import say
from knowledge.models import Citation, Passage

_DOC_MARKERS = re.compile(r"\s?\[\d+\](?:\[\d+\])*")
_SENTENCE_END = re.compile(r"(?<=[。！？；])|(?<=[.!?])\s+(?=[A-Z0-9`*\"(“])")


def sentences(text: str) -> list[str]:
    """Sentences of a passage: tables, headings and list markers dropped, the document's [n] removed."""
    out = []
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        if not block or block.startswith(("|", "#", "```")):
            continue
        for line in block.splitlines():
            line = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", line).strip()
            for sentence in _SENTENCE_END.split(line):
                sentence = _balance_bold(_DOC_MARKERS.sub("", sentence).strip())
                if len(sentence) >= 12:
                    out.append(sentence)
    return out


_STOPWORDS = {
    "what",
    "is",
    "are",
    "the",
    "a",
    "an",
    "of",
    "and",
    "or",
    "to",
    "in",
    "on",
    "for",
    "with",
    "does",
    "do",
    "how",
    "why",
    "which",
    "can",
    "it",
    "its",
    "be",
    "vs",
    "about",
    "me",
    "tell",
    "explain",
    "i",
    "you",
}
_CJK_STOP = set("的是吗呢什么吧了和与在有个")


def _balance_bold(sentence: str) -> str:
    """Drop a ``**`` left open where a bold phrase spanned a sentence boundary."""
    if sentence.count("**") % 2 == 0:
        return sentence
    if sentence.startswith("**"):
        return sentence[2:].lstrip()
    head, _, tail = sentence.rpartition("**")
    return head + tail


def _terms(query: str) -> set[str]:
    words = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9.\-]+|\d+[A-Za-z]+", query)} - _STOPWORDS
    cjk = "".join(ch for ch in re.findall(r"[\u4e00-\u9fff]", query) if ch not in _CJK_STOP)
    return words | {cjk[i : i + 2] for i in range(len(cjk) - 1)}


_CLAIM = re.compile(r"\**(?:claim in the article|原文说法)", re.IGNORECASE)
_FACT = re.compile(r"\**(?:correct fact|正确事实|verdict|结论)", re.IGNORECASE)


def _overlap(terms: set[str], sentence: str) -> float:
    lowered = sentence.lower()
    score = float(sum(1 for t in terms if t in lowered))
    return score + 2 if _FACT.match(sentence) else score


def key_sentences(passage: Passage, query: str, limit: int = 2) -> list[str]:
    """Pick the sentences of ``passage`` that share most words with ``query``, in passage order."""
    terms = _terms(query)
    # A correction's restated claim is the error itself; quoting it out of context would repeat it.
    found = [s for s in sentences(passage.text) if not _CLAIM.match(s)]
    if not found:
        return []
    # The opening sentence usually defines the section's subject: a small bonus answers "what is X".
    scored = [(_overlap(terms, s) + (0.5 if i == 0 else 0), -i, s) for i, s in enumerate(found)]
    best = sorted(scored, reverse=True)[:limit]
    if best[0][0] == 0:
        best = [(0, -i, s) for i, s in enumerate(found[:limit])]  # nothing matched: the opening sentences
    return [s for _, _, s in sorted(best, key=lambda x: -x[1])]


def quote(passage: Passage, number: int, query: str, lang: Language, limit: int = 2) -> str:
    """Quote the passage's best sentences as a blockquote ending with its citation marker."""
    picked = key_sentences(passage, query, limit)
    if not picked:
        return ""
    joiner = "" if passage.lang == "zh" else " "
    title = f"*{passage.section}*"
    return f"> {title}: {joiner.join(picked)} {render.cite(number)}"


def sources_markdown(citations: Sequence[Citation], lang: Language) -> str:
    """Render the numbered source list: document, section, path and the section's first source URL."""
    if not citations:
        return ""
    lines = [say("render.sources", lang)]
    for i, c in enumerate(citations, start=1):
        url = f" — {render.link_urls(c.sources[0])}" if c.sources else ""  # a link, never a raw URL
        lines.append(f"{render.cite(i)} {c.doc_title} — {c.section} (`{c.path}`){url}")
    return "\n".join(lines)
