"""What a search returns: passages with everything needed to cite them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from knowledge.documents import Lang

_SNIPPET_CHARS = 240


class Citation(BaseModel):
    """A reference to one section of a guidance document, for the answer's source list.

    Attributes:
        doc: Document slug (file name without ``.md``).
        doc_title: Document title.
        section: Section heading.
        anchor: GitHub-style anchor of the section heading.
        lang: Language of the document.
        sources: URLs the section's facts come from.
        snippet: The start of the section text, at most 240 characters.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    doc: str
    doc_title: str
    section: str
    anchor: str
    lang: Lang
    sources: list[str]
    snippet: str

    @property
    def path(self) -> str:
        """Path of the section inside the package docs, e.g. ``en/choosing-a-gpu.md#memory``."""
        return f"{self.lang}/{self.doc}.md#{self.anchor}"


class Passage(BaseModel):
    """One retrieved section.

    Attributes:
        text: Section text (Markdown, without its heading).
        doc: Document slug.
        doc_title: Document title.
        section: Section heading.
        anchor: GitHub-style anchor of the section heading.
        lang: Language of the text.
        sources: URLs the section's facts come from.
        last_verified: ISO date the facts were last checked.
        score: Ranking score of the search mode used; higher is better, only comparable within one result
            list.
        chunk_id: ``<lang>/<doc>#<anchor>``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    doc: str
    doc_title: str
    section: str
    anchor: str
    lang: Lang
    sources: list[str]
    last_verified: str
    score: float
    chunk_id: str = Field(min_length=1)

    def citation(self) -> Citation:
        """Build the citation for this passage."""
        snippet = " ".join(self.text.split())
        if len(snippet) > _SNIPPET_CHARS:
            snippet = snippet[: _SNIPPET_CHARS - 1].rstrip() + "…"
        return Citation(
            doc=self.doc,
            doc_title=self.doc_title,
            section=self.section,
            anchor=self.anchor,
            lang=self.lang,
            sources=list(self.sources),
            snippet=snippet,
        )
