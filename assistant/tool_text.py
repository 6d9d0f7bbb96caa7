"""Chinese renderings of the planner's and estimator's fixed English notes, so a zh answer stays in one language.

The tools return a few kinds of free-text note (rejection reasons, assumptions, warnings, layouts) built
from fixed templates. Each template is matched here and rendered in Chinese with the same figures; a
note no pattern knows is left out of a Chinese answer (it stays in the JSON tool results) rather than
pasted in English.
"""

from __future__ import annotations

import re

# (pattern over the whole note, Chinese template with {1}, {2} ... for the groups)
_ZH: tuple[tuple[str, str], ...] = (
    (r"region: unknown region '([^']+)'; known regions: (.+), or any",
     "没有 {1} 这个地域。可用的地域 ID：{2}，或 any（比较所有地域）"),
    (r"Unknown (?:model|GPU|instance type|instance family|region) '(.+)'\. Did you mean (.+)\?",
     "目录里没有“{1}”。您是不是指：{2}？"),
    (r"Unknown (?:model|GPU|instance type|instance family|region) '(.+)'\.", "目录里没有“{1}”。"),
    # A tool's range check on one argument (pydantic's wording), e.g. "concurrency: Input should be less than or
    # equal to 100000": the argument keeps its name, the bound its figure.
    (r"(\w+): Input should be less than or equal to ([\d.e+]+)", "{1} 不能超过 {2}"),
    (r"(\w+): Input should be less than ([\d.e+]+)", "{1} 必须小于 {2}"),
    (r"(\w+): Input should be greater than or equal to ([\d.e+\-]+)", "{1} 不能小于 {2}"),
    (r"(\w+): Input should be greater than ([\d.e+\-]+)", "{1} 必须大于 {2}"),
)  # fmt: skip
_COMPILED = tuple((re.compile(pattern), zh) for pattern, zh in _ZH)


def note_zh(note: str) -> str | None:
    """Render one fixed English tool note in Chinese with its figures; None when no template matches."""
    for pattern, zh in _COMPILED:
        if m := pattern.fullmatch(note.strip()):
            return zh.format(None, *m.groups())  # {1} is the first group
    return None


def notes_in(lang: str, notes: list[str]) -> list[str]:
    """Return the notes in the answer's language: Chinese for zh (unknown ones left out), else as given."""
    if lang != "zh":
        return notes
    return [zh for note in notes if (zh := note_zh(note)) is not None]
