"""Typed tool notes: a code and its figures, rendered in English or Chinese from one catalogue.

Every assumption, warning, layout and rejection reason a tool states is a :class:`Note`: a ``code``
(``plan.context``, ``reject.memory_per_gpu`` ...) with the figures it quotes in ``values``, plus its English
``text`` for the command line and JSON readers. The texts of both languages live in
``data/note_texts.yaml`` (code -> {en, zh}, ``str.format`` placeholders naming the values), so an answer in
Chinese renders the same note from the same figures instead of re-reading an English sentence.

The catalogue is read once, when the first note is made, through :mod:`tools.data_cache` (no YAML parse
on a warm cache), and validated: both languages of a code name the same placeholders.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path
from typing import Literal, NamedTuple, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tools import data_cache

NoteValue = str | int | float | bool | list[str]
NoteLanguage = Literal["en", "zh"]
NOTE_TEXTS = Path(__file__).parent / "data" / "note_texts.yaml"
# Booleans read as a switch ("gradient checkpointing on"); each language names the positions its own way.
_SWITCH: dict[NoteLanguage, tuple[str, str]] = {"en": ("off", "on"), "zh": ("关", "开")}
# A list of names (regions, suggested models) is joined the way each language lists things; in Chinese each
# name is a code span, so ids like "cn-wuhan-lr" read as identifiers, not as English words.
_LIST_ITEM: dict[NoteLanguage, tuple[str, str]] = {"en": (", ", "{}"), "zh": ("、", "`{}`")}


class Note(BaseModel):
    """One statement a tool makes about its result, typed so any face can render it in its language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str = Field(description="key of the note's texts in tools/data/note_texts.yaml")
    values: dict[str, NoteValue] = Field(default_factory=lambda: {}, description="the figures and names it quotes")
    text: str = Field(description="the note in English")

    def __str__(self) -> str:
        return self.text

    def __contains__(self, item: object) -> bool:
        # A pydantic model iterates over its fields, so `"GiB" in note` would quietly be False: fail instead.
        raise TypeError("match a Note by its code or values, not by its text")

    def render(self, lang: NoteLanguage) -> str:
        """Return the note in ``lang`` with its figures filled in."""
        return self.text if lang == "en" else render_code(self.code, lang, self.values)


class NoteTexts(NamedTuple):
    """The two renderings of one code: a tuple, which the cache reads back without a call per code."""

    en: str
    zh: str


class _NoteRow(BaseModel):
    """One code's row of the catalogue file, validated when the file is read (never on a cached start)."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    en: str
    zh: str


def note(code: str, **values: NoteValue) -> Note:
    """Make the note ``code`` quoting ``values`` (an unknown code or a missing value fails here, in tests)."""
    # The type is part of the key: True == 1 == 1.0, but they read "on", "1" and "1.0".
    return _made(code, tuple((k, type(v), tuple(v) if isinstance(v, list) else v) for k, v in values.items()))


@lru_cache(maxsize=4096)
def _made(code: str, values: tuple[tuple[str, type, object], ...]) -> Note:
    # A plan states hundreds of notes, mostly the same ones (every vGPU slice, every other GPU): a note is
    # frozen, so equal ones are shared, and built without re-validation (the code is checked by the lookup,
    # the values by their annotation); building each anew was a quarter of a warm plan.
    fields = {k: list(cast(tuple[str, ...], v)) if kind is list else cast(NoteValue, v) for k, kind, v in values}
    return Note.model_construct(code=code, values=fields, text=render_code(code, "en", fields))


def render_code(code: str, lang: NoteLanguage, values: dict[str, NoteValue]) -> str:
    """Return the text of ``code`` in ``lang`` with ``values`` filled in."""
    template = getattr(note_texts()[code], lang)
    return template.format(**{k: _shown(_field_label(k, v, lang), lang) for k, v in values.items()})


def _field_label(key: str, value: NoteValue, lang: NoteLanguage) -> NoteValue:
    # An input error names a request field ("candidates"); a Chinese answer says it in words where the
    # catalogue has them ("field.candidates"), so the identifier stays out of the sentence.
    if key != "field" or lang == "en" or not isinstance(value, str):
        return value
    label = note_texts().get(f"field.{value}")
    return label.zh if label else value


def _shown(value: NoteValue, lang: NoteLanguage) -> object:
    if isinstance(value, bool):
        return _SWITCH[lang][value]
    if isinstance(value, list):
        sep, item = _LIST_ITEM[lang]
        return sep.join(item.format(v) for v in value)
    return value


def rendered(notes: Iterable[Note], lang: NoteLanguage) -> list[str]:
    """Return each note in ``lang``."""
    return [n.render(lang) for n in notes]


def placeholders(template: str) -> set[str]:
    """Return the value names a template quotes (``{gib:.1f}`` quotes ``gib``)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@cache
def note_texts() -> dict[str, NoteTexts]:
    """Return the catalogue, code -> texts, validated (cached per user while the file is unchanged)."""
    return data_cache.cached("note_texts", [NOTE_TEXTS], _load)


def _load() -> dict[str, NoteTexts]:
    import yaml

    from tools.data_files import yaml_loader
    from tools.errors import validation_message  # tools.errors makes notes: imported here, not at the top

    raw = yaml.load(NOTE_TEXTS.read_text(encoding="utf-8"), Loader=yaml_loader())
    texts = {}
    for code, row in raw.items():
        try:
            valid = _NoteRow.model_validate(row)
            texts[code] = NoteTexts(valid.en, valid.zh)
        except ValidationError as exc:
            raise ValueError(f"{NOTE_TEXTS.name}: {code}: {validation_message(exc)}") from None
        if placeholders(texts[code].en) != placeholders(texts[code].zh):
            raise ValueError(f"{NOTE_TEXTS.name}: {code}: en and zh quote different values")
    return texts
