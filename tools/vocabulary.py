"""The names the assistant recognises, derived from the catalogs in ``tools/data`` (one vocabulary).

GPU names and aliases, instance families and types, and model names, aliases and family words all come
from the data files, so adding a GPU, a family or a model to a data file is the whole change: the
understanding (and anything else that needs to spot names in text) picks it up from here.
"""

from __future__ import annotations

import re
from functools import cache

from tools import catalog
from tools.models import list_models


def _flexible(label: str) -> str:
    """Return a regex for a label where spaces, dashes and underscores are interchangeable or absent."""
    parts = [re.escape(p) for p in re.split(r"[\s\-_]+", label.strip()) if p]
    return r"[\s\-_]*".join(parts)


def _alternation(labels: list[str]) -> str:
    return "|".join(_flexible(label) for label in sorted(set(labels), key=len, reverse=True))


@cache
def gpu_labels() -> dict[str, str]:
    """Every GPU name and alias in ``gpus.yaml`` (lower case) -> the canonical GPU name."""
    out = {}
    for gpu in catalog.list_gpus():
        for label in (gpu.name, *gpu.aliases):
            # "gn8v GPU"-style aliases name a family's unnamed part; the family pattern reads those.
            if "(" not in label and not re.match(r"(?:ebm|scc|s|v)?gn\d", label, re.IGNORECASE):
                out[label.lower()] = gpu.name
    return out


@cache
def gpu_pattern() -> re.Pattern[str]:
    """One compiled alternation of every GPU label, longest first, matching whole words only."""
    return re.compile(
        # "2xL20", "8×H20": a count glued to the name with an x still leaves the name a whole word
        rf"(?:(?<![A-Za-z0-9])|(?<=\d[x×]))(?:nvidia\s*|tesla\s*|geforce\s*)?({_alternation(list(gpu_labels()))})"
        r"(?![A-Za-z0-9])",
        re.I,
    )


def _key(label: str) -> str:
    return re.sub(r"[\s\-_]+", "", label.lower())


@cache
def _gpu_keys() -> dict[str, str]:
    return {_key(label): name for label, name in gpu_labels().items()}


def gpu_of_label(label: str) -> str | None:
    """Return the canonical GPU a matched label names (spacing and case ignored), or None."""
    return _gpu_keys().get(_key(label))


@cache
def family_names() -> tuple[str, ...]:
    """Every instance family in ``instances.csv``."""
    return tuple(catalog.families())


@cache
def family_pattern() -> re.Pattern[str]:
    """Whole-word family names ("gn7i", "ebmgn8v", "gn8v-tee"), optionally written with "ecs."."""
    alt = "|".join(re.escape(f) for f in sorted(family_names(), key=len, reverse=True))
    return re.compile(rf"(?<![\w.\-])(?:ecs\.)?({alt})(?![\w\-])", re.I)


@cache
def model_family_words() -> tuple[str, ...]:
    """Words that start a model name: each registry family's first word ("Qwen2.5" -> "qwen", "Yi-1.5" -> "yi")."""
    words = set()
    for model in list_models():
        for text in (model.family, model.name):  # aliases hold abbreviations ("ds-v3") too short to start a name
            if m := re.match(r"[A-Za-z]+", text):
                words.add(m.group(0).lower())
    return tuple(sorted(words, key=len, reverse=True))


@cache
def model_family_pattern() -> re.Pattern[str]:
    """Match a model family or brand named without a size ("Qwen3", "Llama 3.1", "deepseek")."""
    labels = {m.family for m in list_models()} | set(model_family_words())
    return re.compile(rf"(?<![A-Za-z0-9.])({_alternation(sorted(labels))})(?![A-Za-z0-9.])", re.I)


@cache
def model_labels() -> dict[str, str]:
    """Every model name and alias in ``models.yaml`` (lower case) -> the canonical model name."""
    return {label.lower(): m.name for m in list_models() for label in (m.name, *m.aliases)}


@cache
def model_pattern() -> re.Pattern[str]:
    """One compiled alternation of every model name and alias, longest first, whole words only."""
    return re.compile(rf"(?<![A-Za-z0-9.])({_alternation(list(model_labels()))})(?![A-Za-z0-9])", re.I)


@cache
def _model_keys() -> dict[str, str]:
    return {_key(label): name for label, name in model_labels().items()}


def model_of_label(label: str) -> str | None:
    """Return the canonical model a matched label names (spacing and case ignored), or None."""
    return _model_keys().get(_key(label))
