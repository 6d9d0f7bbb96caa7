"""Conceptual questions the guidance answers: which concept a question is about, and its reviewed answer.

The entries live in ``assistant/prompts/concepts.yaml`` (zh and en, each resting on one guidance section);
they are validated on first use and read once.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from pydantic import BaseModel, ConfigDict, field_validator

from assistant.answer import Language
from assistant.billing_words import billings
from assistant.intent_rules import EXPLAIN_RE, asks_sizing
from assistant.reading import compiled
from knowledge.documents import load_documents

if TYPE_CHECKING:
    from assistant.understanding import Slots

_FILE = Path(__file__).parent / "prompts" / "concepts.yaml"


class Concept(BaseModel):
    """One concept: how questions about it are worded, the section that explains it, the short answer."""

    model_config = ConfigDict(extra="forbid")

    id: str
    match: str
    doc: str
    section: dict[Language, str]
    answer: dict[Language, str]

    @field_validator("match")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        re.compile(pattern)
        return pattern

    def matches(self, text: str) -> bool:
        """Tell whether ``text`` asks about this concept."""
        return bool(compiled(self.match).search(text))


class _ConceptFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    concepts: list[Concept]


@cache
def load_concepts(path: Path = _FILE) -> tuple[Concept, ...]:
    """Read and validate the concept file (a bad entry fails with the file named)."""
    try:
        return tuple(_ConceptFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8"))).concepts)
    except Exception as exc:
        raise ValueError(f"{path}: {exc}") from exc


def find_concept(text: str) -> Concept | None:
    """Return the first concept ``text`` asks about, or None."""
    return next((c for c in load_concepts() if c.matches(text)), None)


def find_concepts(text: str) -> list[Concept]:
    """Return the concept ``text`` asks about and, when it asks a second one elsewhere, that one, in question order.

    "模型放 OSS 还是 NAS？加载 70B 要多久？" asks about storage and about load time: two sections, two answers.
    """
    first = find_concept(text)
    if first is None:
        return []
    found = compiled(first.match).search(text)
    assert found is not None
    start, end = found.span()
    for other in load_concepts():
        m = compiled(other.match).search(text)
        if m and other.section != first.section and (m.end() <= start or m.start() >= end):
            return [other, first] if m.start() < start else [first, other]
    return [first]


# "what is X", "explain X", "X 是什么", "什么是 X": X is the subject a definition question is about.
_SUBJECT_RES = (
    r"(?:what\s+is|what's|what\s+are|what\s+does|explain|tell\s+me\s+about|define|meaning\s+of)\s+(?:an?\s+|the\s+)?"
    r"([A-Za-z][\w\-./+ ]{1,40}?)(?:\s+(?:mean|stand\s+for|do|work|used\s+for|and\b|in\b|on\b|for\b)|[?？.,，]|$)",
    r"(?:什么是|啥是|介绍一下|解释一下|讲讲)\s*([\w\-./+ ]{2,30}?)\s*(?:[?？。，,]|$)",
    r"([\w\-./+]{2,30}(?:\s+[A-Za-z][\w\-]*){0,2})\s*(?:是什么|是啥|什么意思|是干什么的)",
)


@cache
def _guidance_text() -> str:
    """Every guidance document's text, lower-cased, to tell whether the guidance mentions a term at all."""
    return "\n".join(doc.body.lower() for doc in load_documents())


def guidance_subject(text: str) -> str | None:
    """Return the subject of a definition question when the guidance mentions it ("What is EasyCKPT?")."""
    for pattern in _SUBJECT_RES:
        if (m := re.search(pattern, text, re.IGNORECASE)) and len(subject := m.group(1).strip()) >= 3:
            if re.search(rf"(?<![a-z0-9]){re.escape(subject.lower())}(?![a-z0-9])", _guidance_text()):
                return subject  # a whole word or name: "love" is not "Lovelace"
    return None


def asks_concept(text: str, slots: Slots) -> bool:
    """Tell whether a question read as a plan, a price or off-topic is really about a concept alone.

    "Does cross-node tensor parallel make sense?" names no model, so it is not a plan waiting for one
    ("which model?" would be the wrong reply); "spot price of gn7i" names hardware, so it stays a price
    question; a bare size ("load a 70B model") is no workload unless a task comes with it.
    """
    if slots.intent not in ("plan", "out_of_scope", "prices"):
        return False
    if slots.model and len(billings(text)) >= 2:  # "跑 Qwen2.5-7B，抢占式还是按量？": the plan's prices answer
        return False
    sized = slots.model or slots.model_error or (slots.size_b and (slots.task or slots.task_hint))
    named = slots.gpu_mentions or slots.families or slots.instance_types
    if sized and not named and (slots.model or slots.size_b) and find_concept(text) is not None:
        # "Qwen3-30B-A3B 的显存按总参数还是激活参数算？": the concept is the question; the guidance sizes the model
        return _concept_asked(text, slots)
    return not sized and not named and (find_concept(text) is not None or guidance_subject(text) is not None)


_NEEDS_RE = r"需要|需不需要|要不要|必须|有必要|\bneed(?:ed|s)?\b|\brequired?\b|\bnecessary\b"
# A yes/no about the concept's effect ("INT4 量化后效果会差很多吗") or its reason ("is batching why vLLM is faster?")
_ABOUT_CONCEPT_RE = (
    _NEEDS_RE + r"|效果|质量|精度|掉点|变差|差很多|\bquality\b|\baccuracy\b|\bworse\b|\bdegrad\w*|\bwhy\b|为什么|为啥"
)


def _concept_asked(text: str, slots: Slots) -> bool:
    """Whether a question that names a model asks about a concept rather than for a plan, a figure or a verdict."""
    # A GPU count alone ("one 8-GPU box or single-GPU instances?") is a layout the concept weighs, not a load.
    # A context length is often the concept's subject ("why does 32k need so much more than 4k?"), sized after it.
    stated = (slots.concurrency, slots.qps, slots.budget_cny_month, slots.train_tokens,
              slots.region, slots.usage_hours, slots.rental_hours)  # fmt: skip
    # A yes/no on needing the concept ("LoRA 微调 7B 需要 NVLink 吗") asks about it; other yes/nos ask for a verdict.
    verdict = slots.asks_verdict and not re.search(_ABOUT_CONCEPT_RE, text, re.IGNORECASE)
    if any(v is not None for v in stated) or verdict or slots.asks_cost or asks_sizing(text):
        return False
    # "how much does AWQ hurt quality on qwen 72b?", "精度掉多少": a question about the effect, asked of the concept
    effect = r"|还是|\bor\b|\bvs\.?\b|how\s+(?:much|bad(?:ly)?|big|well)\b|多少|多大|影响"
    return bool(re.search(EXPLAIN_RE + effect + "|" + _ABOUT_CONCEPT_RE, text, re.IGNORECASE))
