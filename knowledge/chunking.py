"""Split guidance documents into retrievable chunks: one chunk per ``##`` section.

Each chunk keeps what a citation needs (document, section title, GitHub-style anchor, sources, date) and
two identities: ``chunk_id`` names the place (language, document, anchor) and stays the same when the text
is edited; ``content_hash`` changes with any edit, so re-indexing embeds only what changed.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from knowledge.documents import Document, Lang

_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_KEEP_PUNCT = frozenset("-_ ")


class Chunk(BaseModel):
    """One ``##`` section of one document, ready to embed and cite.

    Attributes:
        chunk_id: ``<lang>/<doc>#<anchor>``; stable while the heading stays the same.
        doc: Document slug.
        doc_title: Document title.
        section: Section heading text (the document title for text before the first ``##``).
        anchor: GitHub-style anchor of the heading, for links like ``<doc>.md#<anchor>``.
        lang: Language of the text.
        sources: URLs the section cites with ``[n]`` markers (numbered as in the document's front
            matter), in document order; all of the document's sources when the section has no marker.
        last_verified: ISO date the document's facts were last checked.
        text: Section body without its heading line.
        content_hash: SHA-256 (hex, 16 chars) of everything stored for the chunk.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    chunk_id: str
    doc: str
    doc_title: str
    section: str
    anchor: str
    lang: Lang
    sources: tuple[str, ...]
    last_verified: str
    text: str
    content_hash: str

    @property
    def embed_text(self) -> str:
        """Text given to the embedding model and the keyword index: titles give a short section context."""
        return f"{self.doc_title} - {self.section}\n\n{self.text}"


def github_anchor(heading: str) -> str:
    """Anchor GitHub generates for a Markdown heading (github-slugger rules, without de-duplication).

    Lower-cases, drops inline Markdown and every character that is not a letter, digit, mark, space,
    ``-`` or ``_``, then turns spaces into ``-``. CJK characters are letters and are kept.
    """
    text = _LINK_RE.sub(r"\1", heading.strip()).lower()
    kept = "".join(c for c in text if c in _KEEP_PUNCT or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


def chunk_document(doc: Document) -> list[Chunk]:
    """Split one document into chunks at its ``##`` headings.

    ``###`` and deeper headings stay inside their ``##`` section; headings inside fenced code blocks are
    ignored. Text between the ``#`` title and the first ``##`` becomes a chunk titled like the document.
    Empty sections are skipped.
    """
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for heading, body in _sections(doc):
        text = body.strip()
        if not text:
            continue
        anchor = _dedupe(github_anchor(heading), seen)
        chunks.append(_make_chunk(doc, heading, anchor, text))
    return chunks


def chunk_documents(docs: list[Document] | tuple[Document, ...]) -> list[Chunk]:
    """Chunks of several documents, in document order."""
    return [chunk for doc in docs for chunk in chunk_document(doc)]


def _sections(doc: Document) -> list[tuple[str, str]]:
    sections: list[tuple[str, list[str]]] = [(doc.title, [])]
    in_fence = False
    for line in doc.body.splitlines():
        if _FENCE_RE.match(line):
            in_fence = not in_fence
        if not in_fence and line.startswith("## "):
            sections.append((line[3:].strip().rstrip("#").strip(), []))
        elif not in_fence and line.startswith("# ") and len(sections) == 1 and not sections[0][1]:
            continue  # the document's own title line
        else:
            sections[-1][1].append(line)
    return [(heading, "\n".join(lines)) for heading, lines in sections]


def _dedupe(anchor: str, seen: dict[str, int]) -> str:
    # GitHub numbers repeated anchors: "usage", "usage-1", "usage-2".
    count = seen.get(anchor, 0)
    seen[anchor] = count + 1
    return anchor if count == 0 else f"{anchor}-{count}"


_MARKER = re.compile(r"\[(\d+(?:\s*[,，、]\s*\d+)*)\]")


def section_sources(doc_sources: Sequence[str], text: str) -> list[str]:
    """Return the sources a section cites by its ``[n]`` markers; the whole list when it cites none.

    A citation should link to what backs the passage, not to the document's first source.
    """
    cited = {int(n) for m in _MARKER.finditer(text) for n in re.split(r"[,，、\s]+", m.group(1)) if n}
    picked = [url for i, url in enumerate(doc_sources, start=1) if i in cited]
    return picked or list(doc_sources)


def _make_chunk(doc: Document, heading: str, anchor: str, text: str) -> Chunk:
    fields = {
        "doc": doc.slug,
        "doc_title": doc.title,
        "section": heading,
        "anchor": anchor,
        "lang": doc.lang,
        "sources": section_sources(doc.sources, text),
        "last_verified": doc.last_verified.isoformat(),
        "text": text,
    }
    digest = hashlib.sha256(json.dumps(fields, ensure_ascii=False, sort_keys=True).encode()).hexdigest()
    return Chunk(
        chunk_id=f"{doc.lang}/{doc.slug}#{anchor}",
        content_hash=digest[:16],
        **fields,  # type: ignore[arg-type]
    )
