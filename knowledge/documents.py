"""Guidance documents: Markdown files with YAML front matter, one language per directory.

Layout: ``<docs_dir>/<lang>/<slug>.md``. The front matter names the title, language, sources (URLs) and
the date the facts were last checked; the body starts with a ``#`` title and has ``##`` sections.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")

_FENCE = "---"


def _check_url(value: str) -> str:
    if not value.startswith(("https://", "http://")):
        raise ValueError(f"source must be an http(s) URL, got {value!r}")
    return value


SourceUrl = Annotated[str, AfterValidator(_check_url)]


class DocumentError(ValueError):
    """A guidance document is malformed; the message names the file and the problem."""


class FrontMatter(BaseModel):
    """The YAML block at the top of a guidance document."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1)
    lang: Lang
    sources: list[SourceUrl] = Field(min_length=1)
    last_verified: dt.date


class Document(BaseModel):
    """One guidance document in one language.

    Attributes:
        slug: File name without ``.md``; the same slug in ``en/`` and ``zh/`` is the same guide.
        lang: Language of the text.
        title: Title from the front matter.
        sources: URLs the facts come from.
        last_verified: Date the facts were last checked against the sources.
        body: Markdown after the front matter.
        path: File the document was read from.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    slug: str
    lang: Lang
    title: str
    sources: tuple[str, ...]
    last_verified: dt.date
    body: str
    path: Path


def default_docs_dir() -> Path:
    """Directory of the guidance documents shipped inside the package."""
    return Path(__file__).resolve().parent / "docs"


def parse_document(text: str, path: Path) -> Document:
    """Parse one Markdown file with YAML front matter.

    Args:
        text: Whole file content.
        path: Where it came from; its stem is the slug, its parent directory the expected language.

    Raises:
        DocumentError: Missing or invalid front matter, or a language that disagrees with the directory.
    """
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != _FENCE:
        raise DocumentError(f"{path}: must start with a '---' YAML front matter block")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == _FENCE)
    except StopIteration:
        raise DocumentError(f"{path}: front matter is not closed with '---'") from None
    try:
        raw = yaml.load("\n".join(lines[1:end]), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
        meta = FrontMatter.model_validate(raw)
    except (yaml.YAMLError, ValidationError) as exc:
        raise DocumentError(f"{path}: invalid front matter: {exc}") from None
    if path.parent.name in LANGS and path.parent.name != meta.lang:
        raise DocumentError(f"{path}: lang {meta.lang!r} does not match directory {path.parent.name!r}")
    return Document(
        slug=path.stem,
        lang=meta.lang,
        title=meta.title,
        sources=tuple(meta.sources),
        last_verified=meta.last_verified,
        body="\n".join(lines[end + 1 :]).strip("\n") + "\n",
        path=path,
    )


def load_documents(docs_dir: Path | None = None, langs: Sequence[Lang] = LANGS) -> tuple[Document, ...]:
    """Read every ``<docs_dir>/<lang>/*.md`` document, sorted by language then slug.

    Not cached: a knowledge base reads the files once when it starts and keeps them, and a re-index after
    editing a file must see the edit.

    Args:
        docs_dir: Root directory; ``None`` means the documents shipped with the package.
        langs: Languages (sub-directories) to read.

    Raises:
        DocumentError: A file is malformed.
    """
    root = docs_dir or default_docs_dir()
    docs: list[Document] = []
    for lang in langs:
        for path in sorted((root / lang).glob("*.md")):
            docs.append(parse_document(path.read_text(encoding="utf-8"), path))
    return tuple(docs)
