"""Reviewing a draft answer: citation markers, ungrounded numbers, language, echoed guard text.

The engine asks the model once to rewrite a draft with problems (:func:`rewrite_request`, worded in
``prompts/rewrite.md``); the rewrite is reviewed again like the draft. The texts users see about it
(warnings, "Sources:") are in :data:`MESSAGES`, in both languages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from assistant import guards
from assistant.answer import AnswerKind, Language
from assistant.llm_tools import Run
from knowledge.models import Passage

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

LANGUAGE_NAMES = {"zh": "Simplified Chinese (简体中文)", "en": "English"}
_MARKER = re.compile(r"\[(\d+(?:\s*[,，、]\s*\d+)*)\]")
# A tool call written into the answer instead of made: Qwen-style tags, or {"name": ..., "arguments": ...}.
_CALL_AS_TEXT = re.compile(
    r"</?tool_call>|\"name\"\s*:\s*\"[^\"]*\"\s*,\s*\"(?:arguments|parameters)\"\s*:|\b(?:{tools})\s*\(\s*\w+\s*="
)


def tool_call_as_text(text: str, tool_names: set[str]) -> bool:
    """Whether ``text`` holds a tool call written out rather than made (small models do this)."""
    pattern = _CALL_AS_TEXT.pattern.replace("{tools}", "|".join(sorted(map(re.escape, tool_names))) or "(?!)")
    return re.search(pattern, text) is not None


@cache
def _rewrite_parts() -> dict[str, str]:
    lines = (Path(__file__).parent / "prompts" / "rewrite.md").read_text(encoding="utf-8").splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip() and not line.startswith("#"))


def rewrite_request(problems: Problems, language: Language) -> BaseMessage:
    """Return the message asking the model to rewrite its draft, naming what to fix."""
    from langchain_core.messages import HumanMessage

    parts = _rewrite_parts()
    text = [parts["header"]]
    if problems.numbers:
        text.append(parts["numbers"].format(numbers=", ".join(problems.numbers)))
    if problems.wrong_language:
        text.append(parts["language"].format(language=LANGUAGE_NAMES[language]))
    text.append(parts["footer"])
    return HumanMessage(" ".join(text))


def rewrite_instructions() -> list[str]:
    """Return the fixed sentences of the rewrite request, for :func:`assistant.guards.remove_echoed_lines`."""
    return [re.sub(r"\{\w+\}", " ", part) for part in _rewrite_parts().values()]


def renumber_citations(text: str, run: Run) -> tuple[str, list[Passage], list[int]]:
    """Renumber markers in order of first use; drop markers that match no retrieved passage."""
    known = run.by_number()
    order: dict[int, int] = {}
    unknown: list[int] = []

    def replace(match: re.Match[str]) -> str:
        kept = []
        for raw in re.split(r"\s*[,，、]\s*", match.group(1)):
            n = int(raw)
            if n in known:
                kept.append(order.setdefault(n, len(order) + 1))
            elif n not in unknown:
                unknown.append(n)
        return "".join(f"[{k}]" for k in dict.fromkeys(kept))

    text = _MARKER.sub(replace, text)
    cited = [known[old] for old, _ in sorted(order.items(), key=lambda item: item[1])]
    return text, cited, unknown


def markers(count: int) -> str:
    return " ".join(f"[{i}]" for i in range(1, count + 1))


def evidence(run: Run, cited: list[Passage]) -> guards.Evidence:
    texts = [run.question, *(m.content for m in run.history)]
    texts += [f"{p.doc_title}\n{p.section}\n{p.text}" for p in cited]
    payloads = [c.result for c in run.calls if c.result is not None]
    payloads += [c.args for c in run.calls]
    return guards.Evidence(texts=texts, payloads=payloads)


@dataclass
class Problems:
    """What a draft answer got wrong: ungrounded numbers, the wrong language."""

    numbers: list[str]
    wrong_language: bool

    def __bool__(self) -> bool:
        return bool(self.numbers) or self.wrong_language

    def warning(self, language: Language) -> str:
        if self.numbers:
            return say(language, "regenerated", ", ".join(self.numbers))
        return say(language, "relanguaged")


def problems(text: str, cited: list[Passage], run: Run) -> Problems:
    numbers = [m.raw for m in guards.ungrounded_numbers(text, evidence(run, cited))]
    return Problems(list(dict.fromkeys(numbers)), guards.detect_language(text) != run.language)


def kind(run: Run, text: str) -> AnswerKind:
    names = {c.name for c in run.calls if c.error is None}
    if "plan_gpu_deployment" in names:
        return "recommendation"
    if "estimate_gpu_memory" in names:
        return "estimate"
    if names:
        return "guidance"
    if text.rstrip().endswith(("?", "？")):
        return "clarification"
    return "guidance"


MESSAGES: dict[str, dict[Language, str]] = {
    "secret": {
        "en": "Removed text that looked like a secret (API key or token).",
        "zh": "已删除疑似密钥或令牌的内容。",
    },
    "system_prompt": {
        "en": "Removed text quoted from the assistant's instructions.",
        "zh": "已删除引用自助手内部指令的内容。",
    },
    "bad_citation": {
        "en": "Removed citation markers that match no retrieved passage: {}.",
        "zh": "已删除无对应检索段落的引用标记：{}。",
    },
    "sources": {"en": "Sources: {}", "zh": "来源：{}"},
    "regenerated": {
        "en": "The first draft had numbers not backed by a tool or source ({}); the answer was regenerated.",
        "zh": "初稿中有未经工具或资料支持的数字（{}），已重新生成回答。",
    },
    "relanguaged": {
        "en": "The first draft was not in English; the answer was regenerated.",
        "zh": "初稿不是中文，已重新生成回答。",
    },
    "removed": {
        "en": "Removed numbers not backed by a tool result or cited source: {}.",
        "zh": "已删除没有工具结果或引用资料支持的数字：{}。",
    },
    "cut_rewrite": {
        "en": "Removed lines of the rewritten answer that repeated the assistant's internal check.",
        "zh": "已删除重写回答中复述助手内部检查指令的内容。",
    },
}


def say(language: Language, key: str, *args: str) -> str:
    """Return the user-facing message ``key`` in ``language``, with ``args`` in its ``{}`` places."""
    return MESSAGES[key][language].format(*args)
