"""Checks on the guidance documents in knowledge/docs/{en,zh}.

Front matter, en/zh pairing, instance-type names against the Alibaba catalog, and the family table of
the instance-families document against the catalog's GPU memory per family.
"""

from __future__ import annotations

import datetime as dt
import re
from functools import cache
from pathlib import Path

import pytest
import yaml

from tools import catalog
from tools.errors import UnknownNameError

_DOCS_DIR = Path(__file__).resolve().parents[1] / "knowledge" / "docs"
_LANGS = ("en", "zh")
_REQUIRED_KEYS = {"title", "lang", "sources", "last_verified"}
_CORRECTIONS_SLUG = "original-article-corrections"
_FAMILIES_SLUG = "instance-families"

# Instance types the original article named that do not exist; only the corrections doc may name them.
_NONEXISTENT_TYPES = frozenset(
    {
        "ecs.gn7e-c32g1.8xlarge",
        "ecs.ebmgn7i.24xlarge",
        "ecs.l20-c32g1.8xlarge",
        "ecs.h800-cv12xe.24xlarge",
    }
)

# A CJK character counts as a word character for \b, so a plain lookbehind is used instead.
_INSTANCE_RE = re.compile(r"(?<![A-Za-z0-9_.-])ecs\.[a-z0-9-]+\.[a-z0-9]+")
# "ecs.X`: 8 vCPU, 30 GiB" and the Chinese "ecs.X：8 vCPU、30 GiB" forms.
_FIGURES_RE = re.compile(r"(ecs\.[a-z0-9-]+\.[a-z0-9]+)`?\s*[:：(（]\s*(\d+) vCPU\s*[,，、/]\s*(\d+) GiB")
_TABLE_HEADER = ["family", "GPU", "memory per GPU (GB)", "GPUs per instance", "interconnect", "confidence"]
_CONFIDENCE = {"official", "official-historical", "inferred", "uncertain"}
_UNNAMED_MARKERS = ("unnamed", "unknown", "not named", "probably")


@cache
def _catalog_rows() -> tuple[dict[str, str], ...]:
    """The project's own instance catalog, as strings in the shape the docs print them."""

    def fmt(value: float | int | None) -> str:
        return "" if value is None else f"{value:g}"

    return tuple(
        {
            "instance_type": i.instance_type,
            "family": i.family,
            "vcpu": fmt(i.vcpu),
            "mem_gib": fmt(i.memory_gib),
            "gpu_mem_gib_per_gpu": fmt(i.gpu_memory_gib),
            "gpu_count": fmt(i.gpu_count),
            "gpu_model": i.gpu_model or "",
            "gpu_likely": i.gpu_model_likely or "",
        }
        for i in catalog.load_instances()
    )


def _doc_paths() -> list[Path]:
    return sorted(p for lang in _LANGS for p in (_DOCS_DIR / lang).glob("*.md"))


def _split(path: Path) -> tuple[dict[str, object], str]:
    text = path.read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n(.*)$", text, flags=re.S)
    assert match, f"{path}: no YAML front matter delimited by '---' lines"
    meta = yaml.safe_load(match.group(1))
    assert isinstance(meta, dict), f"{path}: front matter is not a mapping"
    return meta, match.group(2)


def _doc_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


_DOCS = _doc_paths()


def test_docs_exist_in_both_languages() -> None:
    assert _DOCS, f"no documents under {_DOCS_DIR}"
    slugs = {lang: {p.stem for p in (_DOCS_DIR / lang).glob("*.md")} for lang in _LANGS}
    assert slugs["en"] - slugs["zh"] == set(), "en docs without a zh doc of the same slug"
    assert slugs["zh"] - slugs["en"] == set(), "zh docs without an en doc of the same slug"


@pytest.mark.parametrize("path", _DOCS, ids=_doc_id)
def test_front_matter(path: Path) -> None:
    meta, body = _split(path)
    missing = _REQUIRED_KEYS - meta.keys()
    assert not missing, f"{path}: missing front-matter keys {sorted(missing)}"
    assert isinstance(meta["title"], str) and meta["title"].strip()
    assert meta["lang"] == path.parent.name, f"{path}: lang {meta['lang']!r} but folder {path.parent.name!r}"
    sources = meta["sources"]
    assert isinstance(sources, list) and sources, f"{path}: sources must be a non-empty list"
    for url in sources:
        assert isinstance(url, str) and re.match(r"^https?://\S+$", url), f"{path}: bad source {url!r}"
    assert isinstance(meta["last_verified"], dt.date), f"{path}: last_verified must be a YYYY-MM-DD date"
    assert re.search(r"^# \S", body, flags=re.M), f"{path}: no '# ' title line"
    assert re.search(r"^## \S", body, flags=re.M), f"{path}: no '## ' sections"


