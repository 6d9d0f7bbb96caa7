"""The model registry: known open LLM architectures and the names users call them by.

Rows live in ``tools/data/models.yaml``; each holds the architecture keys of the publisher's
``config.json``, parsed by :mod:`tools.hf_config` exactly like a user's own file. Names are matched
after normalisation (see :func:`normalize_name`); a bare "Qwen <size>" (or 千问/通义千问 + size) means
the newest Qwen generation that has that size.
"""

# Annotations are evaluated, not postponed (no `from __future__ import annotations`): pydantic would
# compile each field's annotation string again on every cold start (see README, Cold starts).
import math
import re
import unicodedata
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from tools import data_cache
from tools.architecture import ModelArchitecture
from tools.errors import ToolInputError, UnknownNameError, input_problem

REGISTRY_PATH = Path(__file__).parent / "data" / "models.yaml"

_CHECK_TEXT = {
    "checked-copy": "Config values checked against a copy of the official config.json.",
    "calibration": "Config values as verified in the calibration set (model_configs_dev.csv).",
    "unchecked": (
        "Config values not re-checked against a stored copy of the official config.json; "
        "the parameter count computed from them matches the published total."
    ),
}
# Variant words that do not change the architecture: "Qwen2.5-7B-Instruct" is "Qwen2.5-7B".
_VARIANT_TOKENS = {"instruct", "chat", "base", "it", "hf"}
_CHINESE_QWEN = ("通义千问", "千问")
# Newest first: a bare "qwen 72b" resolves to the first generation that has a 72B model.
_QWEN_GENERATIONS = ("Qwen3", "Qwen2.5", "Qwen2", "Qwen1.5")
# Qwen (v1, 2023) is named "Qwen-7B" with no version digit, which normalises like a bare "qwen 7b"
# (= the newest generation with that size). Its rows therefore match only when written as the
# publisher writes them, with a dash ("Qwen-7B-Chat", "Qwen/Qwen-7B", "qwen-72b-chat"), so a versioned
# v1 name never collapses onto Qwen2.5 and a bare size never lands on the 2023 model.
_EXACT_ONLY_FAMILIES = {"Qwen"}
_SIZE_TOKEN = re.compile(r"^a?(?:\d+x)?\d+(?:\.\d+)?b$")  # "a22b": MoE active size
_SIZE_IN_TEXT = re.compile(r"(?<![\d.])(?:(\d+)\s*x\s*)?(\d+(?:\.\d+)?)\s*b(?![a-z])", re.IGNORECASE)


class ModelRegistryError(ValueError):
    """``models.yaml`` is malformed; the message names the file and the row. A bug, not user input."""


class RegistryRow(BaseModel):
    """One row of ``models.yaml``."""

    # defer_build: rows read from tools.data_cache are never validated again (see tools.catalog.GPU).
    model_config = ConfigDict(extra="forbid", defer_build=True, frozen=True)

    name: str
    family: str
    hf_id: str
    source_url: str
    aliases: tuple[str, ...] = ()
    official_params_b: float | None = None
    official_active_params_b: float | None = None
    official_params_source: str | None = None
    check: Literal["checked-copy", "calibration", "unchecked"]
    notes: str | None = None
    config: dict[str, Any]

    @model_validator(mode="after")
    def _published_figures_cite_a_source(self) -> "RegistryRow":
        has_figure = self.official_params_b is not None or self.official_active_params_b is not None
        if has_figure and not self.official_params_source:
            raise ValueError("official_params_b needs official_params_source")
        return self


def normalize_name(text: str) -> str:
    """Reduce a model name to its matching key.

    Lower-cases, drops an ``org/`` prefix and a leading "meta", turns 千问/通义千问 into "qwen",
    drops variant words (instruct, chat, base, it, hf) and removes spaces, dashes and underscores.
    Dots stay, so "Qwen2.5-7B" and "Qwen2-57B" differ.

    Args:
        text: what the user typed, e.g. "Qwen/Qwen2.5-72B-Instruct", "llama 3 70b", "千问72B".

    Returns:
        The key, e.g. "qwen2.572b", "llama370b", "qwen72b".
    """
    return "".join(_name_tokens(text))


def parse_size_b(text: str) -> float | None:
    """Nominal size in billions of parameters written in a model name.

    Args:
        text: a name such as "Qwen2.5-72B", "qwen 0.5b", "Mixtral-8x7B", "Qwen3-30B-A3B".

    Returns:
        The first size in the name (72.0, 0.5, 56.0 for "8x7B": experts times expert size, 30.0),
        or None when the name has none.
    """
    match = _SIZE_IN_TEXT.search(text)
    if match is None:
        return None
    experts = int(match.group(1)) if match.group(1) else 1
    return experts * float(match.group(2))


@cache
def load_registry() -> dict[str, ModelArchitecture]:
    """All registry architectures, keyed by canonical name (validated once, then cached).

    Raises:
        ModelRegistryError: a row is malformed, its config cannot be parsed, or two rows claim
            the same name or alias.
    """
    return _registry_and_index()[0]


