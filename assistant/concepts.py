"""Conceptual questions the guidance answers: which concept a question is about, and its reviewed answer.

The entries live in ``assistant/prompts/concepts.yaml`` (zh and en, each resting on one guidance section);
they are validated on first use and read once.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, field_validator

from assistant.answer import Language

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
        return bool(re.search(self.match, text, re.IGNORECASE))


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


def asks_concept(text: str, *, names_workload: bool, names_hardware: bool) -> bool:
    """Tell whether a question is about a concept alone: no model to size and no hardware to look up.

    "Does cross-node tensor parallel make sense?" names no model, so it is not a plan waiting for one
    ("which model?" would be the wrong reply); "spot price of gn7i" names hardware, so it stays a price question.
    """
    return not names_workload and not names_hardware and find_concept(text) is not None