@pytest.mark.parametrize("path", _DOCS, ids=_doc_id)
def test_source_markers_point_into_sources(path: Path) -> None:
    meta, body = _split(path)
    count = len(meta["sources"])  # type: ignore[arg-type]
    bad = sorted({int(m) for m in re.findall(r"\[(\d+)\]", body) if not 1 <= int(m) <= count})
    assert not bad, f"{path}: markers {bad} but only {count} sources"


@pytest.mark.parametrize("path", _DOCS, ids=_doc_id)
def test_instance_types_exist(path: Path) -> None:
    known = {row["instance_type"] for row in _catalog_rows()}
    _, body = _split(path)
    named = set(_INSTANCE_RE.findall(body))
    allowed = known | (_NONEXISTENT_TYPES if path.stem == _CORRECTIONS_SLUG else frozenset())
    assert named - allowed == set(), f"{path}: instance types not in the catalog"


@pytest.mark.parametrize("path", _DOCS, ids=_doc_id)
def test_instance_figures_match_catalog(path: Path) -> None:
    by_type = {row["instance_type"]: row for row in _catalog_rows()}
    _, body = _split(path)
    wrong = [
        (name, vcpu, ram, by_type[name]["vcpu"], by_type[name]["mem_gib"])
        for name, vcpu, ram in _FIGURES_RE.findall(body)
        if name in by_type and (vcpu, ram) != (by_type[name]["vcpu"], by_type[name]["mem_gib"])
    ]
    assert not wrong, f"{path}: (type, doc vCPU, doc GiB, catalog vCPU, catalog GiB) differ: {wrong}"


@pytest.mark.parametrize("lang", _LANGS)
def test_corrections_doc_names_each_nonexistent_type(lang: str) -> None:
    path = _DOCS_DIR / lang / f"{_CORRECTIONS_SLUG}.md"
    if not path.is_file():
        pytest.skip(f"{path} not written yet")
    _, body = _split(path)
    assert _NONEXISTENT_TYPES - set(_INSTANCE_RE.findall(body)) == set()


def _family_table(body: str) -> list[dict[str, str]]:
    lines = [line.strip() for line in body.splitlines()]
    header = "| " + " | ".join(_TABLE_HEADER) + " |"
    starts = [i for i, line in enumerate(lines) if line == header]
    assert len(starts) == 1, f"expected exactly one table with header {header!r}, found {len(starts)}"
    rows: list[dict[str, str]] = []
    for line in lines[starts[0] + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        assert len(cells) == len(_TABLE_HEADER), f"bad table row {line!r}"
        rows.append(dict(zip(_TABLE_HEADER, cells, strict=True)))
    return rows


def _same_gpu(doc_name: str, catalog_name: str) -> bool:
    """'A100 80GB' in a doc and 'A100-80GB' in the catalog are the same GPU."""
    try:
        return catalog.get_gpu(doc_name).name == catalog.get_gpu(catalog_name).name
    except UnknownNameError:
        return False


def _families() -> dict[str, list[dict[str, str]]]:
    grouped: dict[str, list[dict[str, str]]] = {}
    for row in _catalog_rows():
        grouped.setdefault(row["family"], []).append(row)
    return grouped


@pytest.mark.parametrize("lang", _LANGS)
def test_family_table_matches_catalog(lang: str) -> None:
    path = _DOCS_DIR / lang / f"{_FAMILIES_SLUG}.md"
    if not path.is_file():
        pytest.skip(f"{path} not written yet")
    families = _families()
    _, body = _split(path)
    table = _family_table(body)
    assert len(table) >= 20, "family table looks truncated"
    for entry in table:
        family = entry["family"]
        assert family in families, f"{family}: not in the catalog"
        rows = families[family]
        assert entry["confidence"] in _CONFIDENCE, f"{family}: confidence {entry['confidence']!r}"

        memories = {row["gpu_mem_gib_per_gpu"] for row in rows}
        assert len(memories) == 1, f"{family}: catalog has several memory sizes {memories}"
        memory = memories.pop()
        if memory:
            assert float(entry["memory per GPU (GB)"]) == float(memory), f"{family}: memory per GPU"
        else:
            assert not re.fullmatch(r"[\d.]+", entry["memory per GPU (GB)"]), f"{family}: catalog has none"

        counts = {int(float(row["gpu_count"])) for row in rows if row["gpu_count"]}
        assert {int(n) for n in re.findall(r"\d+", entry["GPUs per instance"])} == counts, family

        named = {row["gpu_model"] for row in rows}
        assert len(named) == 1, f"{family}: catalog has several GPU models {named}"
        name = named.pop()
        doc_gpu = entry["GPU"]
        if name:
            assert _same_gpu(doc_gpu.split(" (")[0], name), f"{family}: GPU {doc_gpu!r}, catalog {name!r}"
        else:
            likely = rows[0]["gpu_likely"]
            unnamed = any(marker in doc_gpu for marker in _UNNAMED_MARKERS)
            assert unnamed or _same_gpu(doc_gpu, likely), f"{family}: {doc_gpu!r} vs {likely!r}"
            assert entry["confidence"] != "official", f"{family}: unnamed GPU cannot be 'official'"