@cache
def _registry_and_index() -> tuple[dict[str, ModelArchitecture], dict[str, str]]:
    # The name index is cached with the rows: normalising every spelling costs as much as reading them.
    def read() -> tuple[dict[str, ModelArchitecture], dict[str, str]]:
        registry = load_registry_file(REGISTRY_PATH)
        return registry, _build_index(registry, REGISTRY_PATH)

    return data_cache.cached("models", [REGISTRY_PATH], read)


def load_registry_file(path: Path) -> dict[str, ModelArchitecture]:
    """Read and validate a registry file (uncached; :func:`load_registry` is the cached default).

    Args:
        path: a YAML file with a top-level ``models:`` list of rows.

    Raises:
        ModelRegistryError: as for :func:`load_registry`, naming ``path`` and the row.
    """
    registry: dict[str, ModelArchitecture] = {}
    for index, row in enumerate(_load_rows(path)):
        if row.name in registry:
            raise ModelRegistryError(f"{path}: row {index} repeats the name '{row.name}'.")
        registry[row.name] = _architecture(row, index, path)
    _build_index(registry, path)  # fails at load, not at the first lookup, when rows share an alias
    return registry


def resolve_model(name_or_path: str) -> ModelArchitecture:
    """Find a model by registry name or alias, or parse a ``config.json`` path.

    Args:
        name_or_path: a name as users type it ("qwen2.5 72b", "Qwen2.5-72B-Instruct", "千问72B",
            "llama3-70b", "DeepSeek R1", "r1", "ds-v3", "mixtral 8x7b"), or the path of a
            ``config.json`` file or of a model folder holding one.

    Returns:
        The architecture.

    Raises:
        UnknownNameError: no model has that name; carries up to 3 suggestions.
        ToolInputError: the name is empty, or the config file is missing or unusable.
    """
    text = name_or_path.strip()
    if not text:
        raise input_problem("error.model_name_empty")
    if _looks_like_path(text):
        from tools.hf_config import load_config_file

        return load_config_file(text)
    name = _index().get(_exact_key(text)) or _index().get(normalize_name(text))
    if name is None:
        raise UnknownNameError("model", text, suggest_models(text))
    return load_registry()[name]


def list_models(family: str | None = None) -> list[ModelArchitecture]:
    """Registry models, in file order, optionally only one family.

    Args:
        family: e.g. "Qwen2.5", "llama 3.1", "DeepSeek-V3" (matched like names); None for all.

    Raises:
        UnknownNameError: no model belongs to that family.
    """
    models = list(load_registry().values())
    if family is None:
        return models
    wanted = normalize_name(family)
    chosen = [m for m in models if normalize_name(m.family) == wanted]
    if not chosen:
        import difflib

        families = sorted({m.family for m in models})
        close = difflib.get_close_matches(family, families, n=3, cutoff=0.4)
        raise UnknownNameError("model family", family, close)
    return chosen


def suggest_models(text: str, limit: int = 3) -> list[str]:
    """Registry names close to an unknown name: same family nearest in size first, then spelling.

    Args:
        text: the unknown name, e.g. "Qwen2.5-70B".
        limit: at most this many names.

    Returns:
        Canonical names, e.g. ["Qwen2.5-72B-Instruct", "Qwen2.5-32B-Instruct", ...].
    """
    registry = load_registry()
    family, size = _family_key(text), parse_size_b(text)
    ranked: list[str] = []
    if size:
        # Same family first; a family named without its version ("Qwen-70B") matches every version.
        brand = family.rstrip("0123456789.")

        def same_family(f: str) -> bool:
            return f == family

        def same_brand(f: str) -> bool:
            return bool(brand) and f.rstrip("0123456789.") == brand

        for matches in (same_family, same_brand):
            near = [
                (abs(math.log(row_size / size)), name)
                for name, model in registry.items()
                # A versionless "Qwen-70B" is a newest-Qwen guess first, the 2023 Qwen only by brand.
                if (matches is not same_family or model.family not in _EXACT_ONLY_FAMILIES)
                and matches(_family_key(name))
                and (row_size := parse_size_b(name))
            ]
            if near:
                # Nearest size first; among equals the newest generation (names sort by version).
                near.sort(key=lambda item: item[1], reverse=True)
                ranked = [name for _, name in sorted(near, key=lambda item: item[0])]
                break
    import difflib

    index = _index()
    for key in difflib.get_close_matches(normalize_name(text), list(index), n=limit * 3, cutoff=0.6):
        ranked.append(index[key])
    return list(dict.fromkeys(ranked))[:limit]


