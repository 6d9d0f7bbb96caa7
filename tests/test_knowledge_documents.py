from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from knowledge_helpers import FIXTURE_DOCS

from knowledge.documents import DocumentError, default_docs_dir, load_documents, parse_document

GOOD = """---
title: Choosing a GPU
lang: en
sources:
  - https://example.com/a
last_verified: 2026-11-30
---

# Choosing a GPU

## Memory

Text.
"""


def test_parse_document_reads_front_matter_and_body() -> None:
    doc = parse_document(GOOD, Path("/x/en/choosing-a-gpu.md"))
    assert doc.slug == "choosing-a-gpu"
    assert doc.lang == "en"
    assert doc.title == "Choosing a GPU"
    assert doc.sources == ("https://example.com/a",)
    assert doc.last_verified == dt.date(2026, 11, 30)
    assert doc.body.startswith("# Choosing a GPU")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# no front matter\n", "must start with"),
        ("---\ntitle: x\n", "not closed"),
        (GOOD.replace("lang: en", "lang: fr"), "lang"),
        (GOOD.replace("https://example.com/a", "example.com/a"), "must be an http"),
        (GOOD.replace("title: Choosing a GPU", "title: x\nauthor: me"), "author"),
        (GOOD.replace("last_verified: 2026-11-30", "last_verified: soon"), "last_verified"),
    ],
)
def test_parse_document_rejects_bad_front_matter_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(DocumentError, match=message) as info:
        parse_document(text, Path("/x/en/bad.md"))
    assert "bad.md" in str(info.value)


def test_lang_must_match_directory() -> None:
    with pytest.raises(DocumentError, match="does not match directory"):
        parse_document(GOOD, Path("/x/zh/choosing-a-gpu.md"))


def test_load_documents_reads_both_languages_sorted() -> None:
    docs = load_documents(FIXTURE_DOCS)
    assert [(d.lang, d.slug) for d in docs] == sorted((d.lang, d.slug) for d in docs)
    assert {d.lang for d in docs} == {"en", "zh"}


def test_shipped_documents_all_load() -> None:
    # Every guidance document in the package must parse; an empty package would make search useless.
    docs = load_documents()
    assert docs, f"no documents under {default_docs_dir()}"
    assert all(d.path.is_relative_to(default_docs_dir()) for d in docs)
