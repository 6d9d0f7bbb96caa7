"""The offline engine's message catalogue: zh + en text keyed by code, in ``prompts/messages.yaml``.

Answers are rendered in one language from typed tool outcomes: a code plus its figures, never an
English tool string pasted into Chinese text.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

from assistant.answer import Language

# Under prompts/ so the wheel carries it (pyproject lists prompts/*.yaml as package data).
CATALOGUE = Path(__file__).parent / "prompts" / "messages.yaml"


@cache
def catalogue() -> dict[str, dict[str, str]]:
    """Load the catalogue: code -> {"zh": ..., "en": ...}; a code missing a language fails here."""
    data = yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))
    for code, texts in data.items():
        if set(texts) != {"zh", "en"}:
            raise ValueError(f"{CATALOGUE.name}: {code} needs exactly zh and en, has {sorted(texts)}")
    return data


def say(code: str, lang: Language, **fields: object) -> str:
    """Return the text of ``code`` in ``lang`` with ``fields`` filled in."""
    return catalogue()[code][lang].format(**fields)