def _load_rows(path: Path) -> list[RegistryRow]:
    import yaml

    from tools.data_files import yaml_loader

    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml_loader())
    except (OSError, yaml.YAMLError) as exc:
        raise ModelRegistryError(f"{path}: cannot be read: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise ModelRegistryError(f"{path}: expected a top-level 'models:' list.")
    rows = []
    for index, raw in enumerate(data["models"]):
        try:
            rows.append(RegistryRow.model_validate(raw))
        except ValidationError as exc:
            label = raw.get("name", "?") if isinstance(raw, dict) else "?"
            raise ModelRegistryError(f"{path}: row {index} ('{label}'): {exc}") from exc
    return rows


def _architecture(row: RegistryRow, index: int, path: Path) -> ModelArchitecture:
    from tools.hf_config import architecture_from_config  # only when the registry file is read

    try:
        parsed = architecture_from_config(
            row.config, name=row.name, source_url=row.source_url, family=row.family, hf_id=row.hf_id
        )
    except ToolInputError as exc:
        raise ModelRegistryError(f"{path}: row {index} ('{row.name}'): {exc}") from exc
    # A row that says what it was checked against replaces the generic sentence.
    check = None if (row.notes or "").startswith("Checked against") else _CHECK_TEXT[row.check]
    notes = " ".join(part for part in (check, row.notes, parsed.notes) if part)
    return parsed.model_copy(
        update={
            "aliases": row.aliases,
            "official_params_b": row.official_params_b,
            "official_active_params_b": row.official_active_params_b,
            "official_params_source": row.official_params_source,
            "notes": notes,
        }
    )


def _index() -> dict[str, str]:
    return _registry_and_index()[1]


def _build_index(registry: dict[str, ModelArchitecture], path: Path) -> dict[str, str]:
    """Map matching keys to canonical names: every name, HF id and alias, plus bare "qwen<size>"."""
    index: dict[str, str] = {}
    for name, model in registry.items():
        exact = model.family in _EXACT_ONLY_FAMILIES
        for spelling in _spellings(model):
            key = _exact_key(spelling) if exact else normalize_name(spelling)
            if key and index.setdefault(key, name) != name:
                raise ModelRegistryError(f"{path}: '{spelling}' of '{name}' also names '{index[key]}'.")
    bare_qwen: dict[str, str] = {}
    for generation in _QWEN_GENERATIONS:
        for name, model in registry.items():
            if model.family != generation:
                continue
            for spelling in _spellings(model):
                bare_qwen.setdefault("qwen" + "".join(_name_tokens(spelling)[1:]), name)
    for key, name in bare_qwen.items():
        index.setdefault(key, name)
    for key, name in _bare_brand_sizes(registry).items():
        index.setdefault(key, name)
    return index


# A family named by brand and version ("Llama 3.3", "Gemma 2", "InternLM2.5", "GLM-4"): a bare "llama 70b"
# means the newest version with that size, as a bare "qwen 72b" does (users rarely type the version).
_BRAND_VERSION = re.compile(r"([a-z]+)[\s\-]?(\d+(?:\.\d+)?)", re.IGNORECASE)


def _bare_brand_sizes(registry: dict[str, ModelArchitecture]) -> dict[str, str]:
    """Map "brand<size>" keys ("llama70b", "gemma27b") to the newest version's model of that size."""
    newest: dict[str, tuple[float, str]] = {}
    for name, model in registry.items():
        m = _BRAND_VERSION.fullmatch(model.family or "")
        if m is None or model.family in _EXACT_ONLY_FAMILIES:
            continue
        sizes = [t for t in _name_tokens(name) if _SIZE_TOKEN.match(t)]
        if not sizes:
            continue
        key, version = m.group(1).lower() + "".join(sizes), float(m.group(2))
        if key not in newest or version > newest[key][0]:
            newest[key] = (version, name)
    return {key: name for key, (_, name) in newest.items()}


def _spellings(model: ModelArchitecture) -> tuple[str, ...]:
    return (model.name, *(model.hf_id or "",), *model.aliases)


def _name_tokens(text: str) -> list[str]:
    s = unicodedata.normalize("NFKC", text).strip().lower()
    s = s.rsplit("/", 1)[-1]
    for chinese in _CHINESE_QWEN:
        s = s.replace(chinese, "qwen ")
    tokens = [t for t in re.split(r"[\s_\-]+", s) if t]
    if len(tokens) > 1 and tokens[0] == "meta":
        tokens = tokens[1:]
    return [t for t in tokens if t not in _VARIANT_TOKENS]


def _exact_key(text: str) -> str:
    """Dash-preserving key for publisher spellings ("Qwen/Qwen-7B-Chat" -> "exact:qwen-7b"); "" with spaces."""
    s = unicodedata.normalize("NFKC", text).strip().lower().rsplit("/", 1)[-1]
    if not s or re.search(r"\s", s):
        return ""
    tokens = [t for t in re.split(r"[_\-]+", s) if t and t not in _VARIANT_TOKENS]
    return "exact:" + "-".join(tokens)


def _family_key(text: str) -> str:
    """Return the matching key without size words: "Qwen2.5-72B-Instruct" -> "qwen2.5"."""
    return "".join(t for t in _name_tokens(text) if not _SIZE_TOKEN.match(t))


def _looks_like_path(text: str) -> bool:
    if text.endswith(".json") or text.startswith(("/", "./", "../", "~")):
        return True
    path = Path(text)
    return path.is_dir() and (path / "config.json").is_file()
